# GDB integration (gdb-plugin/, tests/gdb/): test programs and the GDB
# latency benchmark.  The gdb-test rule itself is in the Makefile.

# Line stepping against the line table: -O0 so every statement has its
# own code, not PIE so run-time addresses are the file's (the test maps
# ground-truth addresses with objdump's line table and nm).
GDB_LINES := $(BUILD)/tests/gdb/lines
$(GDB_LINES): tests/gdb/lines.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -no-pie -fno-pie -o $@ $<

gdb-test: $(GDB_LINES) $(TRUTHDUMP)
