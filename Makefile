# ptrec: one top-level, non-recursive Makefile.
#
#   make            build every user-space program and library
#   make check      run every test suite that exists (see README)
#   make test       install dependencies, build, run every test
#   make asan       unit tests under AddressSanitizer + UBSan
#   make fuzz       libFuzzer harnesses, FUZZ_SECONDS each
#   make demo       the main job, as far as it exists
#   make install    PREFIX=/usr/local DESTDIR=

VERSION := 0.1.0
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
FUZZ_SECONDS ?= 60
# A fixed seed and run count make every fuzz run the same inputs, so CI
# sees what was tested here; about 30 s each on these machines.  The time
# above is only an upper bound.
FUZZ_RUNS_READER ?= 600000
FUZZ_RUNS_MANIFEST ?= 60000
FUZZ_RUNS_REPLAY ?= 10000

CC ?= gcc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes \
	-Wstrict-prototypes -Wformat=2 -Wno-format-nonliteral
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(EXTRA_CFLAGS)
ALL_CPPFLAGS := -D_GNU_SOURCE -DPTREC_VERSION='"$(VERSION)"' -Isideband -Irecord \
	-Ireplay -Ikmod -Icli -Iimport -Iptkit -Igdb/server \
	$(CPPFLAGS)
LIBS_SIDEBAND := -ljansson -ldw -lelf

SB_SRCS := $(wildcard sideband/*.c)
SB_OBJS := $(SB_SRCS:%.c=$(BUILD)/%.o)
SB_LIB := $(BUILD)/libptrec-sideband.a

# ptkit/: the small PT library shared by record/, import/, replay/ and
# tools/ptgen (encoder, instruction classification).
PTK_SRCS := $(wildcard ptkit/*.c)
PTK_OBJS := $(PTK_SRCS:%.c=$(BUILD)/%.o)
PTK_LIB := $(BUILD)/libptkit.a
LIBS_PTKIT := -lipt -lcapstone

REC_SRCS := $(wildcard record/*.c)
REC_OBJS := $(REC_SRCS:%.c=$(BUILD)/%.o)
LIBS_RECORD := -lipt -lcapstone

RP_SRCS := replay/session.c replay/aspace.c replay/walk.c replay/cursor.c \
	replay/symbols.c replay/syms.c replay/calls.c replay/disasm.c \
	replay/format.c replay/idxcache.c
RP_OBJS := $(RP_SRCS:%.c=$(BUILD)/%.o)
LIBS_REPLAY := -lipt -ldw -lelf -lopcodes -lbfd

GDB_SRCS := $(wildcard gdb/server/*.c)
GDB_OBJS := $(GDB_SRCS:%.c=$(BUILD)/%.o)
PTREC_SERVER := $(BUILD)/ptrec-server

IMP_SRCS := $(wildcard import/*.c)
IMP_OBJS := $(IMP_SRCS:%.c=$(BUILD)/%.o)

CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
PTREC := $(BUILD)/ptrec

UNIT_SRCS := $(wildcard tests/unit/*/test_*.c)
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)

FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)

