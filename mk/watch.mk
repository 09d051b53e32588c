# Watchpoints in both directions (issue #18, docs/gdb.md "Watchpoints").
#   make gdb-watch-test  the real GDB's watch/rwatch/awatch on recorded
#                        programs, every stop against the ground truth
#   make watch-bench     the reverse watchpoint scan against a plain
#                        libipt instruction loop (part of make bench)

# The ground truth's writers of some bytes (the recorder's registers).
WATCHTRUTH := $(BUILD)/tests/gdb/watchtruth
$(WATCHTRUTH): tests/gdb/watchtruth.c tests/gdb/watchtruth_check.c \
		tests/gdb/watchtruth_isa.c tests/gdb/watchtruth.h \
		tests/tools/truthalign.c tests/tools/truthalign.h $(RP_LIB) \
		$(PTK_LIB) $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/tools $(LDFLAGS) -o $@ \
		$(filter %.c,$^) $(LINK_REPLAY)

# -z now: no lazy binding, whose resolver hides the arguments of read(2)
# from the recovery engine (docs/values.md).
GDB_WATCH := $(BUILD)/tests/gdb/watch
$(GDB_WATCH): tests/gdb/watch.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -no-pie -fno-pie -pthread -Wl,-z,now -o $@ $<

GDB_WATCHVAL := $(BUILD)/tests/gdb/watchval
$(GDB_WATCHVAL): tests/gdb/watchval.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -no-pie -fno-pie -o $@ $<

GDB_WATCHBITS := $(BUILD)/tests/gdb/watchbits
$(GDB_WATCHBITS): tests/gdb/watchbits.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -no-pie -fno-pie -o $@ $<

GDB_WATCHALT := $(BUILD)/tests/gdb/watchalt
$(GDB_WATCHALT): tests/gdb/watchalt.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -no-pie -fno-pie -o $@ $<

# Code generated into an anonymous mapping: a gap in the replay.
GDB_WATCHJIT := $(BUILD)/tests/gdb/watchjit
$(GDB_WATCHJIT): tests/gdb/watchjit.S
	@mkdir -p $(dir $@)
	$(CC) -nostdlib -static -no-pie -o $@ $<

GDB_WATCHSMC := $(BUILD)/tests/gdb/watchsmc
$(GDB_WATCHSMC): tests/gdb/watchsmc.S
	@mkdir -p $(dir $@)
	$(CC) -nostdlib -static -no-pie -o $@ $< 2>/dev/null || \
		$(CC) -nostdlib -static -no-pie -o $@ $<

GDB_WATCHEXIT := $(BUILD)/tests/gdb/watchexit
$(GDB_WATCHEXIT): tests/gdb/watchexit.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -no-pie -fno-pie -pthread -Wl,-z,now -o $@ $<

# Signal frames and the rseq area: the kernel's writes between two
# instructions (watch_kern.c); -O1: handlers with no stack store.
GDB_WATCHKERN := $(BUILD)/tests/gdb/watchkern
$(GDB_WATCHKERN): tests/gdb/watchkern.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -no-pie -fno-pie -Wall -Werror -Wl,-z,now -o $@ $<

# A thread that exits holding a robust mutex: the kernel marks it.
GDB_WATCHROBUST := $(BUILD)/tests/gdb/watchrobust
$(GDB_WATCHROBUST): tests/gdb/watchrobust.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -no-pie -fno-pie -pthread -Wl,-z,now -o $@ $<

# A raw clone(2) thread's robust list of two entries the kernel leaves.
GDB_WATCHRLIST := $(BUILD)/tests/gdb/watchrlist
$(GDB_WATCHRLIST): tests/gdb/watchrlist.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -no-pie -fno-pie -Wl,-z,now -o $@ $<

# Threads made by raw clone(2) whose exits clear known ctid words.
GDB_WATCHCTID := $(BUILD)/tests/gdb/watchctid
$(GDB_WATCHCTID): tests/gdb/watchctid.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -no-pie -fno-pie -Wl,-z,now -o $@ $<

