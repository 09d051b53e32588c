# ptrec import: real hardware traces, image arguments, bad input.
.PHONY: import-test
import-test: $(PTREC) $(PTCHECK)
	PTREC=$(CURDIR)/$(PTREC) PTCHECK=$(CURDIR)/$(PTCHECK) \
		sh tests/import/run.sh

CHECK_EXTRA += import-test

# make bench: import + info against a plain libipt loop on the real trace.
.PHONY: import-bench
import-bench: $(PTREC) $(PTCHECK)
	./scripts/bench-import $(BUILD)

BENCH_EXTRA += import-bench