.PHONY: all check test unit fuzz asan demo install clean deps cli-test bench e2e install-check gdb-test
all: $(PTREC) $(PTREC_SERVER)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(SB_LIB): $(SB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(PTK_LIB): $(PTK_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(PTREC): $(CLI_OBJS) $(REC_OBJS) $(RP_OBJS) $(IMP_OBJS) $(PTK_LIB) $(SB_LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJS) $(REC_OBJS) $(RP_OBJS) \
		$(IMP_OBJS) \
		$(PTK_LIB) $(SB_LIB) $(LIBS_RECORD) $(LIBS_REPLAY) $(LIBS_SIDEBAND)

$(PTREC_SERVER): $(GDB_OBJS) $(RP_OBJS) $(SB_LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS_REPLAY) $(LIBS_SIDEBAND)

# record/ tests see its private headers and link its objects.
REC_LIB_OBJS := $(REC_OBJS)
$(BUILD)/tests/unit/record/%: tests/unit/record/%.c $(REC_LIB_OBJS) \
		$(PTK_LIB) $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< \
		$(REC_LIB_OBJS) $(PTK_LIB) $(SB_LIB) $(LIBS_RECORD) \
		$(LIBS_SIDEBAND) -lcriterion

$(BUILD)/tests/unit/ptkit/%: tests/unit/ptkit/%.c $(PTK_LIB) $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< \
		$(PTK_LIB) $(SB_LIB) $(LIBS_PTKIT) $(LIBS_SIDEBAND) -lcriterion

# test_disasm links the one module it tests; it runs gcc, gdb and objcopy.
$(BUILD)/tests/unit/replay/test_disasm: tests/unit/replay/test_disasm.c \
		$(BUILD)/replay/disasm.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< \
		$(BUILD)/replay/disasm.o -lopcodes -lbfd -lelf -lcriterion

# test_symbols links the one module it tests and reads ELF fixtures that
# fixtures/build.sh compiles with gcc (never sanitized); it runs binutils
# and gdb.
RP_SYMFIX := $(BUILD)/tests/unit/replay/fixtures
$(RP_SYMFIX)/.stamp: tests/unit/replay/fixtures/build.sh \
		tests/unit/replay/fixtures/symfix.c \
		tests/unit/replay/fixtures/symfixlib.c
	tests/unit/replay/fixtures/build.sh $(RP_SYMFIX)
	@touch $@
$(BUILD)/tests/unit/replay/test_symbols: tests/unit/replay/test_symbols.c \
		$(BUILD)/replay/symbols.o $(RP_SYMFIX)/.stamp
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit \
		-DRP_FIXTURES='"$(CURDIR)/$(RP_SYMFIX)"' -DRP_SRCDIR='"$(CURDIR)"' \
		$(LDFLAGS) -o $@ $< $(BUILD)/replay/symbols.o -ldw -lelf -lcriterion

$(BUILD)/tests/unit/%: tests/unit/%.c $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< \
		$(SB_LIB) $(LIBS_SIDEBAND) -lcriterion

# ---- tests ---------------------------------------------------------------

MKBUNDLE := $(BUILD)/tests/tools/mkbundle
$(MKBUNDLE): tests/tools/mkbundle.c $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(SB_LIB) \
		$(LIBS_SIDEBAND)

unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do \
		echo "== $$t"; PTREC_SRCDIR=$(CURDIR) $$t --jobs 2; done

cli-test: $(PTREC) $(MKBUNDLE)
	PTREC=$(CURDIR)/$(PTREC) MKBUNDLE=$(CURDIR)/$(MKBUNDLE) tests/cli/run.sh

# ---- end to end: record real programs, decode with libipt, compare -------

PROG_DIR := $(BUILD)/tests/programs
PROGS := loops indirect plt signal jmp segv exec fork spin
PROG_BINS := $(PROGS:%=$(PROG_DIR)/%) $(PROG_DIR)/threads $(PROG_DIR)/pipe \
	$(PROG_DIR)/dl $(PROG_DIR)/loops-static $(PROG_DIR)/spin_static \
	$(PROG_DIR)/libdla.so $(PROG_DIR)/libdlb.so $(PROG_DIR)/tiny
PROG_CFLAGS := -O1 -g -fno-omit-frame-pointer

$(PROG_DIR)/%: tests/programs/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $<
$(PROG_DIR)/threads $(PROG_DIR)/pipe: $(PROG_DIR)/%: tests/programs/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -pthread -o $@ $<
$(PROG_DIR)/dl: tests/programs/dl.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< -ldl
$(PROG_DIR)/libdl%.so: tests/programs/dl_%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -shared -fPIC -o $@ $<
# Static and non-PIE: runtime addresses are link-time addresses, so GDB can
# disassemble the file itself to compare with ptrec insns.
$(PROG_DIR)/loops-static: tests/programs/loops.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -static -no-pie -o $@ $<
$(PROG_DIR)/spin_static: tests/programs/spin_static.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -static -nostdlib -fno-stack-protector -o $@ $<
$(PROG_DIR)/tiny: tests/programs/tiny.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -static -nostdlib -fno-stack-protector -o $@ $<

# The demo program (README): no optimization, so every line steps.
$(BUILD)/examples/demo: examples/demo.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -pthread -o $@ $<

PTCHECK := $(BUILD)/tests/e2e/ptcheck
$(PTCHECK): tests/e2e/ptcheck.c $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(SB_LIB) \
		-lipt $(LIBS_SIDEBAND)

TRUTHDUMP := $(BUILD)/tests/tools/truthdump
$(TRUTHDUMP): tests/tools/truthdump.c $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(SB_LIB) \
		$(LIBS_SIDEBAND)

# Checks libptrec's cursors; links the engine and the recorder's classifier.
RP_LIB_OBJS := $(RP_OBJS)
CURSORCHECK := $(BUILD)/tests/e2e/cursorcheck
$(CURSORCHECK): tests/e2e/cursorcheck.c $(RP_LIB_OBJS) $(PTK_LIB) $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(RP_LIB_OBJS) \
		$(PTK_LIB) $(SB_LIB) $(LIBS_PTKIT) $(LIBS_REPLAY) \
		$(LIBS_SIDEBAND)

e2e: $(PTREC) $(PTCHECK) $(TRUTHDUMP) $(CURSORCHECK) $(PROG_BINS)
	PTREC=$(CURDIR)/$(PTREC) PTCHECK=$(CURDIR)/$(PTCHECK) \
		TRUTHDUMP=$(CURDIR)/$(TRUTHDUMP) \
		CURSORCHECK=$(CURDIR)/$(CURSORCHECK) \
		PROGS=$(CURDIR)/$(PROG_DIR) tests/e2e/run.sh

# The real GDB against ptrec-server.
gdb-test: $(PTREC) $(PTREC_SERVER) $(PROG_BINS) $(BUILD)/examples/demo
	PTREC=$(CURDIR)/$(PTREC) PTREC_SERVER=$(CURDIR)/$(PTREC_SERVER) \
		PROGS=$(CURDIR)/$(PROG_DIR) DEMO=$(CURDIR)/$(BUILD)/examples/demo \
		GDB_LINES=$(CURDIR)/$(BUILD)/tests/gdb/lines \
		GDB_RECURSE=$(CURDIR)/$(BUILD)/tests/gdb/recurse \
		TRUTHDUMP=$(CURDIR)/$(TRUTHDUMP) tests/gdb/run.sh

# libFuzzer needs clang; harnesses link the library sources directly so the
# whole reader is instrumented.  mkseeds writes each harness's seeds with the
# library's own writers; crash inputs land in $(BUILD)/fuzz/NAME-crash-*, and
# -timeout keeps a hanging input from outliving FUZZ_SECONDS by much.
FUZZ_CC ?= clang
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined
$(BUILD)/fuzz/%: tests/fuzz/%.c $(SB_SRCS) $(wildcard sideband/*.h) \
		sideband/uapi/ptrec_sideband.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ALL_CPPFLAGS) -std=gnu11 $(WARN) $(FUZZ_FLAGS) -o $@ $< \
		$(SB_SRCS) $(LIBS_SIDEBAND)

# The replay harness decodes fuzz input against a real recorded bundle.
RP_LIB_SRCS := $(RP_SRCS)
$(BUILD)/fuzz/fuzz_replay: tests/fuzz/fuzz_replay.c $(SB_SRCS) $(RP_LIB_SRCS) \
		$(wildcard replay/*.h sideband/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ALL_CPPFLAGS) -std=gnu11 $(WARN) $(FUZZ_FLAGS) -o $@ $< \
		$(SB_SRCS) $(RP_LIB_SRCS) $(LIBS_REPLAY) $(LIBS_SIDEBAND)
FUZZ_BUNDLE := $(BUILD)/fuzz/replay-bundle
# Without address randomization and with the counter clock, the bundle, and
# so every fuzz run, is the same on every machine with the same toolchain.
$(FUZZ_BUNDLE)/manifest.json: $(PTREC) $(PROG_DIR)/loops
	rm -rf $(FUZZ_BUNDLE)
	setarch x86_64 -R $(PTREC) record -q --counter-clock --psb-period 256 \
		-o $(FUZZ_BUNDLE) -- $(PROG_DIR)/loops

$(BUILD)/fuzz/mkseeds: tests/fuzz/mkseeds.c $(SB_LIB) sideband/sideband.h \
		sideband/uapi/ptrec_sideband.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(SB_LIB) $(LIBS_SIDEBAND)

fuzz: $(FUZZ_BINS) $(BUILD)/fuzz/mkseeds $(FUZZ_BUNDLE)/manifest.json
	@set -e; export PTREC_FUZZ_BUNDLE=$(CURDIR)/$(FUZZ_BUNDLE); \
	for f in $(FUZZ_BINS); do \
		n=$$(basename $$f); c=$(BUILD)/fuzz/corpus/$$n; \
		rm -rf $$c; mkdir -p $$c; $(BUILD)/fuzz/mkseeds $$n $$c; \
		r=tests/fuzz/regressions/$$n; if [ -d $$r ]; then \
			echo "== $$n: replaying $$r"; \
			$$f $$r/* >$(BUILD)/fuzz/$$n.replay.log 2>&1 || \
			{ tail -40 $(BUILD)/fuzz/$$n.replay.log; exit 1; }; fi; \
		echo "== $$n ($(FUZZ_SECONDS) s)"; \
		runs=$$(case $$n in fuzz_replay) echo $(FUZZ_RUNS_REPLAY);; \
			fuzz_manifest) echo $(FUZZ_RUNS_MANIFEST);; \
			*) echo $(FUZZ_RUNS_READER);; esac); \
		$$f -seed=1 -runs=$$runs -max_total_time=$(FUZZ_SECONDS) \
			-max_len=65536 \
			-timeout=10 -artifact_prefix=$(BUILD)/fuzz/$$n- \
			-print_final_stats=1 -close_fd_mask=1 $$c \
			2>$(BUILD)/fuzz/$$n.log || \
			{ tail -40 $(BUILD)/fuzz/$$n.log; exit 1; }; \
		grep -E 'stat::number_of_executed_units|Done' \
			$(BUILD)/fuzz/$$n.log || true; \
	done

# ---- benchmarks: ratios against a baseline measured in the same run ------

$(BUILD)/tests/bench/steploop: tests/bench/steploop.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $<

$(BUILD)/tests/bench/workload: tests/bench/workload.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -static -o $@ $<

BENCH_REPLAY := $(BUILD)/tests/bench/bench_replay
$(BENCH_REPLAY): tests/bench/bench_replay.c tests/bench/iptloop.c \
		tests/bench/iptloop.h $(RP_LIB_OBJS) $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< \
		tests/bench/iptloop.c $(RP_LIB_OBJS) \
		$(SB_LIB) $(LIBS_REPLAY) $(LIBS_SIDEBAND)

IPTRAW := $(BUILD)/tests/bench/iptraw
$(IPTRAW): tests/bench/iptraw.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< -lipt

# Larger areas (the kernel module, importers, scale tools) keep their rules
# in mk/*.mk, included here; each adds its suites to CHECK_EXTRA and its
# benchmarks to BENCH_EXTRA.
CHECK_EXTRA :=
BENCH_EXTRA :=
include $(sort $(wildcard mk/*.mk))

bench: all $(BUILD)/tests/bench/steploop $(BUILD)/tests/bench/workload \
		$(BENCH_REPLAY) $(IPTRAW) $(BENCH_EXTRA)
	./scripts/bench-record $(BUILD)
	./scripts/bench-replay $(BUILD)
	./scripts/bench-real $(BUILD)

# Unit tests again, built with AddressSanitizer and UBSan.
asan:
	$(MAKE) BUILD=build-asan \
		EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined" unit cli-test e2e import-test

check: all unit cli-test e2e gdb-test $(CHECK_EXTRA) install-check asan fuzz
	@echo "make check: all suites passed"

deps:
	./scripts/install-deps

test: deps
	$(MAKE) check

demo: all $(PTCHECK) $(PROG_DIR)/loops $(BUILD)/examples/demo
	./scripts/demo $(BUILD)

# ---- install -------------------------------------------------------------

BINDIR := $(PREFIX)/bin
DOCDIR := $(PREFIX)/share/doc/ptrec
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DOCDIR)
	install -m 755 $(PTREC) $(DESTDIR)$(BINDIR)/ptrec
	install -m 755 $(PTREC_SERVER) $(DESTDIR)$(BINDIR)/ptrec-server
	install -d $(DESTDIR)$(PREFIX)/share/ptrec
	install -m 644 gdb/plugin/ptrec.py $(DESTDIR)$(PREFIX)/share/ptrec/
	install -m 644 README.md LICENSE docs/*.md $(DESTDIR)$(DOCDIR)/

# make install honours PREFIX and DESTDIR, and the installed ptrec runs.
install-check: all
	rm -rf $(BUILD)/install-test
	$(MAKE) -s install DESTDIR=$(CURDIR)/$(BUILD)/install-test PREFIX=/usr
	$(BUILD)/install-test/usr/bin/ptrec version
	test -f $(BUILD)/install-test/usr/share/doc/ptrec/bundle-format.md

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD) build-asan -name '*.d' 2>/dev/null)