# A process made by clone(CLONE_VM | CLONE_CHILD_CLEARTID | SIGCHLD)
# that writes main's watched word (gdb/server/target_watch.c).
GDB_WATCHVM := $(BUILD)/tests/gdb/watchvm
$(GDB_WATCHVM): tests/gdb/watchvm.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -no-pie -fno-pie -Wl,-z,now -o $@ $<

# A stream with TSX aborts and a commit (no TSX or PT here).
MKTSX := $(BUILD)/tests/tools/mktsx
$(MKTSX): tests/tools/mktsx.c tests/tools/pkbuild.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -lipt

# A stream whose system call returns into a signal handler (no PT here).
MKSIG := $(BUILD)/tests/tools/mksig
$(MKSIG): tests/tools/mksig.c tests/tools/pkbuild.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -lipt

# Stack switches (a heap stack, makecontext, alloca) for watchtruth --check;
# -z now: no lazy binding resolver between them and the end.
GDB_WATCHCTX := $(BUILD)/tests/gdb/watchctx
$(GDB_WATCHCTX): tests/gdb/watchctx.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -no-pie -fno-pie -Wl,-z,now -o $@ $<

# review3's probes of watch_dep.c: bases shown through branches, the
# stack, memory, xmm, setcc, cmov and returns, far from the end.
GDB_WATCHDEP := $(BUILD)/tests/gdb/watchdep
$(GDB_WATCHDEP): tests/gdb/watchdep.S
	@mkdir -p $(dir $@)
	$(CC) -nostdlib -static -no-pie -o $@ $<

gdb-watch-test: $(PTREC) $(PTREC_SERVER) $(GDB_WATCH) $(GDB_WATCHVAL) \
		$(GDB_WATCHDEP) $(GDB_WATCHBITS) $(GDB_WATCHALT) $(GDB_WATCHCTX) $(WATCHTRUTH) \
		$(GDB_WATCHJIT) $(GDB_WATCHEXIT) $(GDB_WATCHCTID) $(GDB_WATCHROBUST) $(GDB_WATCHRLIST) \
		$(GDB_WATCHSMC) $(GDB_WATCHVM) $(MKTSX) $(PROG_BINS) \
		$(BUILD)/examples/demo $(BUILD)/tests/bench/libloop \
		$(GDB_WATCHKERN)
	PTREC=$(CURDIR)/$(PTREC) VMPROG=$(CURDIR)/$(GDB_WATCHVM) \
		WATCHTRUTH=$(CURDIR)/$(WATCHTRUTH) tests/gdb/watchvm.sh
	PTREC=$(CURDIR)/$(PTREC) MKTSX=$(CURDIR)/$(MKTSX) \
		WATCHTRUTH=$(CURDIR)/$(WATCHTRUTH) tests/gdb/watchtsx.sh
	PTREC=$(CURDIR)/$(PTREC) KERNPROG=$(CURDIR)/$(GDB_WATCHKERN) \
		tests/gdb/watchkern.sh
	PTREC=$(CURDIR)/$(PTREC) JITPROG=$(CURDIR)/$(GDB_WATCHJIT) \
		EXITPROG=$(CURDIR)/$(GDB_WATCHEXIT) \
		CTIDPROG=$(CURDIR)/$(GDB_WATCHCTID) \
		ROBUSTPROG=$(CURDIR)/$(GDB_WATCHROBUST) \
		RLISTPROG=$(CURDIR)/$(GDB_WATCHRLIST) \
		SMCPROG=$(CURDIR)/$(GDB_WATCHSMC) \
		WATCHTRUTH=$(CURDIR)/$(WATCHTRUTH) tests/gdb/watchgap.sh
	PTREC=$(CURDIR)/$(PTREC) PROG=$(CURDIR)/$(GDB_WATCH) \
		PROGS=$(CURDIR)/$(PROG_DIR) BITSPROG=$(CURDIR)/$(GDB_WATCHBITS) \
		ALTPROG=$(CURDIR)/$(GDB_WATCHALT) \
		CTXPROG=$(CURDIR)/$(GDB_WATCHCTX) \
		VALPROG=$(CURDIR)/$(GDB_WATCHVAL) \
		DEMO=$(CURDIR)/$(BUILD)/examples/demo \
		DEPPROG=$(CURDIR)/$(GDB_WATCHDEP) \
		LIBPROG=$(CURDIR)/$(BUILD)/tests/bench/libloop \
		WATCHTRUTH=$(CURDIR)/$(WATCHTRUTH) tests/gdb/watch.sh

