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
