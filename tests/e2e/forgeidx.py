# forgeidx.py FILE: adds 2^60 to a saved index's instruction count and
# recomputes its checksum, as someone editing the file would (the
# checksum is FNV-1a, no protection).  Layout: replay/idxcache.c.
import struct
import sys

FNV_INIT = 0xcbf29ce484222325
SUM_AT = 8 + 4 + 4 + 8 * 10     # magic, version, exact, ten u64s
INSNS_AT = 8 + 4 + 4 + 8 * 7


def fnv(data):
    h = FNV_INIT
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


d = bytearray(open(sys.argv[1], 'rb').read())
insns = struct.unpack_from('<Q', d, INSNS_AT)[0]
struct.pack_into('<Q', d, INSNS_AT, insns + (1 << 60))
struct.pack_into('<Q', d, SUM_AT, 0)
struct.pack_into('<Q', d, SUM_AT, fnv(d))
open(sys.argv[1], 'wb').write(d)