.PHONY: gdb-watch-test
CHECK_EXTRA += gdb-watch-test

BENCH_WATCH := $(BUILD)/tests/bench/bench_watch
$(BENCH_WATCH): tests/bench/bench_watch.c $(IPTLOOP_SRCS) \
		$(RP_LIB) $(PTK_LIB) $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< \
		$(filter %.c,$(IPTLOOP_SRCS)) $(LINK_REPLAY)

# The benchmark's library-heavy program (scripts/bench-watch); -z now:
# no lazy binding in the first call recorded.
$(BUILD)/tests/bench/libloop: tests/bench/libloop.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -Wl,-z,now -o $@ $<

.PHONY: watch-bench
watch-bench: $(PTREC) $(BENCH_WATCH) $(BUILD)/tests/bench/gdbloop \
		$(PROG_DIR)/loops $(BUILD)/tests/bench/libloop
	./scripts/bench-watch $(BUILD)

BENCH_EXTRA += watch-bench

# The watch module's unit test reads a recording of tests/gdb/watchval;
# the address of its variables comes from the program's symbols (not PIE).
WATCH_BUNDLE := $(BUILD)/tests/unit/replay/watch-bundle
$(WATCH_BUNDLE)/manifest.json: $(PTREC) $(GDB_WATCHVAL)
	rm -rf $(WATCH_BUNDLE) && mkdir -p $(dir $(WATCH_BUNDLE))
	$(PTREC) record -q -o $(WATCH_BUNDLE) -- $(GDB_WATCHVAL) >/dev/null
$(BUILD)/tests/unit/replay/test_watch: tests/unit/replay/test_watch.c \
		$(RP_LIB) $(PTK_LIB) $(SB_LIB) $(WATCH_BUNDLE)/manifest.json
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit \
		-DWATCH_BUNDLE='"$(abspath $(WATCH_BUNDLE))"' \
		-DWATCH_TOTAL=0x$$(nm $(GDB_WATCHVAL) | awk '$$3 == "total" { print $$1 }') \
		-DWATCH_STEP=0x$$(nm $(GDB_WATCHVAL) | awk '$$3 == "step" { print $$1 }') \
		$(LDFLAGS) -o $@ $< $(LINK_REPLAY) -lcriterion

# The kernel's writes between two instructions (replay/watch_kern.c): a
# recording of tests/gdb/watchkern (not PIE: its symbols' addresses).
KERN_BUNDLE := $(BUILD)/tests/unit/replay/kern-bundle
$(KERN_BUNDLE)/manifest.json: $(PTREC) $(GDB_WATCHKERN)
	rm -rf $(KERN_BUNDLE) && mkdir -p $(dir $(KERN_BUNDLE))
	$(PTREC) record -q -o $(KERN_BUNDLE) -- $(GDB_WATCHKERN) >/dev/null
KERN_SYM = -DKERN_$(1)=0x$$(nm $(GDB_WATCHKERN) | \
	awk '$$3 == "$(2)" { print $$1 }')ull
SIG_BUNDLE := $(BUILD)/tests/unit/replay/sig-bundle
$(SIG_BUNDLE)/manifest.json: $(PTREC) $(MKSIG)
	rm -rf $(SIG_BUNDLE) $(SIG_BUNDLE)-src && mkdir -p $(SIG_BUNDLE)-src
	$(MKSIG) $(abspath $(SIG_BUNDLE))-src
	$(PTREC) import raw -o $(SIG_BUNDLE) --pt $(SIG_BUNDLE)-src/pt.bin \
		--images $(SIG_BUNDLE)-src/list >/dev/null
