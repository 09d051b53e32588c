# (After import.mk, whose stream generators it uses.)
# The block-cache flow walker (replay/fwalk.c) against libipt and the
# ground truth: recorded programs and synthetic streams (tests/fwalk).
.PHONY: fwalk-test
fwalk-test: $(PTREC) $(FWRAW) $(TRUTHDUMP) $(MKEVENTS) $(MKRETCOMP) \
		$(PROG_BINS)
	FWRAW=$(CURDIR)/$(FWRAW) PTREC=$(CURDIR)/$(PTREC) \
		TRUTHDUMP=$(CURDIR)/$(TRUTHDUMP) PROGS=$(CURDIR)/$(PROG_DIR) \
		MKEVENTS=$(CURDIR)/$(MKEVENTS) MKRETCOMP=$(CURDIR)/$(MKRETCOMP) \
		sh tests/fwalk/run.sh

CHECK_EXTRA += fwalk-test

# The walker against pt_insn and pt_blk loops: Ir and speed, as ratios.
.PHONY: fwalk-bench
fwalk-bench: $(FWRAW)
	scripts/bench-fwalk $(BUILD)

BENCH_EXTRA += fwalk-bench
