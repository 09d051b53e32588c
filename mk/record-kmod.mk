# ptrec record's backend choice (cli/record.c, record/kmod.c): the CLI
# tests record tests/programs/tiny through --backend=auto, which falls back
# to the software recorder where /dev/ptrec is missing.
cli-test: $(PROG_DIR)/tiny
cli-test: export PTREC_TINY := $(CURDIR)/$(PROG_DIR)/tiny
# ... and tests/programs/segv: ptrec record says the program died of SIGSEGV.
cli-test: $(PROG_DIR)/segv
cli-test: export PTREC_SEGV := $(CURDIR)/$(PROG_DIR)/segv
# ... and exits with the program's status (tests/programs/exec without an
# argument fails).
cli-test: $(PROG_DIR)/exec
cli-test: export PTREC_EXEC := $(CURDIR)/$(PROG_DIR)/exec

# kmodfeed: a software-recorder bundle through the kmod recorder's stream
# handling (rec_kmod_split); e2e checks both bundles replay the same.
KMODFEED := $(BUILD)/tests/tools/kmodfeed
$(KMODFEED): tests/tools/kmodfeed.c $(REC_LIB) $(PTK_LIB) $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< \
		$(REC_LIB) $(PTK_LIB) $(SB_LIB) $(LIBS_RECORD) $(LIBS_SIDEBAND)
e2e: $(KMODFEED)
e2e: export KMODFEED := $(CURDIR)/$(KMODFEED)

# fakeptrec.so: an LD_PRELOAD /dev/ptrec that fails as told, for the CLI
# tests of ptrec record's errors.  Built without sanitizers even in
# build-asan (the test lets ASan accept the preload).
FAKEPTREC := $(BUILD)/tests/tools/fakeptrec.so
$(FAKEPTREC): tests/tools/fakeptrec.c kmod/uapi/ptrec.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) -std=gnu11 $(WARN) $(CFLAGS) -shared -fPIC \
		-o $@ $< -ldl
cli-test: $(FAKEPTREC)
cli-test: export FAKEPTREC := $(CURDIR)/$(FAKEPTREC)
gdb-test: $(KMODFEED)
gdb-test: export KMODFEED := $(CURDIR)/$(KMODFEED)