$(BUILD)/tests/unit/replay/test_watch_kern: \
		tests/unit/replay/test_watch_kern.c \
		$(RP_LIB) $(PTK_LIB) $(SB_LIB) $(KERN_BUNDLE)/manifest.json \
		$(SIG_BUNDLE)/manifest.json
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit \
		-DKERN_BUNDLE='"$(abspath $(KERN_BUNDLE))"' \
		-DSIG_BUNDLE='"$(abspath $(SIG_BUNDLE))"' \
		$(call KERN_SYM,H_ALT,h_alt) $(call KERN_SYM,H_NORM,h_norm) \
		$(call KERN_SYM,SI_ALT,si_alt) \
		$(call KERN_SYM,SI_NORM,si_norm) \
		$(call KERN_SYM,RSEQ_CPU,rseq_cpu) \
		$(call KERN_SYM,H_SEGV,h_segv) \
		$(call KERN_SYM,REP_DST,rep_dst) \
		$(LDFLAGS) -o $@ $< $(LINK_REPLAY) -lcriterion

# The partial rep at a history's end (replay/watch_rep.c): recordings of
# tests/gdb/watchrep, forwards and (with an argument) backwards; both
# end in SIGSEGV, which ptrec record reports by its status.
GDB_WATCHREP := $(BUILD)/tests/gdb/watchrep
$(GDB_WATCHREP): tests/gdb/watchrep.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -no-pie -fno-pie -o $@ $<
REP_BUNDLE := $(BUILD)/tests/unit/replay/rep-bundle
REPB_BUNDLE := $(BUILD)/tests/unit/replay/repb-bundle
REPA_BUNDLE := $(BUILD)/tests/unit/replay/repa-bundle
$(REP_BUNDLE)/manifest.json: $(PTREC) $(GDB_WATCHREP)
	rm -rf $(REP_BUNDLE) && mkdir -p $(dir $(REP_BUNDLE))
	$(PTREC) record -q -o $(REP_BUNDLE) -- $(GDB_WATCHREP) \
		>/dev/null 2>&1 || test -f $@
$(REPB_BUNDLE)/manifest.json: $(PTREC) $(GDB_WATCHREP)
	rm -rf $(REPB_BUNDLE) && mkdir -p $(dir $(REPB_BUNDLE))
	$(PTREC) record -q -o $(REPB_BUNDLE) -- $(GDB_WATCHREP) back \
		>/dev/null 2>&1 || test -f $@
$(REPA_BUNDLE)/manifest.json: $(PTREC) $(GDB_WATCHREP)
	rm -rf $(REPA_BUNDLE) && mkdir -p $(dir $(REPA_BUNDLE))
	$(PTREC) record -q -o $(REPA_BUNDLE) -- $(GDB_WATCHREP) a32 \
		>/dev/null 2>&1 || test -f $@
$(BUILD)/tests/unit/replay/test_watch_rep: tests/unit/replay/test_watch_rep.c \
		$(RP_LIB) $(PTK_LIB) $(SB_LIB) $(REP_BUNDLE)/manifest.json \
		$(REPB_BUNDLE)/manifest.json $(REPA_BUNDLE)/manifest.json
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit \
		-DREP_BUNDLE='"$(abspath $(REP_BUNDLE))"' \
		-DREPB_BUNDLE='"$(abspath $(REPB_BUNDLE))"' \
		-DREPA_BUNDLE='"$(abspath $(REPA_BUNDLE))"' \
		-DREP_AREA3=0x$$(nm $(GDB_WATCHREP) | awk '$$3 == "area3" { print $$1 }')ull \
		-DREP_AREA=0x$$(nm $(GDB_WATCHREP) | awk '$$3 == "area" { print $$1 }')ull \
		-DREP_AREA2=0x$$(nm $(GDB_WATCHREP) | awk '$$3 == "area2" { print $$1 }')ull \
		$(LDFLAGS) -o $@ $< $(LINK_REPLAY) -lcriterion

