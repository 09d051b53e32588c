#!/usr/bin/env python3
# review13_regs.py SRC DST KIND [N]: copies bundle SRC to DST with its
# N-th (from 0; -1 the last) REGS record of a place changed (review13.sh):
#   startrip  a start record's rip + 1 (the engine must not take it)
#   sysrip    a system call record's rip + 2
#   drop1, drop2  a start (system call) record left out
#   where3    a record's place 3 (the reader must refuse it)
#   valid27   a record's valid bit 27 set
#   setnv     a system call record's cs (not valid: since session 18 the
#             16 general-purpose registers and rflags are) set
#   resv      a record's reserved word set
# and the manifest's size and hash of sideband.sb fixed.  Prints the
# byte offset of the record changed.
import hashlib, json, shutil, struct, sys
src, dst, kind = sys.argv[1], sys.argv[2], sys.argv[3]
nth = int(sys.argv[4]) if len(sys.argv) > 4 else 0
shutil.rmtree(dst, ignore_errors=True)
shutil.copytree(src, dst)
b = bytearray(open(src + "/sideband.sb", "rb").read())
want = {"startrip": 1, "drop1": 1, "sysrip": 2, "drop2": 2,
        "setnv": 2}.get(kind, 0)
found = []
p = struct.unpack_from("<I", b, 12)[0]
while p + 16 <= len(b):
    t, f, sz = struct.unpack_from("<HHI", b, p)
    if t == 17 and (not want or
                    struct.unpack_from("<I", b, p + 24)[0] == want):
        found.append((p, sz))
    p += sz
if not found or nth >= len(found):
    sys.exit("no such record")
p, sz = found[nth]
regs = p + 40
if kind in ("startrip", "sysrip"):
    v = struct.unpack_from("<Q", b, regs + 16 * 8)[0]
    struct.pack_into("<Q", b, regs + 16 * 8, v + want)
elif kind.startswith("drop"):
    b = b[:p] + b[p + sz:]
elif kind == "where3":
    struct.pack_into("<I", b, p + 24, 3)
elif kind == "valid27":
    v = struct.unpack_from("<Q", b, p + 32)[0]
    struct.pack_into("<Q", b, p + 32, v | 1 << 27)
elif kind == "setnv":
    struct.pack_into("<Q", b, regs + 18 * 8, 0x1234)
elif kind == "resv":
    struct.pack_into("<I", b, p + 28, 7)
else:
    sys.exit("unknown kind " + kind)
open(dst + "/sideband.sb", "wb").write(b)
m = json.load(open(dst + "/manifest.json"))
for fl in m.get("files", []):
    if fl.get("path") == "sideband.sb":
        fl["size"] = len(b)
        for key in list(fl):
            if key.startswith("sha"):
                fl[key] = hashlib.sha256(b).hexdigest()
json.dump(m, open(dst + "/manifest.json", "w"), indent=2)
print(p)
