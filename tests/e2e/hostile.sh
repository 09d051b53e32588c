#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Crafted bundles (#15): a bundle is untrusted input.  Each case builds a
# hostile copy of a real recording and checks that ptrec writes nothing
# outside it, follows no symlink in it, never blocks on a FIFO or device,
# reads an empty stream, and does not trust an index it did not write.
# Run by tests/e2e/run.sh (so under make asan too); standalone:
#   PTREC=build/ptrec PROGS=build/tests/programs tests/e2e/hostile.sh
here=$(cd "$(dirname "$0")" && pwd)
testlib_dir=$here
. "$here/../lib.sh"
tap_begin hostile
# The index key lives in the test's own cache directory.
export XDG_CACHE_HOME="$tmp/cache"
T="timeout 30"

"$PTREC" record -q -o "$tmp/orig" -- "$PROGS/threads" >/dev/null 2>&1 ||
	{ bad "record threads"; tap_end hostile; }
PTREC_INDEX_CACHE=0 "$PTREC" info "$tmp/orig" >"$tmp/info.orig" 2>&1
tids=$(ls "$tmp/orig/pt" | sed 's/\.pt$//')
tid=$(echo "$tids" | head -1)
fresh() { rm -rf "$tmp/$1"; cp -r "$tmp/orig" "$tmp/$1"; rm -rf "$tmp/$1/index"; }
# same NAME: `ptrec info` of bundle NAME reports what the original does.
same() {
	"$PTREC" info "$tmp/$1" 2>&1 | sed "s|$tmp/$1|B|" >"$tmp/info.$1"
	sed "s|$tmp/orig|B|" "$tmp/info.orig" | cmp -s - "$tmp/info.$1"
}

# 1. Temporary index files that are symlinks to a file outside: not
# followed (the pid is the one ptrec runs as: sh execs it).
fresh tmpl
mkdir "$tmp/tmpl/index"
echo precious >"$tmp/victim"
for t in $tids; do ln -s "$tmp/victim" "$tmp/tmpl/index/$t.idx.PID.tmp"; done
sh -c 'for f in "$1"/index/*.PID.tmp; do
		mv "$f" "${f%.PID.tmp}.$$.tmp"; done
	exec "$2" info "$1"' sh "$tmp/tmpl" "$PTREC" >"$tmp/log" 2>&1
[ "$(cat "$tmp/victim")" = precious ] && ls "$tmp/tmpl/index/$tid.idx" >/dev/null 2>&1 &&
	ok "index cache: a symlinked temporary file is not written through (the index is still saved)" ||
	bad "index cache: wrote through a symlinked temporary file"

# 2. index -> a directory elsewhere: nothing written there.
fresh idxdir
mkdir "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$tmp/idxdir/index"
"$PTREC" info "$tmp/idxdir" >"$tmp/log" 2>&1
rc=$?
[ $rc = 0 ] && [ -z "$(ls "$tmp/elsewhere")" ] &&
	ok "index cache: index -> elsewhere writes nothing there" ||
	bad "index cache: index -> elsewhere (exit $rc, $(ls "$tmp/elsewhere"))"

# 3. index/TID.idx a symlink to an outside file: not read, not overwritten.
fresh idxlink
mkdir "$tmp/idxlink/index"
ln -s "$tmp/victim" "$tmp/idxlink/index/$tid.idx"
same idxlink && [ "$(cat "$tmp/victim")" = precious ] &&
	ok "index cache: a symlinked index is neither read nor written through" ||
	bad "index cache: symlinked index"

# 4. Not this user's bundle: no cache written at all.
if [ "$(id -u)" = 0 ]; then
	fresh notmine
	chown -R 65534 "$tmp/notmine"
	same notmine && [ ! -e "$tmp/notmine/index" ] &&
		ok "index cache: nothing written in a bundle owned by another user" ||
		bad "index cache: wrote into another user's bundle"
fi

# 5. An image that is a symlink to a file outside (same bytes, same size):
# the bundle is refused, naming the file, and nothing is served.
fresh imglink
img=$(ls "$tmp/imglink/images" | head -1)
cp "$tmp/imglink/images/$img" "$tmp/outside-image"
rm "$tmp/imglink/images/$img"
ln -s "$tmp/outside-image" "$tmp/imglink/images/$img"
fails "a symlinked image is refused" "images/$img: a symbolic link" \
	$T "$PTREC" info "$tmp/imglink"
# The GDB server refuses it too, so no m packet can read the outside file.
server=${PTREC_SERVER:-$(dirname "$PTREC")/ptrec-server}
if [ -x "$server" ]; then
	fails "ptrec-server refuses a bundle with a symlinked image" \
		"images/$img: a symbolic link" \
		$T "$server" --stdio "$tmp/imglink" </dev/null