# The chain of proofs that lets a scan pass windows without the engine,
# on it too and on 20,000 instructions of tests/bench/gdbloop's loop.
LOOP_BUNDLE := $(BUILD)/tests/unit/replay/loop-bundle
$(LOOP_BUNDLE)/manifest.json: $(PTREC) $(BUILD)/tests/bench/gdbloop
	rm -rf $(LOOP_BUNDLE) && mkdir -p $(dir $(LOOP_BUNDLE))
	$(PTREC) record -q --start-at step --max-insns 20000 \
		-o $(LOOP_BUNDLE) -- $(BUILD)/tests/bench/gdbloop >/dev/null
# And on tests/gdb/watchquiet: a loop of quiet instructions that stores
# through an address the engine computes and the proofs do not follow
# (watch_chain.c's quiet windows must leave that store to the engine).
GDB_WATCHQUIET := $(BUILD)/tests/gdb/watchquiet
$(GDB_WATCHQUIET): tests/gdb/watchquiet.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -static -no-pie -o $@ $<
QUIET_BUNDLE := $(BUILD)/tests/unit/replay/quiet-bundle
$(QUIET_BUNDLE)/manifest.json: $(PTREC) $(GDB_WATCHQUIET)
	rm -rf $(QUIET_BUNDLE) && mkdir -p $(dir $(QUIET_BUNDLE))
	$(PTREC) record -q --start-at put --max-insns 20000 \
		-o $(QUIET_BUNDLE) -- $(GDB_WATCHQUIET) >/dev/null
# And on tests/programs/loops, a real program: conditional branches,
# calls through the PLT, printf and its system calls.
REAL_BUNDLE := $(BUILD)/tests/unit/replay/real-bundle
$(REAL_BUNDLE)/manifest.json: $(PTREC) $(PROG_DIR)/loops
	rm -rf $(REAL_BUNDLE) && mkdir -p $(dir $(REAL_BUNDLE))
	$(PTREC) record -q -o $(REAL_BUNDLE) -- $(PROG_DIR)/loops >/dev/null
# And on tests/bench/libloop, a library-heavy one (EVEX string functions,
# rep stos, write(2)), 12 calls of work().
LIB_BUNDLE := $(BUILD)/tests/unit/replay/lib-bundle
$(LIB_BUNDLE)/manifest.json: $(PTREC) $(BUILD)/tests/bench/libloop
	rm -rf $(LIB_BUNDLE) && mkdir -p $(dir $(LIB_BUNDLE))
	$(PTREC) record -q -o $(LIB_BUNDLE) -- $(BUILD)/tests/bench/libloop \
		12 >/dev/null
# And on tests/gdb/watchdep: its callee's bounded load (watch_fix.c), which
# the engine knows.
DEP_BUNDLE := $(BUILD)/tests/unit/replay/dep-bundle
$(DEP_BUNDLE)/manifest.json: $(PTREC) $(GDB_WATCHDEP)
	rm -rf $(DEP_BUNDLE) && mkdir -p $(dir $(DEP_BUNDLE))
	$(PTREC) record -q -o $(DEP_BUNDLE) -- $(GDB_WATCHDEP) >/dev/null
# And on tests/values/unsound.c @anchor: a getpid() every 6 instructions,
# whose records' facts may fall on the start ramp's last state.
ANCHOR_BUNDLE := $(BUILD)/tests/unit/replay/anchor-bundle
$(ANCHOR_BUNDLE)/manifest.json: $(PTREC) $(UNSOUND)
	rm -rf $(ANCHOR_BUNDLE) && mkdir -p $(dir $(ANCHOR_BUNDLE))
	$(PTREC) record -q -o $(ANCHOR_BUNDLE) -- $(UNSOUND) @anchor >/dev/null
