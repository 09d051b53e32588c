# GDB integration (gdb/, tests/gdb/): test programs and the GDB
# latency benchmark.  The gdb-test rule itself is in the Makefile.

# Line stepping against the line table: -O0 so every statement has its
# own code, not PIE so run-time addresses are the file's (the test maps
# ground-truth addresses with objdump's line table and nm).
GDB_LINES := $(BUILD)/tests/gdb/lines
$(GDB_LINES): tests/gdb/lines.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -no-pie -fno-pie -o $@ $<

GDB_RECURSE := $(BUILD)/tests/gdb/recurse
$(GDB_RECURSE): tests/gdb/recurse.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -no-pie -fno-pie -o $@ $<

gdb-test: $(GDB_LINES) $(GDB_RECURSE) $(TRUTHDUMP)

# make bench: reverse-step and reverse-finish through GDB at 10^7
# instructions against 10^5 (scripts/bench-gdb).
$(BUILD)/tests/bench/gdbloop: tests/bench/gdbloop.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -static -no-pie -o $@ $<

.PHONY: gdb-bench
gdb-bench: $(PTREC) $(PTREC_SERVER) $(BUILD)/tests/bench/gdbloop
	./scripts/bench-gdb $(BUILD)

BENCH_EXTRA += gdb-bench

# The timeline's unit test reads a recording of tests/programs/threads
# (without address randomization, so it is the same run to run).
TL_BUNDLE := $(BUILD)/tests/unit/replay/threads-bundle
$(TL_BUNDLE)/manifest.json: $(PTREC) $(PROG_DIR)/threads
	rm -rf $(TL_BUNDLE) && mkdir -p $(dir $(TL_BUNDLE))
	setarch x86_64 -R $(PTREC) record -q -o $(TL_BUNDLE) -- \
		$(PROG_DIR)/threads >/dev/null
$(BUILD)/tests/unit/replay/test_timeline: tests/unit/replay/test_timeline.c \
		$(RP_LIB) $(PTK_LIB) $(SB_LIB) $(TL_BUNDLE)/manifest.json
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit \
		-DTL_BUNDLE='"$(abspath $(TL_BUNDLE))"' $(LDFLAGS) -o $@ $< \
		$(LINK_REPLAY) -lcriterion

# The GDB server's framing and request parsing, without a bundle.
$(BUILD)/tests/unit/gdb/test_rsp: tests/unit/gdb/test_rsp.c \
		$(BUILD)/gdb/server/rsp.o $(BUILD)/gdb/server/conn.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< \
		$(BUILD)/gdb/server/rsp.o $(BUILD)/gdb/server/conn.o -lcriterion

# The frame walks' reading of GDB's instruction text (frames_walk.c).
$(BUILD)/tests/unit/gdb/test_frames_walk: tests/unit/gdb/test_frames_walk.c \
		$(BUILD)/gdb/server/frames_walk.o $(RP_LIB) $(PTK_LIB) $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) -Igdb/server $(ALL_CFLAGS) -Itests/unit \
		$(LDFLAGS) -o $@ $< $(BUILD)/gdb/server/frames_walk.o \
		$(LINK_REPLAY) -lcriterion

# make gdb-diff: ptrec replay against GDB's own record full, stop by stop
# (tests/gdb/diff/run.py), on small programs built -O0 and -O2.
GDB_DIFF_DIR := $(BUILD)/tests/gdb/diff
GDB_DIFF_C := inl rec lj sig qs
GDB_DIFF_BINS := $(foreach p,$(GDB_DIFF_C) exc,$(GDB_DIFF_DIR)/$(p)-O0 \
	$(GDB_DIFF_DIR)/$(p)-O2)
$(GDB_DIFF_DIR)/%-O0: tests/gdb/diff/%.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -o $@ $<
$(GDB_DIFF_DIR)/%-O2: tests/gdb/diff/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $<
$(GDB_DIFF_DIR)/%-O0: tests/gdb/diff/%.cc
	@mkdir -p $(dir $@)
	$(CXX) -O0 -g -o $@ $<
$(GDB_DIFF_DIR)/%-O2: tests/gdb/diff/%.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -o $@ $<

.PHONY: gdb-diff
# GDB 13's XSAVE writes completed where AMX makes Linux ask for more
# (tests/tools/xstate_pad.c), for the oracle's GDB only.
XSTATE_PAD := $(BUILD)/tests/tools/xstate_pad.so
$(XSTATE_PAD): tests/tools/xstate_pad.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -shared -fPIC -o $@ $< -ldl

gdb-diff: $(PTREC) $(PTREC_SERVER) $(GDB_DIFF_BINS) $(XSTATE_PAD)
	PTREC=$(CURDIR)/$(PTREC) PTREC_SERVER=$(CURDIR)/$(PTREC_SERVER) \
		XSTATE_PAD=$(CURDIR)/$(XSTATE_PAD) \
		tests/gdb/diff/run.py $(GDB_DIFF_DIR)

CHECK_EXTRA += gdb-diff

