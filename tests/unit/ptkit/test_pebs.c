// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * PEBS block packets (ptkit/pebs.c, SDM Vol. 3C "PEBS via Intel PT"): a
 * BBP with 4- or 8-byte items, its BIPs and BEP read as one; a lone BEP;
 * what is none of these refused; a stream cut inside an item not read
 * past its end.
 */
#include <criterion/criterion.h>

#include "ptkit.h"

Test(pebs, a_block_of_4_byte_items)
{
	static const uint8_t b[] = {
		0x02, 0x63, 0x83,		/* BBP: 4 bytes, type 3 */
		0x04, 0x44, 0x33, 0x22, 0x11,		/* BIP ID 0 */
		0x0c, 0x88, 0x77, 0x66, 0x55,		/* BIP ID 1 */
		0x02, 0x33,				/* BEP */
		0x99,					/* not the block's */
	};
	struct ptkit_pebs_item it[4];
	size_t n;

	cr_assert_eq(ptkit_pebs_block(b, b + sizeof(b), it, 4, &n), 15);
	cr_assert_eq(n, 2);
	cr_assert_eq(it[0].type, 3);
	cr_assert_eq(it[0].id, 0);
	cr_assert_eq(it[0].size, 4);
	cr_assert_eq(it[0].value, 0x11223344);
	cr_assert_eq(it[1].id, 1);
	cr_assert_eq(it[1].value, 0x55667788);
}

Test(pebs, a_block_of_8_byte_items_and_a_bep_with_ip)
{
	static const uint8_t b[] = {
		0x02, 0x63, 0x01,		/* BBP: 8 bytes, type 1 */
		0xfc, 1, 2, 3, 4, 5, 6, 7, 8,		/* BIP ID 0x1f */
		0x02, 0xb3,				/* BEP, FUP follows */
	};
	struct ptkit_pebs_item it[4];
	size_t n;

	cr_assert_eq(ptkit_pebs_block(b, b + sizeof(b), it, 4, &n), 14);
	cr_assert_eq(n, 1);
	cr_assert_eq(it[0].id, 0x1f);
	cr_assert_eq(it[0].size, 8);
	cr_assert_eq(it[0].value, 0x0807060504030201ull);
	cr_assert_eq(ptkit_pebs_block(b + 12, b + sizeof(b), it, 4, &n), 2);
	cr_assert_eq(n, 0);
}

Test(pebs, not_a_block_and_cut_items)
{
	static const uint8_t other[] = { 0x02, 0x82 };	/* PSB's start */
	static const uint8_t cut[] = { 0x02, 0x63, 0x80, 0x04, 0x44, 0x33 };
	struct ptkit_pebs_item it[1];
	size_t n;

	cr_assert_eq(ptkit_pebs_block(other, other + 2, it, 1, &n), -1);
	cr_assert_eq(ptkit_pebs_block(other, other + 1, it, 1, &n), -1);
	/* The item runs past the end: only the BBP is read. */
	cr_assert_eq(ptkit_pebs_block(cut, cut + sizeof(cut), it, 1, &n), 3);
	cr_assert_eq(n, 0);
}
