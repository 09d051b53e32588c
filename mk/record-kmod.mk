# ptrec record's backend choice (record/cli.c, record/kmod.c): the CLI
# tests record tests/programs/tiny through --backend=auto, which falls back
# to the software recorder where /dev/ptrec is missing.
cli-test: $(PROG_DIR)/tiny
cli-test: export PTREC_TINY := $(CURDIR)/$(PROG_DIR)/tiny
