# Synthetic traces at scale (issue #7, docs/scale.md): tools/ptgen writes
# bundles of generated programs with a compact ground truth.
#
#   make scale-test   generated bundles decoded by libptrec against the
#                     generator's ground truth (part of make check)
#   make scale-bench  10^6..SCALE_MAX instructions (make bench)

PTGEN := $(BUILD)/tools/ptgen/ptgen
$(PTGEN): tools/ptgen/ptgen.c tools/ptgen/ptgen_prog.c tools/ptgen/ptgen.h \
		tools/ptgen/truth.h $(PTK_LIB) $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itools/ptgen $(LDFLAGS) -o $@ \
		$(filter %.c,$^) $(PTK_LIB) $(SB_LIB) -lipt $(LIBS_SIDEBAND)

SCALECHECK := $(BUILD)/tests/scale/scalecheck
$(SCALECHECK): tests/scale/scalecheck.c tools/ptgen/truth.h $(RP_LIB) \
		$(PTK_LIB) $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itools/ptgen $(LDFLAGS) -o $@ $< \
		$(LINK_REPLAY)

.PHONY: scale-test
scale-test: $(PTGEN) $(SCALECHECK) $(PTREC)
	PTGEN=$(CURDIR)/$(PTGEN) SCALECHECK=$(CURDIR)/$(SCALECHECK) \
		PTREC=$(CURDIR)/$(PTREC) tests/scale/run.sh

CHECK_EXTRA += scale-test

# make bench: sizes 10^6, 10^7, 10^8; SCALE_MAX=1e9 adds 10^9 (160 MB of
# trace, several minutes in all).  The same moves through GDB on the sizes
# up to SCALE_GDB_MAX.  Bundles go to $(BUILD)/scale-bench.
SCALE_MAX ?= 1e8
SCALE_GDB_MAX ?= 1e6
BENCH_SCALE := $(BUILD)/tests/bench/bench_scale
$(BENCH_SCALE): tests/bench/bench_scale.c $(IPTLOOP_SRCS) \
		tools/ptgen/truth.h $(RP_LIB) $(PTK_LIB) $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itools/ptgen $(LDFLAGS) -o $@ $< \
		$(filter %.c,$(IPTLOOP_SRCS)) $(LINK_REPLAY)

.PHONY: scale-bench
scale-bench: $(PTGEN) $(BENCH_SCALE)
	./scripts/bench-scale $(BUILD) $(SCALE_MAX) $(SCALE_GDB_MAX)

BENCH_EXTRA += scale-bench
