# forgeidx.py FILE: adds 2^60 to a saved index's instruction count, as
# someone editing the file would.  The file ends with an HMAC under the
# user's key, which an editor cannot recompute, so ptrec must rebuild it.
# Layout: replay/idxcache.c.
import struct
import sys

INSNS_AT = 8 + 4 + 4 + 8 * 7     # magic, version, exact, seven u64s

d = bytearray(open(sys.argv[1], 'rb').read())
insns = struct.unpack_from('<Q', d, INSNS_AT)[0]
struct.pack_into('<Q', d, INSNS_AT, insns + (1 << 60))
open(sys.argv[1], 'wb').write(d)
