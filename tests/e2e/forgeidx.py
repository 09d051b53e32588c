# forgeidx.py FILE: adds 2^60 to a saved index's instruction count, as
# someone editing the file would.  The file ends with an HMAC under the
# user's key, which an editor cannot recompute, so ptrec must rebuild it.
#
# forgeidx.py --stale SRC DST KEYFILE: a stale index with a valid MAC, as
# a key that misses a change would leave (format 6: a copied bundle that
# kept its stream's mtime, an image gone): SRC's contents (another
# bundle's index of the same stream) with DST's key field, signed again
# with this user's key (KEYFILE, ~/.cache/ptrec/index-key), into DST.
# With SRC = DST it only signs again: ptrec must then keep the file.
#
# forgeidx.py --grow FILE KEYFILE: every checkpoint after the first and
# the instruction count moved on by the count, signed again: the last
# segment (checked at open) still fits the stream, segment 0 claims more
# instructions than the stream holds, which only its decode shows.
# Layout: replay/idxcache.c.
import hashlib
import hmac
import struct
import sys

INSNS_AT = 8 + 4 + 4 + 8 * 7     # magic, version, exact, seven u64s
KEY_AT = 8 + 4 + 4               # magic, version, exact
MAC = 32                         # HMAC-SHA256 of all bytes before it
NPSBS_AT = KEY_AT + 8 * 4        # key, pt_size, pt_mtime_ns, nrecs
HEADER = KEY_AT + 8 * 12         # struct idx_header
PSB = 8 * 3                      # struct rp_psb
CKPT = 8 * 12                    # struct rp_ckpt (format 8: + rp_split, rets)


def sign(body, keyfile):
    key = open(keyfile, 'rb').read()
    return bytes(body) + hmac.new(key, bytes(body), hashlib.sha256).digest()


if sys.argv[1] == '--stale':
    src, dst, keyfile = sys.argv[2:5]
    body = bytearray(open(src, 'rb').read()[:-MAC])
    want = open(dst, 'rb').read()
    body[KEY_AT:KEY_AT + 8] = want[KEY_AT:KEY_AT + 8]
    open(dst, 'wb').write(sign(body, keyfile))
    sys.exit(0)

if sys.argv[1] == '--grow':
    path, keyfile = sys.argv[2:4]
    body = bytearray(open(path, 'rb').read()[:-MAC])
    npsbs, nckpts = struct.unpack_from('<QQ', body, NPSBS_AT)
    if nckpts < 2:
        sys.exit('%s: %d checkpoints, need 2' % (path, nckpts))
    insns = struct.unpack_from('<Q', body, INSNS_AT)[0]
    struct.pack_into('<Q', body, INSNS_AT, 2 * insns)
    for k in range(1, nckpts):
        at = HEADER + npsbs * PSB + k * CKPT + 8
        struct.pack_into('<Q', body, at,
                         struct.unpack_from('<Q', body, at)[0] + insns)
    open(path, 'wb').write(sign(body, keyfile))
    sys.exit(0)

d = bytearray(open(sys.argv[1], 'rb').read())
insns = struct.unpack_from('<Q', d, INSNS_AT)[0]
struct.pack_into('<Q', d, INSNS_AT, insns + (1 << 60))
open(sys.argv[1], 'wb').write(d)
