#!/bin/sh
# fetch-kernel.sh OUTDIR: unpack into OUTDIR the Debian cloud kernel image
# whose version matches the installed linux-headers-cloud-amd64, so the
# module built against those headers loads in it.  The kernel is only
# unpacked (apt-get download + dpkg-deb -x), never installed on the host.
# Prints the kernel release (e.g. 6.1.0-56-cloud-amd64); with --kver only
# prints it.
set -eu
out=$1
dep=$(dpkg-query -W -f='${Depends}' linux-headers-cloud-amd64 2>/dev/null) || {
	echo "fetch-kernel: linux-headers-cloud-amd64 is not installed;" \
		"run scripts/install-deps" >&2
	exit 1
}
# "linux-headers-6.1.0-56-cloud-amd64 (= 6.1.192-2)"
kver=$(echo "$dep" | sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
pver=$(echo "$dep" | sed -n 's/^[^(]*(= \([^)]*\)).*/\1/p')
if [ -z "$kver" ] || [ -z "$pver" ]; then
	echo "fetch-kernel: cannot parse '$dep'" >&2
	exit 1
fi
if [ "$out" = --kver ]; then
	echo "$kver"
	exit 0
fi
if [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$kver $pver" ]; then
	echo "$kver"
	exit 0
fi
rm -rf "$out"
mkdir -p "$out"
dl=$(mktemp -d)
trap 'rm -rf "$dl"' EXIT
pkg="linux-image-$kver"
if ! (cd "$dl" && apt-get download -q "$pkg=$pver") >"$dl/log" 2>&1; then
	cat "$dl/log" >&2
	echo "fetch-kernel: cannot download $pkg=$pver (the headers'" \
		"version); run 'apt-get update' and scripts/install-deps" >&2
	exit 1
fi
dpkg-deb -x "$dl"/*.deb "$out"
test -f "$out/boot/vmlinuz-$kver"
echo "$kver $pver" >"$out/.stamp"
echo "$kver"