# The whole server on a crafted bundle of 6,000 threads (issue #15).
MANY_BUNDLE := $(BUILD)/tests/unit/gdb/many-bundle
$(MANY_BUNDLE)/manifest.json: $(PTREC) $(PROG_DIR)/tiny \
		tests/gdb/manythreads.py
	rm -rf $(MANY_BUNDLE) $(MANY_BUNDLE)-src
	mkdir -p $(dir $(MANY_BUNDLE))
	$(PTREC) record -q -o $(MANY_BUNDLE)-src -- $(PROG_DIR)/tiny >/dev/null
	python3 tests/gdb/manythreads.py $(MANY_BUNDLE)-src $(MANY_BUNDLE) 6000
# ... and on loops with libc's path 70,000 bytes long.
LONG_BUNDLE := $(BUILD)/tests/unit/gdb/long-bundle
$(LONG_BUNDLE)/manifest.json: $(PTREC) $(PROG_DIR)/loops tests/gdb/longpath.py
	rm -rf $(LONG_BUNDLE) $(LONG_BUNDLE)-src
	mkdir -p $(dir $(LONG_BUNDLE))
	$(PTREC) record -q -o $(LONG_BUNDLE)-src -- $(PROG_DIR)/loops >/dev/null
	python3 tests/gdb/longpath.py $(LONG_BUNDLE)-src $(LONG_BUNDLE)
SRV_TEST_OBJS := $(filter-out $(BUILD)/gdb/server/main.o,$(GDB_OBJS))
$(BUILD)/tests/unit/gdb/test_server: tests/unit/gdb/test_server.c \
		$(SRV_TEST_OBJS) $(RP_LIB) $(PTK_LIB) $(SB_LIB) \
		$(MANY_BUNDLE)/manifest.json $(LONG_BUNDLE)/manifest.json
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit \
		-DMANY_BUNDLE='"$(abspath $(MANY_BUNDLE))"' \
		-DLONG_BUNDLE='"$(abspath $(LONG_BUNDLE))"' $(LDFLAGS) -o $@ $< \
		$(SRV_TEST_OBJS) $(LINK_REPLAY) -lcriterion

# fork, then exec in the child: two inferiors in GDB (multiprocess).
GDB_FORKEXEC := $(BUILD)/tests/gdb/forkexec
$(GDB_FORKEXEC): tests/gdb/forkexec.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -o $@ $<

gdb-test: $(GDB_FORKEXEC)

# A crash in code inlined into its caller, at -O2 (the plugin's test).
GDB_INLCRASH := $(BUILD)/tests/gdb/inlcrash
$(GDB_INLCRASH): tests/gdb/inlcrash.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $<

# The plugin's own tests (tests/gdb/plugin.sh), apart from the server's.
.PHONY: gdb-plugin-test
gdb-plugin-test: $(PTREC) $(PTREC_SERVER) $(GDB_DIFF_BINS) \
		$(PROG_DIR)/threads $(PROG_DIR)/loops $(PROG_DIR)/exec \
		$(PROG_DIR)/tiny $(GDB_INLCRASH)
	PTREC=$(CURDIR)/$(PTREC) PTREC_SERVER=$(CURDIR)/$(PTREC_SERVER) \
		DIFF_BINS=$(CURDIR)/$(GDB_DIFF_DIR) \
		INLCRASH=$(CURDIR)/$(GDB_INLCRASH) \
		PROGS=$(CURDIR)/$(PROG_DIR) tests/gdb/plugin.sh

CHECK_EXTRA += gdb-plugin-test

# replay/cursor.c's memory of stretches with no signal return
# (test_cursor_quiet): gdbloop from step()'s entry to a later call of it,
# repeated 6 times (tests/bench/repeat_bundle.py), ~600,000 instructions.
CQUIET_BUNDLE := $(BUILD)/tests/unit/replay/cursor-quiet-bundle
$(CQUIET_BUNDLE)/manifest.json: $(PTREC) $(BUILD)/tests/bench/gdbloop \
		tests/bench/repeat_bundle.py
	rm -rf $(CQUIET_BUNDLE) $(CQUIET_BUNDLE)-1 $(CQUIET_BUNDLE)-p
	$(PTREC) record -q --start-at step --max-insns 100000 \
		-o $(CQUIET_BUNDLE)-p -- $(BUILD)/tests/bench/gdbloop >/dev/null
	n=$$($(PTREC) insns $(CQUIET_BUNDLE)-p | grep 'call .*<step>' | \
		tail -1 | cut -f1) && \
	$(PTREC) record -q --start-at step --max-insns "$$n" \
		--psb-period 256 -o $(CQUIET_BUNDLE)-1 -- \
		$(BUILD)/tests/bench/gdbloop >/dev/null
	python3 tests/bench/repeat_bundle.py $(CQUIET_BUNDLE)-1 $(CQUIET_BUNDLE) 6
	rm -rf $(CQUIET_BUNDLE)-1 $(CQUIET_BUNDLE)-p
$(BUILD)/tests/unit/replay/test_cursor_quiet: \
		tests/unit/replay/test_cursor_quiet.c $(RP_LIB) $(PTK_LIB) \
		$(SB_LIB) $(CQUIET_BUNDLE)/manifest.json
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit \
		-DCQUIET_BUNDLE='"$(abspath $(CQUIET_BUNDLE))"' \
		$(LDFLAGS) -o $@ $< $(LINK_REPLAY) -lcriterion
