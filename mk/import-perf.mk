# ptrec import perf: perf.data files written by mkperf around recorded
# bundles (the ground truth), bad input, and perf's own reader when present.
MKPERF := $(BUILD)/tests/tools/mkperf
$(MKPERF): tests/tools/mkperf.c tests/tools/mkperf_pcpu.c \
		tests/tools/mkperf_pevent.c tests/tools/mkperf.h \
		import/perf_format.h $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $(filter %.c,$^) $(SB_LIB) \
		-lipt $(LIBS_SIDEBAND)

.PHONY: import-perf-test
import-perf-test: $(PTREC) $(PTREC_SERVER) $(MKPERF) $(PTCHECK) $(PROG_DIR)/threads \
		$(PROG_DIR)/fork
	PTREC=$(CURDIR)/$(PTREC) MKPERF=$(CURDIR)/$(MKPERF) \
		PTCHECK=$(CURDIR)/$(PTCHECK) PROGS=$(CURDIR)/$(PROG_DIR) \
		sh tests/import/perf.sh

CHECK_EXTRA += import-perf-test

# The perf.data reader under libFuzzer (make fuzz): the importer's parse
# and split steps, with libipt for the PSB scan.  mkseeds runs mkperf.
$(BUILD)/fuzz/fuzz_perf: tests/fuzz/fuzz_perf.c $(FZ_IMP_LIB) $(FZ_PTK_LIB) \
		$(FZ_SB_LIB)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ALL_CPPFLAGS) -std=gnu11 $(WARN) $(FUZZ_FLAGS) -o $@ $< \
		$(FZ_IMP_LIB) $(FZ_PTK_LIB) $(FZ_SB_LIB) $(LIBS_IMPORT) \
		$(LIBS_PTKIT) $(LIBS_SIDEBAND)
fuzz: $(MKPERF)
