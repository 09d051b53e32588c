#!/bin/sh
# make dkms-test: kmod/dkms.conf works.  dkms adds the staged source and
# builds it for the cloud kernel (the headers the QEMU suite uses), in
# private source and dkms trees, so nothing is installed; the module it
# builds must be ptrec.ko for that kernel with the module's parameters.
#
#   dkms-test.sh DIR VERSION KERNEL_HEADERS_DIR
set -u
dir=$1 ver=$2 kdir=$3
kver=${kdir##*/linux-headers-}
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() {
	n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"
	sed 's/^/#   /' "$dir/log" | tail -30
}
dk() { dkms --sourcetree "$dir/src" --dkmstree "$dir/tree" "$@"; }
# dkms signs what it builds, making a key where none is configured: keep
# that key here too, not in /var/lib/dkms
export mok_signing_key="$dir/mok.key" mok_certificate="$dir/mok.pub"

if dk add -m ptrec -v "$ver" >"$dir/log" 2>&1; then
	ok "dkms add takes the staged source (dkms.conf version $ver)"
else
	bad "dkms add takes the staged source"
fi
if dk build -m ptrec -v "$ver" -k "$kver" --kernelsourcedir "$kdir" \
	>"$dir/log" 2>&1; then
	ok "dkms build builds ptrec.ko for $kver"
else
	bad "dkms build builds ptrec.ko for $kver"
fi
ko=$(find "$dir/tree/ptrec/$ver/$kver" -name 'ptrec.ko*' 2>/dev/null | head -1)
if [ -n "$ko" ] && modinfo "$ko" >"$dir/log" 2>&1 &&
	grep -q "^vermagic: *$kver " "$dir/log" &&
	grep -q '^parm: *sim:' "$dir/log" &&
	grep -q '^parm: *max_buf_size:' "$dir/log"; then
	ok "the DKMS module is ptrec.ko for $kver with its parameters"
else
	bad "the DKMS module is ptrec.ko for $kver with its parameters ($ko)"
fi
# signed with dkms's key (what Secure Boot needs enrolled)
if grep -q '^signer: *DKMS module signing key' "$dir/log"; then
	ok "dkms signed the module with its key (README: enroll it for Secure Boot)"
else
	bad "dkms signed the module with its key"
fi
# a kernel older than 6.1 is excluded by BUILD_EXCLUSIVE_KERNEL
if dk build -m ptrec -v "$ver" -k 5.10.0-99-amd64 \
	--kernelsourcedir "$kdir" >"$dir/log" 2>&1; then
	bad "dkms refuses kernels older than 6.1"
elif grep -q 'BUILD_EXCLUSIVE directive which does not match' "$dir/log"; then
	ok "dkms refuses kernels older than 6.1 (BUILD_EXCLUSIVE_KERNEL)"
else
	bad "dkms refuses kernels older than 6.1 (BUILD_EXCLUSIVE_KERNEL)"
fi
echo "1..$n"
[ "$fails" -eq 0 ]
