#!/bin/sh
# sysregs-check.sh DUMP LOG: ptrec.ko's system call REGS records
# (kmod/ptrec_sysregs.c) in `ptrec dump`'s output DUMP of a bundle
# `ptrec record --backend=kmod` wrote of kqsys, against what kqsys logged
# in LOG (tests/kmod/guest/kqsys.c says what each line means).  Prints
# TAP lines without numbers (host-checks.sh relays them).
set -u
dump=$1
log=$2

if [ ! -s "$dump" ] || [ ! -s "$log" ]; then
	echo "not ok - sysregs: the kqsys bundle's dump and kqsys's log exist"
	exit 0
fi
awk -v logf="$log" '
function hex(s,   v, i, c) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
function res(good, desc) {
	printf "%s - sysregs: %s\n", good ? "ok" : "not ok", desc
}
BEGIN {
	while ((getline l < logf) > 0) {
		n = split(l, f, " ")
		if (f[1] == "entry") entry = hex(f[2])
		if (f[1] == "getpid") { gn = f[2]; gip = hex(f[3]); pid = f[4] }
		if (f[1] == "write") {
			wip = hex(f[2]); w[1] = f[3]; w[2] = f[4]; w[3] = f[5]
		}
		if (f[1] == "int80") iip = hex(f[2])
		if (f[1] == "read") {
			rip_r = hex(f[2]); rn = f[3]; rdur = f[4]
		}
		if (f[1] == "tgkill") { tip = hex(f[2]); tph = f[4] }
		if (f[1] == "marked") { mip = hex(f[2]); mrsp = tolower(f[3]) }
	}
	ng = nw = ni = nr = nt = ne = nm = mbad = nall = shape = 0
	gbad = wbad = rbad = tbad = 0
	tsig = -1
}
# TIME REGS pid P tid T syscall rax X rcx X r11 X rip X
$2 == "REGS" && $6 == pid && $7 == "syscall" {
	for (i = 8; i < NF; i += 2)
		r[$i] = $(i + 1)
	ip = hex(r["rip"])
	nall++
	if (hex(r["rcx"]) != ip || int(hex(r["r11"]) / 2) % 2 != 1)
		shape++
	if (tsig == 0)
		tsig = -2	# a REGS record before the SIGNAL
	if (ip == gip) { ng++; gbad += hex(r["rax"]) != pid }
	if (ip == wip) { nw++; wbad += hex(r["rax"]) != w[nw] }
	if (ip == iip) ni++
	if (ip == rip_r) { nr++; rbad += hex(r["rax"]) != rn }
	if (ip == tip) { nt++; tbad += hex(r["rax"]) != 0; tsig = 0 }
	if (ip == entry) ne++
	if (ip == mip) {
		nm++
		mbad = hex(r["rax"]) != pid || r["rsp"] != mrsp
		split("rbx rdx rsi rdi rbp r8 r9 r10 r12 r13 r14 r15", mr, " ")
		split("1 3 4 5 6 8 9 a c d e f", md, " ")
		for (i = 1; i <= 12; i++) {
			d = md[i]
			mbad += r[mr[i]] != "0x" d d d d d d d d d d d d d d d d
		}
	}
	next
}
$2 == "SIGNAL" && $6 == pid && $8 == 10 && / handled/ && tsig == 0 {
	tsig = 1
}
END {
	res(nall > 0 && !shape, "every system call REGS record of kqsys has " \
	    "rcx = rip and r11 with bit 1 (" nall " records, " shape \
	    " not)")
	res(ng == gn && !gbad, "each of " gn " getpid calls has one record " \
	    "at its return address with rax = the pid " pid " (" ng \
	    " records, " gbad " wrong)")
	res(nw == 3 && !wbad, "3 writes have one record each with rax = " \
	    "the byte count " w[1] ", " w[2] ", " w[3] " in order (" nw \
	    " records, " wbad " wrong)")
	res(ni == 0, "no record after a getpid through int $0x80 that left " \
	    "rcx and r11 as a SYSCALL would (" ni ")")
	res(nr == 1 && !rbad && rdur == 1, "a read restarted after a " \
	    "SA_RESTART handler has one record, with its result " rn \
	    " (none with -ERESTARTSYS; handler during the read: " rdur \
	    "; " nr " records, " rbad " wrong)")
	res(nt == 1 && !tbad && tsig == 1 && tph == 1, "tgkill of itself, " \
	    "its handler at the return address: one record (rax 0, none " \
	    "for the rt_sigreturn back there), then a SIGNAL record (" nt \
	    " records, signal " (tsig == 1 ? "after it" : "missing") \
	    ", handler ran: " tph ")")
	res(ne == 0, "no record of the execve (at AT_ENTRY) (" ne ")")
	res(nm == 1 && !mbad, "a getpid with 12 registers and rsp marked: " \
	    "one record, every general-purpose register as the call left " \
	    "them (" nm " records, " mbad " wrong)")
}' "$dump"
