# The end-state snapshot (issue #16): `make snapshot-test` records real
# programs, writes `ptrec core` and compares GDB on it with GDB on gcore's
# file of the same state (tests/snapshot/run.sh).
SNAP_PROG_DIR := $(BUILD)/tests/snapshot
SNAP_PROGS := crash mtcrash mtspin threxec manythr abort exit spin forkexit bigheap busy sigloop avx avx512 spawn
SNAP_PROG_BINS := $(SNAP_PROGS:%=$(SNAP_PROG_DIR)/%)

$(SNAP_PROG_DIR)/%: tests/snapshot/%.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -pthread -o $@ $<

# the kmod suite's rseq program (#17), here dynamically linked
$(SNAP_PROG_DIR)/kqrseq: tests/kmod/guest/kqrseq.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -pthread -o $@ $<

.PHONY: snapshot-test
snapshot-test: $(PTREC) $(PTREC_SERVER) $(SNAP_PROG_BINS) $(FAKEPTREC) \
		$(SNAP_PROG_DIR)/kqrseq \
		$(PROG_DIR)/exec $(PROG_DIR)/tiny $(PROG_DIR)/faithful
	PTREC=$(CURDIR)/$(PTREC) PTREC_SERVER=$(CURDIR)/$(PTREC_SERVER) \
		SNAP_PROGS=$(CURDIR)/$(SNAP_PROG_DIR) \
		PROGS=$(CURDIR)/$(PROG_DIR) \
		FAKEPTREC=$(CURDIR)/$(FAKEPTREC) tests/snapshot/run.sh

CHECK_EXTRA += snapshot-test

# make bench: the snapshot of a 100 MB heap against its resident size and
# against gcore in the same run (scripts/bench-snapshot).
.PHONY: bench-snapshot
bench-snapshot: $(PTREC) $(SNAP_PROG_DIR)/bigheap
	./scripts/bench-snapshot $(BUILD)
BENCH_EXTRA += bench-snapshot

# make bench: what the kmod recorder's ptrace stops cost a program taking
# 10,000 signals, against the same program untraced in the same run, with
# the load average (scripts/bench-sigcost).
.PHONY: bench-sigcost
bench-sigcost: $(PTREC) $(SNAP_PROG_DIR)/sigloop $(FAKEPTREC)
	./scripts/bench-sigcost $(BUILD)
BENCH_EXTRA += bench-sigcost
