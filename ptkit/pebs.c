// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * PEBS block packets (BBP, BIP, BEP: PEBS records written into the trace,
 * Intel SDM Vol. 3C, "PEBS via Intel PT"), which libipt 2.0 does not know:
 * its decoders hand such bytes to a callback (pt_config.decode), and this
 * reads them, so the replay engine keeps them as raw records instead of a
 * decode error.
 *
 * BBP is 02 63 then a byte: bit 7 set, 4-byte items, else 8; bits 4:0 the
 * block's type.  Each BIP is a byte with bits 2:0 = 100b and the item's ID
 * in bits 7:3, then the item.  BEP is 02 33 (02 b3: a FUP with the
 * record's IP follows).
 */
#include <string.h>

#include "ptkit.h"

int ptkit_pebs_block(const uint8_t *p, const uint8_t *end,
		     struct ptkit_pebs_item *items, size_t max, size_t *n)
{
	const uint8_t *q = p;
	unsigned int size, type;

	*n = 0;
	if (end - p < 2 || p[0] != 0x02)
		return -1;
	if (p[1] == 0x33 || p[1] == 0xb3)
		return 2;	/* a BEP of a block read already */
	if (p[1] != 0x63 || end - p < 3)
		return -1;
	size = p[2] & 0x80 ? 4 : 8;
	type = p[2] & 0x1f;
	q += 3;
	/* BIPs: only right after the BBP or each other. */
	while (end - q >= 1 + (ptrdiff_t)size && (q[0] & 7) == 4) {
		if (*n < max) {
			struct ptkit_pebs_item *it = &items[*n];

			it->type = type;
			it->id = q[0] >> 3;
			it->size = size;
			it->value = 0;
			memcpy(&it->value, q + 1, size);
			(*n)++;
		}
		q += 1 + size;
	}
	/* The BEP, when it follows at once. */
	if (end - q >= 2 && q[0] == 0x02 && (q[1] == 0x33 || q[1] == 0xb3))
		q += 2;
	return (int)(q - p);
}