fi
fresh pt-dir
mv "$tmp/pt-dir/pt" "$tmp/pt-elsewhere"
ln -s "$tmp/pt-elsewhere" "$tmp/pt-dir/pt"
fails "a symlinked pt/ directory is refused" "symbolic link" \
	$T "$PTREC" insns "$tmp/pt-dir"

if [ -f "$tmp/orig/snapshot.ptsnap" ]; then
	fresh snaplink
	mv "$tmp/snaplink/snapshot.ptsnap" "$tmp/outside-snap"
	ln -s "$tmp/outside-snap" "$tmp/snaplink/snapshot.ptsnap"
	fails "a symlinked snapshot is refused (ptrec core)" "symbolic link" \
		$T "$PTREC" core "$tmp/snaplink" -o "$tmp/core"
fi

# 6. FIFOs and devices never block: manifest, PT stream, regs, index.
fresh fifo-manifest
rm "$tmp/fifo-manifest/manifest.json"
mkfifo "$tmp/fifo-manifest/manifest.json"
fails "a FIFO as manifest.json is refused, not waited on" "not a regular file" \
	$T "$PTREC" info "$tmp/fifo-manifest"
fresh fifo-regs
rm "$tmp/fifo-regs/regs/$tid.json"
mkfifo "$tmp/fifo-regs/regs/$tid.json"
fails "a FIFO as regs/TID.json is refused, not waited on" "not a regular file" \
	$T "$PTREC" info "$tmp/fifo-regs"
fresh fifo-idx
mkdir "$tmp/fifo-idx/index"
mkfifo "$tmp/fifo-idx/index/$tid.idx"
$T "$PTREC" info "$tmp/fifo-idx" >"$tmp/log" 2>&1
rc=$?
[ $rc = 0 ] && ok "a FIFO as index/TID.idx is ignored (exit 0)" ||
	bad "a FIFO as index/TID.idx (exit $rc)"
fresh dev-pt
if rm "$tmp/dev-pt/pt/$tid.pt" && mknod "$tmp/dev-pt/pt/$tid.pt" c 1 5 2>/dev/null; then
	fails "a device as PT stream is refused" "not a regular file" \
		$T "$PTREC" info "$tmp/dev-pt"
fi

# 7. One empty PT stream: the bundle stays readable, the other threads
# unchanged (it was "out of memory: out of memory").
fresh empty
last=$(echo "$tids" | tail -1)
: >"$tmp/empty/pt/$last.pt"
python3 - "$tmp/empty/manifest.json" "pt/$last.pt" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
for f in m['files']:
    if f['path'] == sys.argv[2]:
        f['size'] = 0
json.dump(m, open(sys.argv[1], 'w'))
EOF
"$PTREC" info "$tmp/empty" >"$tmp/info.empty" 2>"$tmp/log"
rc=$?
grep "^  thread " "$tmp/info.orig" | grep -v "thread $last " >"$tmp/t1"
grep "^  thread " "$tmp/info.empty" | grep -v "thread $last " >"$tmp/t2"
if [ $rc = 0 ] && grep -q "thread $last .*: 0 instructions" "$tmp/info.empty" &&
	cmp -s "$tmp/t1" "$tmp/t2"; then
	ok "an empty PT stream: 0 instructions, the other threads as before"
else
	cat "$tmp/info.empty" >>"$tmp/log"
	bad "an empty PT stream (exit $rc)"
fi
"$PTREC" insns "$tmp/empty" --thread "$tid" --format=addr >"$tmp/a1" 2>"$tmp/log" &&
	"$PTREC" insns "$tmp/orig" --thread "$tid" --format=addr >"$tmp/a2" 2>>"$tmp/log" &&
	cmp -s "$tmp/a1" "$tmp/a2" &&
	ok "an empty PT stream: another thread's history is unchanged" ||
	bad "an empty PT stream: another thread's history"

# 7b. A stream without a PSB (all PAD bytes, same size): indexed as one
# gap and saved (the save wrote a NULL array: UB under make asan).
fresh nopsb
sz=$(wc -c <"$tmp/nopsb/pt/$last.pt")
head -c "$sz" /dev/zero >"$tmp/nopsb/pt/$last.pt"
"$PTREC" info "$tmp/nopsb" >"$tmp/info.nopsb" 2>"$tmp/log"
rc=$?
[ $rc = 0 ] && grep -q "thread $last .*: 0 instructions, 1 gaps" "$tmp/info.nopsb" &&
	[ -s "$tmp/nopsb/index/$last.idx" ] &&
	"$PTREC" info "$tmp/nopsb" 2>&1 | cmp -s - "$tmp/info.nopsb" &&
	ok "a stream without a PSB: one gap, its index saved and read back" ||
	{ cat "$tmp/info.nopsb" >>"$tmp/log"; bad "a stream without a PSB (exit $rc)"; }

