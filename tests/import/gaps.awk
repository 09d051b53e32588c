# ptrec insns' default listing -> each decode gap's position (the
# instructions before it), trace offset and libipt's message, one
# "N OFFSET TEXT" per line, as tests/bench/iptraw writes the plain loop's
# errors (onepsb.sh and damaged.sh compare the two).
/^[0-9]+\t/ { n = $1 }
/^\[(decode error|no code) .* trace offset [0-9]+, [0-9]+ bytes: / {
	o = $0; sub(/.* trace offset /, "", o); sub(/,.*/, "", o)
	m = $0; sub(/.* bytes: /, "", m); sub(/\]$/, "", m)
	print n + 0, o, m
}
