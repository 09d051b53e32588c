# ptrec import: real hardware traces, image arguments, bad input.
MKPT32 := $(BUILD)/tests/tools/mkpt32
$(MKPT32): tests/tools/mkpt32.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -lipt

MKEVENTS := $(BUILD)/tests/tools/mkevents
$(MKEVENTS): tests/tools/mkevents.c tests/tools/pkbuild.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -lipt

MKCYCLES := $(BUILD)/tests/tools/mkcycles
$(MKCYCLES): tests/tools/mkcycles.c tests/tools/pkbuild.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -lipt

MKRETCOMP := $(BUILD)/tests/tools/mkretcomp
$(MKRETCOMP): tests/tools/mkretcomp.c tests/tools/pkbuild.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -lipt

CYCDUMP := $(BUILD)/tests/tools/cycdump
$(CYCDUMP): tests/tools/cycdump.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -lipt

.PHONY: import-test
import-test: $(PTREC) $(PTREC_SERVER) $(PTCHECK) $(MKPT32) $(IPTRAW) \
		$(MKEVENTS) $(MKCYCLES) $(CYCDUMP) $(MKRETCOMP) $(TRUTHDUMP) \
		$(BUILD)/tests/bench/workload
	PTREC=$(CURDIR)/$(PTREC) PTCHECK=$(CURDIR)/$(PTCHECK) \
		MKPT32=$(CURDIR)/$(MKPT32) sh tests/import/run.sh
	PTREC=$(CURDIR)/$(PTREC) IPTRAW=$(CURDIR)/$(IPTRAW) \
		sh tests/import/real.sh
	PTREC=$(CURDIR)/$(PTREC) IPTRAW=$(CURDIR)/$(IPTRAW) \
		sh tests/import/damaged.sh
	PTREC=$(CURDIR)/$(PTREC) IPTRAW=$(CURDIR)/$(IPTRAW) \
		MKEVENTS=$(CURDIR)/$(MKEVENTS) sh tests/import/events.sh
	PTREC=$(CURDIR)/$(PTREC) MKCYCLES=$(CURDIR)/$(MKCYCLES) \
		CYCDUMP=$(CURDIR)/$(CYCDUMP) sh tests/import/cycles.sh
	PTREC=$(CURDIR)/$(PTREC) MKRETCOMP=$(CURDIR)/$(MKRETCOMP) \
		sh tests/import/retcomp.sh
	PTREC=$(CURDIR)/$(PTREC) TRUTHDUMP=$(CURDIR)/$(TRUTHDUMP) \
		WORKLOAD=$(CURDIR)/$(BUILD)/tests/bench/workload \
		IPTRAW=$(CURDIR)/$(IPTRAW) sh tests/import/onepsb.sh

CHECK_EXTRA += import-test

# make bench: import + info against a plain libipt loop on the real trace.
.PHONY: import-bench
import-bench: $(PTREC) $(PTCHECK)
	./scripts/bench-import $(BUILD)

BENCH_EXTRA += import-bench