# 8. A forged index (count + 2^60, checksum-free layout rewritten, as an
# editor would) is not trusted; nor is one written under another key.
fresh forged
"$PTREC" info "$tmp/forged" >/dev/null 2>&1
python3 "$here/forgeidx.py" "$tmp/forged/index/$tid.idx"
same forged && ok "index cache: a forged index is rebuilt, not trusted" ||
	bad "index cache: forged index trusted"
fresh otherkey
XDG_CACHE_HOME="$tmp/cache2" "$PTREC" info "$tmp/otherkey" >/dev/null 2>&1
cp "$tmp/otherkey/index/$tid.idx" "$tmp/idx.k2"
same otherkey && ! cmp -s "$tmp/otherkey/index/$tid.idx" "$tmp/idx.k2" &&
	ok "index cache: an index signed with another user's key is rebuilt (and re-signed)" ||
	bad "index cache: another key's index"
# 8a. The MAC is the standard HMAC-SHA256 of every byte before it under the
# key file (Python's hmac module as the independent truth): an index
# written by a build with another HMAC library still verifies.
python3 -c '
import hmac, hashlib, sys
key = open(sys.argv[1], "rb").read()
idx = open(sys.argv[2], "rb").read()
want = hmac.new(key, idx[:-32], hashlib.sha256).digest()
sys.exit(0 if len(key) == 32 and idx[-32:] == want else 1)
' "$XDG_CACHE_HOME/ptrec/index-key" "$tmp/otherkey/index/$tid.idx" &&
	ok "index cache: the MAC is HMAC-SHA256 under the key file" ||
	bad "index cache: the MAC is not HMAC-SHA256 under the key file"

# 8b. The key must be the user's alone: readable by others (so anyone
# could sign) or a symlink, it is not used and nothing is cached.
fresh badkey
mkdir -p "$tmp/cache3/ptrec"
head -c 32 /dev/urandom >"$tmp/cache3/ptrec/index-key"
chmod 644 "$tmp/cache3/ptrec/index-key"
XDG_CACHE_HOME="$tmp/cache3" "$PTREC" info "$tmp/badkey" >/dev/null 2>&1
rc1=$?
[ -e "$tmp/badkey/index" ] && ls "$tmp/badkey/index" | grep -q . && rc1=x
mkdir -p "$tmp/cache4/ptrec"
ln -s "$tmp/cache/ptrec/index-key" "$tmp/cache4/ptrec/index-key"
XDG_CACHE_HOME="$tmp/cache4" "$PTREC" info "$tmp/badkey" >/dev/null 2>&1
rc2=$?
[ -e "$tmp/badkey/index" ] && ls "$tmp/badkey/index" | grep -q . && rc2=x
[ "$rc1$rc2" = 00 ] &&
	ok "index cache: a key others can read, or a symlinked key, is not used (nothing cached)" ||
	bad "index cache: bad key used ($rc1 $rc2)"

# 9. insns --source: DWARF naming a FIFO or /dev/zero as source file.
cat >"$tmp/src.c" <<EOF
#line 5 "$tmp/srcfifo"
int main(void) { return 0; }
int f2(void);
EOF
mkfifo "$tmp/srcfifo"
if cc -g -O0 -o "$tmp/srcprog" "$tmp/src.c" 2>"$tmp/log"; then
	"$PTREC" record -q -o "$tmp/srcb" -- "$tmp/srcprog" >/dev/null 2>&1
	$T "$PTREC" insns "$tmp/srcb" --source >"$tmp/src.out" 2>"$tmp/log"
	rc=$?
	[ $rc = 0 ] && grep -q "srcfifo:5" "$tmp/src.out" &&
		ok "insns --source: a FIFO named as source is not opened (exit $rc)" ||
		bad "insns --source: FIFO source (exit $rc)"
fi
sed -i "s|#line 5 \"$tmp/srcfifo\"|#line 1000000 \"/dev/zero\"|" "$tmp/src.c"
if cc -g -O0 -o "$tmp/srcprog2" "$tmp/src.c" 2>"$tmp/log"; then
	"$PTREC" record -q -o "$tmp/srcb2" -- "$tmp/srcprog2" >/dev/null 2>&1
	$T "$PTREC" insns "$tmp/srcb2" --source >"$tmp/src.out" 2>"$tmp/log"
	rc=$?
	[ $rc = 0 ] && grep -q "/dev/zero:1000000" "$tmp/src.out" &&
		ok "insns --source: /dev/zero named as source is not read (exit $rc)" ||
		bad "insns --source: /dev/zero source (exit $rc)"
fi

tap_end hostile