$(BUILD)/tests/unit/replay/test_watch_chain: \
		tests/unit/replay/test_watch_chain.c \
		$(RP_LIB) $(PTK_LIB) $(SB_LIB) $(WATCH_BUNDLE)/manifest.json \
		$(LOOP_BUNDLE)/manifest.json $(QUIET_BUNDLE)/manifest.json \
		$(REAL_BUNDLE)/manifest.json $(LIB_BUNDLE)/manifest.json \
		$(DEP_BUNDLE)/manifest.json $(ANCHOR_BUNDLE)/manifest.json
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit \
		-DWATCH_BUNDLE='"$(abspath $(WATCH_BUNDLE))"' \
		-DLOOP_BUNDLE='"$(abspath $(LOOP_BUNDLE))"' \
		-DQUIET_BUNDLE='"$(abspath $(QUIET_BUNDLE))"' \
		-DREAL_BUNDLE='"$(abspath $(REAL_BUNDLE))"' \
		-DLIB_BUNDLE='"$(abspath $(LIB_BUNDLE))"' \
		-DDEP_BUNDLE='"$(abspath $(DEP_BUNDLE))"' \
		-DANCHOR_BUNDLE='"$(abspath $(ANCHOR_BUNDLE))"' \
		-DDEP_TBL=0x$$(nm $(GDB_WATCHDEP) | awk '$$3 == "tbl" { print $$1 }') \
		-DQUIET_VAR=0x$$(nm $(GDB_WATCHQUIET) | awk '$$3 == "var" { print $$1 }') \
		-DQUIET_SINK=0x$$(nm $(GDB_WATCHQUIET) | awk '$$3 == "sink" { print $$1 }') \
		-DLOOP_SINK=0x$$(nm $(BUILD)/tests/bench/gdbloop | awk '$$3 == "sink" { print $$1 }') \
		-DWATCH_TOTAL=0x$$(nm $(GDB_WATCHVAL) | awk '$$3 == "total" { print $$1 }') \
		-DWATCH_STEP=0x$$(nm $(GDB_WATCHVAL) | awk '$$3 == "step" { print $$1 }') \
		$(LDFLAGS) -o $@ $< $(LINK_REPLAY) -lcriterion

# The server's watchpoint packets and stop replies on the same recording,
# and on one of tests/gdb/watchvm vfork (another process that shares
# main's memory).
VM_BUNDLE := $(BUILD)/tests/unit/gdb/vm-bundle
$(VM_BUNDLE)/manifest.json: $(PTREC) $(GDB_WATCHVM)
	rm -rf $(VM_BUNDLE) && mkdir -p $(dir $(VM_BUNDLE))
	$(PTREC) record -q -o $(VM_BUNDLE) -- $(GDB_WATCHVM) vfork >/dev/null
$(BUILD)/tests/unit/gdb/test_server_watch: tests/unit/gdb/test_server_watch.c \
		$(SRV_TEST_OBJS) $(RP_LIB) $(PTK_LIB) $(SB_LIB) \
		$(WATCH_BUNDLE)/manifest.json $(VM_BUNDLE)/manifest.json
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit \
		-DWATCH_BUNDLE='"$(abspath $(WATCH_BUNDLE))"' \
		-DVM_BUNDLE='"$(abspath $(VM_BUNDLE))"' \
		-DVM_WORD=0x$$(nm $(GDB_WATCHVM) | awk '$$3 == "word" { print $$1 }') \
		-DWATCH_TOTAL=0x$$(nm $(GDB_WATCHVAL) | awk '$$3 == "total" { print $$1 }') \
		-DWATCH_STEP=0x$$(nm $(GDB_WATCHVAL) | awk '$$3 == "step" { print $$1 }') \
		$(LDFLAGS) -o $@ $< $(SRV_TEST_OBJS) $(LINK_REPLAY) -lcriterion
