# ptrec import: real hardware traces, image arguments, bad input.
.PHONY: import-test
import-test: $(PTREC) $(PTCHECK)
	PTREC=$(CURDIR)/$(PTREC) PTCHECK=$(CURDIR)/$(PTCHECK) \
		sh tests/import/run.sh

CHECK_EXTRA += import-test
