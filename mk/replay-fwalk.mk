# The block-cache flow walker (replay/fwalk.c) against libipt and the
# ground truth: recorded programs and synthetic streams (tests/fwalk),
# its length decoder against capstone (ildcheck).  Named to come after
# import.mk, whose stream generators it uses.
ILDCHECK := $(BUILD)/tests/tools/ildcheck
$(ILDCHECK): tests/tools/ildcheck.c $(RAWPT_SRCS) $(RP_LIB) $(PTK_LIB) \
		$(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< \
		$(filter %.c,$(RAWPT_SRCS)) $(LINK_REPLAY)

.PHONY: fwalk-test
fwalk-test: $(PTREC) $(FWRAW) $(TRUTHDUMP) $(MKEVENTS) $(MKRETCOMP) \
		$(ILDCHECK) $(PROG_BINS)
	FWRAW=$(CURDIR)/$(FWRAW) PTREC=$(CURDIR)/$(PTREC) \
		TRUTHDUMP=$(CURDIR)/$(TRUTHDUMP) PROGS=$(CURDIR)/$(PROG_DIR) \
		MKEVENTS=$(CURDIR)/$(MKEVENTS) MKRETCOMP=$(CURDIR)/$(MKRETCOMP) \
		ILDCHECK=$(CURDIR)/$(ILDCHECK) sh tests/fwalk/run.sh

CHECK_EXTRA += fwalk-test

# The walker against pt_insn and pt_blk loops: Ir and speed, as ratios.
.PHONY: fwalk-bench
fwalk-bench: $(FWRAW)
	scripts/bench-fwalk $(BUILD)

BENCH_EXTRA += fwalk-bench
