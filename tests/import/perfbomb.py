# perfbomb.py KIND OUT: perf.data files built to cost memory or time out
# of proportion to their size (found in review), from the documented
# layout (tools/perf/Documentation/perf.data-file-format.txt):
#   amp   20,000 attrs whose ids sections all name one 4 MB blob
#   quad  two attrs of different sample types sharing 500,000 ids, and
#         300,000 records whose ids must each be looked up
#   exec  300,000 COMM records marked exec (PERF_RECORD_MISC_COMM_EXEC),
#         each an EXEC whose path is looked up
#   bufs  AUXTRACE records for 400,000 distinct AUX buffers and threads
import struct
import sys

MAGIC = 0x32454c4946524550     # "PERFILE2"
PSB = bytes([0x02, 0x82] * 8)
PSBEND = bytes([0x02, 0x23])


def rec(rtype, body, misc=0):
    return struct.pack('<IHH', rtype, misc, 8 + len(body)) + body


def auxinfo(pmu=8):
    priv = [pmu, 10, 1000, 5000000, 1, 10, 11, 0, 0, 0]
    return rec(70, struct.pack('<II', 1, 0) +
               b''.join(struct.pack('<Q', x) for x in priv))


def auxtrace(data):
    return rec(71, struct.pack('<QQQIIII', len(data), 0, 0, 0, 1,
                               0xffffffff, 0)) + data


def build(blob, sample_types, data):
    hdr_size = 104
    attrs = b''
    for i, st in enumerate(sample_types):
        a = struct.pack('<IIQQQQQII', 8 if i == 0 else 1, 128, 0, 0, st,
                        0, 1 << 18, 0, 0).ljust(120, b'\0')
        attrs += a + struct.pack('<QQ', hdr_size, len(blob))
    attrs_off = hdr_size + len(blob)
    data_off = attrs_off + len(attrs)
    h = struct.pack('<9Q', MAGIC, hdr_size, 136, attrs_off, len(attrs),
                    data_off, len(data), 0, 0) + struct.pack('<4Q', 0, 0, 0, 0)
    return h + blob + attrs + data


kind, out = sys.argv[1], sys.argv[2]
trace = auxinfo() + auxtrace(PSB + PSBEND)
if kind == 'amp':
    f = build(b'\x01' * (4 << 20), [0] * 20000, trace)
elif kind == 'bufs':
    n = 400000
    aux = b''.join(rec(71, struct.pack('<QQQIIII', 0, 0, 0, i, i + 1,
                                       0xffffffff, 0)) for i in range(n))
    last = auxtrace(PSB + PSBEND)
    f = build(b'', [0], auxinfo() + aux + last)
elif kind == 'exec':
    comm = rec(3, struct.pack('<II', 1, 1) + b'x\0\0\0\0\0\0\0',
               misc=1 << 13)
    f = build(b'', [0], trace + comm * 300000)
else:
    ident = 1 << 16
    f = build(struct.pack('<Q', 7) * 500000, [ident | 2, ident],
              trace + rec(5, struct.pack('<Q', 99)) * 300000)
open(out, 'wb').write(f)
