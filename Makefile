# ptrec: one top-level, non-recursive Makefile.
#
#   make            build every user-space program and library
#   make check      run every test suite that exists (see README)
#   make test       install dependencies, build, run every test (-j2)
#   make asan       unit tests under AddressSanitizer + UBSan
#   make fuzz       libFuzzer harnesses, FUZZ_RUNS_* inputs each
#   make demo       the main job, as far as it exists
#   make install    PREFIX=/usr/local DESTDIR=

# `make` alone builds `all`, whatever rule comes first below (the nettle
# archive's did, so a bare make built that archive only).
.DEFAULT_GOAL := all

VERSION := 0.1.0
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
FUZZ_SECONDS ?= 600
# A fixed seed and run count make every fuzz run the same inputs, so CI
# sees what was tested here; about 30 s each on these machines.  The time
# above is only a bound for a run gone wrong: reached, it would cut the
# campaign short where the machine's speed says (a loaded host did at 60).
FUZZ_RUNS_READER ?= 600000
FUZZ_RUNS_MANIFEST ?= 60000
FUZZ_RUNS_REPLAY ?= 10000
FUZZ_RUNS_SERVER ?= 6000
FUZZ_RUNS_IDXCACHE ?= 8000
FUZZ_RUNS_SNAPSHOT ?= 150000

CC ?= gcc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes \
	-Wstrict-prototypes -Wformat=2 -Wno-format-nonliteral
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(EXTRA_CFLAGS)
# Every component compiles with -I of its own folder and of the folders of
# the components below it only (arrows point down: cli/ and gdb/server/ ->
# replay/, record/, import/ -> ptkit/ -> sideband/), so a header of a
# component above is not even found; scripts/check-layering (make
# layering-check, part of make check) also refuses private headers of
# another component, which share those folders with the public ones.
BASE_CPPFLAGS := -D_GNU_SOURCE -DPTREC_VERSION='"$(VERSION)"' $(CPPFLAGS)
INC_sideband := -Isideband
INC_ptkit := -Iptkit $(INC_sideband)
INC_record := -Irecord $(INC_ptkit) -Ikmod
INC_import := -Iimport $(INC_ptkit)
INC_replay := -Ireplay $(INC_ptkit)
INC_gdb_server := -Igdb/server -Ireplay $(INC_ptkit)
INC_cli := -Icli -Ireplay -Irecord -Iimport $(INC_ptkit) -Ikmod
# Tests and tools see every folder: a unit test includes the private
# header of the module it tests.
ALL_CPPFLAGS := $(BASE_CPPFLAGS) -Isideband -Iptkit -Irecord -Iimport \
	-Ireplay -Ikmod -Igdb/server
LIBS_SIDEBAND := -ljansson -ldw -lelf -lzstd

# One static library per component below the front ends; every program,
# test, tool, fuzzer and bench links the libraries, never object lists.
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
REC_LIB := $(BUILD)/libptrec-record.a
LIBS_RECORD := -lipt -lcapstone

# replay/: libptrec, the replay engine.
RP_SRCS := $(wildcard replay/*.c)
RP_OBJS := $(RP_SRCS:%.c=$(BUILD)/%.o)
RP_LIB := $(BUILD)/libptrec.a
LIBS_REPLAY := -lipt -ldw -lelf -lopcodes -lbfd -lnettle -lcapstone

IMP_SRCS := $(wildcard import/*.c)
IMP_OBJS := $(IMP_SRCS:%.c=$(BUILD)/%.o)
IMP_LIB := $(BUILD)/libptrec-import.a
LIBS_IMPORT := -lipt

# ptrec and ptrec-server load capstone on first use (ptkit/cslazy.c):
# their cs_* calls go to __wrap_cs_*, and libcapstone is not linked.
CS_WRAP := cs_open cs_close cs_option cs_disasm cs_disasm_iter cs_malloc \
	cs_free cs_reg_name cs_regs_access
CS_LAZY = $(foreach f,$(CS_WRAP),-Wl,--wrap=$(f))
# And libopcodes (with libbfd) the same way (replay/opclazy.c), by the
# soname of the libopcodes.so this links against.
OPC_WRAP := disassembler init_disassemble_info disassemble_init_for_target \
	disassemble_free_target
OPC_LAZY = $(foreach f,$(OPC_WRAP),-Wl,--wrap=$(f))
soname = $(shell objdump -p $$($(CC) -print-file-name=lib$(1).so) \
	2>/dev/null | sed -n 's/^ *SONAME *//p')
%/replay/opclazy.o: BASE_CPPFLAGS += \
	-DOPCODES_SONAME='"$(call soname,opcodes)"'
# And zstd and liblzma (ptkit/liblazy.c).
LIB_WRAP := ZSTD_isError ZSTD_getErrorName ZSTD_createCCtx ZSTD_freeCCtx \
	ZSTD_createDCtx ZSTD_freeDCtx ZSTD_CCtx_setParameter \
	ZSTD_compressStream2 ZSTD_CStreamOutSize ZSTD_decompressStream \
	lzma_auto_decoder lzma_code lzma_end
LIB_LAZY = $(foreach f,$(LIB_WRAP),-Wl,--wrap=$(f))
%/ptkit/liblazy.o: BASE_CPPFLAGS += \
	-DZSTD_SONAME='"$(call soname,zstd)"' \
	-DLZMA_SONAME='"$(call soname,lzma)"'
# The libraries most commands use, linked into ptrec and ptrec-server
# from their Debian archives (issue #19): libdw and libelf (with the zlib
# and bzip2 decoders libdw opens compressed files with; xz's, whose
# constructor runs CPUID, is loaded on first use: LIB_WRAP), jansson and
# nettle (the index file's MAC: every first open).  Each shared
# library costs every process start its mapping, symbol binding and page
# faults; these five cost `ptrec --version` 0.2 ms of 1.3 (perf stat on
# this VM; 118 -> 83 page faults) and a first open nettle's dlopen() too.
# Only the objects ptrec calls are linked in (ptrec grows 0.9 MB).  What
# stays shared: libipt (Debian ships no archive) and libc.
# nettle's archive is linked without its one constructor (fat-x86_64.o's
# fat_init(), which runs CPUID at every start, each a VM exit here): its
# dispatched functions start as stubs that call fat_init() on first use,
# which idxcache.c makes before any thread can (pthread_once).
NETTLE_LAZY := $(BUILD)/libnettle-lazy.a
STATIC_LIBS := $(foreach l,dw elf z bz2 jansson,-l:lib$(l).a) $(NETTLE_LAZY)
lazy_libs = $(filter-out -lcapstone -lopcodes -lbfd -lnettle -lzstd -ldw \
	-lelf -ljansson,$(1)) $(STATIC_LIBS) $(CS_LAZY) $(OPC_LAZY) \
	$(LIB_LAZY)

$(NETTLE_LAZY):
	@mkdir -p $(@D)
	rm -rf $@ $@.d && mkdir $@.d
	cd $@.d && $(AR) x "$$($(CC) -print-file-name=libnettle.a)" && \
		for o in fat-*.o; do [ ! -e "$$o" ] || \
		objcopy --remove-section=.init_array "$$o" || exit 1; \
		done && $(AR) rcs ../$(@F) *.o
	rm -rf $@.d

# Old names, kept so rules written before the libraries still link.
RP_LIB_OBJS := $(RP_LIB)
REC_LIB_OBJS := $(REC_LIB)
RP_LIB_SRCS := $(RP_SRCS)

# What a program linking libptrec (and what is below it) adds.
LINK_REPLAY := $(RP_LIB) $(PTK_LIB) $(SB_LIB) $(LIBS_REPLAY) $(LIBS_PTKIT) \
	$(LIBS_SIDEBAND)

GDB_SRCS := $(wildcard gdb/server/*.c)
GDB_OBJS := $(GDB_SRCS:%.c=$(BUILD)/%.o)
PTREC_SERVER := $(BUILD)/ptrec-server

CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
PTREC := $(BUILD)/ptrec

UNIT_SRCS := $(wildcard tests/unit/*/test_*.c)
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)

FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)

.PHONY: all check test unit fuzz asan demo install clean deps cli-test bench e2e install-check gdb-test \
	layering-check values-test
all: $(PTREC) $(PTREC_SERVER)

# Each object gets its component's include path (INC_* above).
$(BUILD)/sideband/%.o: COMP_INC = $(INC_sideband)
$(BUILD)/ptkit/%.o: COMP_INC = $(INC_ptkit)
$(BUILD)/record/%.o: COMP_INC = $(INC_record)
$(BUILD)/import/%.o: COMP_INC = $(INC_import)
$(BUILD)/replay/%.o: COMP_INC = $(INC_replay)
$(BUILD)/gdb/server/%.o: COMP_INC = $(INC_gdb_server)
$(BUILD)/cli/%.o: COMP_INC = $(INC_cli)
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CPPFLAGS) $(COMP_INC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(SB_LIB): $(SB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(PTK_LIB): $(PTK_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(REC_LIB): $(REC_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(IMP_LIB): $(IMP_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(RP_LIB): $(RP_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# The two front ends stay position-independent (ASLR for programs that
# read untrusted bundles): -no-pie saved only ~0.03 ms of CPU a start here
# (its ~2,900 relative relocations; issue #19, docs/performance.md).
FRONT_LDFLAGS :=
$(PTREC): $(CLI_OBJS) $(REC_LIB) $(IMP_LIB) $(RP_LIB) $(PTK_LIB) $(SB_LIB) \
		$(NETTLE_LAZY)
	$(CC) $(ALL_CFLAGS) $(FRONT_LDFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJS) $(REC_LIB) \
		$(IMP_LIB) $(RP_LIB) $(PTK_LIB) $(SB_LIB) \
		$(call lazy_libs,$(LIBS_RECORD) $(LIBS_IMPORT) $(LIBS_REPLAY) \
		$(LIBS_SIDEBAND))

$(PTREC_SERVER): $(GDB_OBJS) $(RP_LIB) $(PTK_LIB) $(SB_LIB) $(NETTLE_LAZY)
	$(CC) $(ALL_CFLAGS) $(FRONT_LDFLAGS) $(LDFLAGS) -o $@ $(GDB_OBJS) \
		$(call lazy_libs,$(LINK_REPLAY))

# Unit tests: tests/unit/<comp>/test_<mod>.c links <comp>'s library and
# those below it; it may include the private header of what it tests.
$(BUILD)/tests/unit/record/%: tests/unit/record/%.c $(REC_LIB) $(PTK_LIB) \
		$(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< \
		$(REC_LIB) $(PTK_LIB) $(SB_LIB) $(LIBS_RECORD) \
		$(LIBS_SIDEBAND) -lcriterion

$(BUILD)/tests/unit/ptkit/%: tests/unit/ptkit/%.c $(PTK_LIB) $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< \
		$(PTK_LIB) $(SB_LIB) $(LIBS_PTKIT) $(LIBS_SIDEBAND) -lcriterion

$(BUILD)/tests/unit/replay/%: tests/unit/replay/%.c $(RP_LIB) $(PTK_LIB) \
		$(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< \
		$(LINK_REPLAY) -lcriterion

$(BUILD)/tests/unit/import/%: tests/unit/import/%.c $(IMP_LIB) $(PTK_LIB) \
		$(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< \
		$(IMP_LIB) $(PTK_LIB) $(SB_LIB) $(LIBS_IMPORT) $(LIBS_PTKIT) \
		-lelf $(LIBS_SIDEBAND) -lcriterion

# cli/'s argument parser, on its own.
$(BUILD)/tests/unit/cli/%: tests/unit/cli/%.c $(BUILD)/cli/cli_args.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) -Icli $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) \
		-o $@ $< $(BUILD)/cli/cli_args.o -lcriterion

# test_symbols, test_sym_elf and test_sym_cfi read ELF fixtures that
# fixtures/build.sh compiles with gcc
# (never sanitized); it runs binutils and gdb.  test_disasm runs gcc, gdb
# and objcopy.
RP_SYMFIX := $(BUILD)/tests/unit/replay/fixtures
$(RP_SYMFIX)/.stamp: tests/unit/replay/fixtures/build.sh \
		tests/unit/replay/fixtures/symfix.c \
		tests/unit/replay/fixtures/symfixlib.c
	tests/unit/replay/fixtures/build.sh $(RP_SYMFIX)
	@touch $@
RP_SYM_TESTS := $(addprefix $(BUILD)/tests/unit/replay/, \
	test_symbols test_sym_elf test_sym_cfi)
$(RP_SYM_TESTS): $(BUILD)/tests/unit/replay/%: tests/unit/replay/%.c \
		tests/unit/replay/symfix.h $(RP_LIB) $(PTK_LIB) $(SB_LIB) \
		$(RP_SYMFIX)/.stamp
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit \
		-DRP_FIXTURES='"$(CURDIR)/$(RP_SYMFIX)"' -DRP_SRCDIR='"$(CURDIR)"' \
		$(LDFLAGS) -o $@ $< $(LINK_REPLAY) -lcriterion

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

# Includes follow the arrows (scripts/check-layering), and the check
# refuses a planted wrong include of each kind.
layering-check:
	scripts/check-layering
	tests/layering/run.sh

cli-test: $(PTREC) $(PTREC_SERVER) $(MKBUNDLE)
	PTREC=$(CURDIR)/$(PTREC) MKBUNDLE=$(CURDIR)/$(MKBUNDLE) tests/cli/run.sh

# ---- end to end: record real programs, decode with libipt, compare -------

PROG_DIR := $(BUILD)/tests/programs
PROGS := loops indirect plt signal jmp segv exec fork spin faithful sysregs \
	tidre
PROG_BINS := $(PROGS:%=$(PROG_DIR)/%) $(PROG_DIR)/threads $(PROG_DIR)/pipe \
	$(PROG_DIR)/dl $(PROG_DIR)/loops-static $(PROG_DIR)/spin_static \
	$(PROG_DIR)/libdla.so $(PROG_DIR)/libdlb.so $(PROG_DIR)/tiny \
	$(PROG_DIR)/ptwrite $(PROG_DIR)/ptwarr
PROG_CFLAGS := -O1 -g -fno-omit-frame-pointer

$(PROG_DIR)/%: tests/programs/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $<
$(PROG_DIR)/tidre: tests/programs/tidre.h	# shared with review13.c
$(PROG_DIR)/threads $(PROG_DIR)/pipe $(PROG_DIR)/faithful: \
		$(PROG_DIR)/%: tests/programs/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -pthread -o $@ $<
$(PROG_DIR)/ptwrite $(PROG_DIR)/ptwarr: $(PROG_DIR)/%: tests/programs/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -mptwrite -o $@ $<
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

# test_export reads a recording of tests/programs/threads with the
# recorder's ground truth (no address randomization: the same run to run).
EXP_BUNDLE := $(BUILD)/tests/unit/replay/export-bundle
$(EXP_BUNDLE)/manifest.json: $(PTREC) $(PROG_DIR)/threads
	rm -rf $(EXP_BUNDLE) && mkdir -p $(dir $(EXP_BUNDLE))
	setarch x86_64 -R $(PTREC) record -q --ground-truth -o $(EXP_BUNDLE) \
		-- $(PROG_DIR)/threads >/dev/null
$(BUILD)/tests/unit/replay/test_export: tests/unit/replay/test_export.c \
		$(RP_LIB) $(PTK_LIB) $(SB_LIB) $(EXP_BUNDLE)/manifest.json
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit \
		-DEXP_BUNDLE='"$(CURDIR)/$(EXP_BUNDLE)"' $(LDFLAGS) -o $@ $< \
		$(LINK_REPLAY) -ljansson -lcriterion

# test_index_noip damages a recording of tests/programs/loops (made as the
# fuzz bundle is: no address randomization, the counter clock).
IDX_BUNDLE := $(BUILD)/tests/unit/replay/loops-bundle
$(IDX_BUNDLE)/manifest.json: $(PTREC) $(PROG_DIR)/loops
	rm -rf $(IDX_BUNDLE) && mkdir -p $(dir $(IDX_BUNDLE))
	setarch x86_64 -R $(PTREC) record -q --counter-clock --psb-period 256 \
		-o $(IDX_BUNDLE) -- $(PROG_DIR)/loops >/dev/null
$(BUILD)/tests/unit/replay/test_index_noip: tests/unit/replay/test_index_noip.c \
		$(RP_LIB) $(PTK_LIB) $(SB_LIB) $(IDX_BUNDLE)/manifest.json
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit \
		-DIDX_BUNDLE='"$(CURDIR)/$(IDX_BUNDLE)"' $(LDFLAGS) -o $@ $< \
		$(LINK_REPLAY) -ljansson -lcriterion

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

# Checks libptrec's cursors; links the engine and ptkit's classifier.
CURSORCHECK := $(BUILD)/tests/e2e/cursorcheck
$(CURSORCHECK): tests/e2e/cursorcheck.c $(RP_LIB) $(PTK_LIB) $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LINK_REPLAY)

e2e: $(PTREC) $(PTREC_SERVER) $(PTCHECK) $(TRUTHDUMP) $(CURSORCHECK) $(PROG_BINS)
	PTREC=$(CURDIR)/$(PTREC) PTCHECK=$(CURDIR)/$(PTCHECK) \
		TRUTHDUMP=$(CURDIR)/$(TRUTHDUMP) \
		CURSORCHECK=$(CURDIR)/$(CURSORCHECK) \
		PROGS=$(CURDIR)/$(PROG_DIR) tests/e2e/run.sh
	PTREC=$(CURDIR)/$(PTREC) PROGS=$(CURDIR)/$(PROG_DIR) tests/e2e/hostile.sh
	PTREC=$(CURDIR)/$(PTREC) PROGS=$(CURDIR)/$(PROG_DIR) \
		TRUTHDUMP=$(CURDIR)/$(TRUTHDUMP) \
		CURSORCHECK=$(CURDIR)/$(CURSORCHECK) tests/e2e/events.sh

# The real GDB against ptrec-server.
gdb-test: $(PTREC) $(PTREC_SERVER) $(PROG_BINS) $(BUILD)/examples/demo
	PTREC=$(CURDIR)/$(PTREC) PTREC_SERVER=$(CURDIR)/$(PTREC_SERVER) \
		PROGS=$(CURDIR)/$(PROG_DIR) DEMO=$(CURDIR)/$(BUILD)/examples/demo \
		GDB_LINES=$(CURDIR)/$(BUILD)/tests/gdb/lines \
		GDB_RECURSE=$(CURDIR)/$(BUILD)/tests/gdb/recurse \
		GDB_FORKEXEC=$(CURDIR)/$(BUILD)/tests/gdb/forkexec \
		TRUTHDUMP=$(CURDIR)/$(TRUTHDUMP) tests/gdb/run.sh
	PTREC=$(CURDIR)/$(PTREC) PTREC_SERVER=$(CURDIR)/$(PTREC_SERVER) \
		PROGS=$(CURDIR)/$(PROG_DIR) tests/gdb/transport.sh
	PTREC=$(CURDIR)/$(PTREC) PTREC_SERVER=$(CURDIR)/$(PTREC_SERVER) \
		tests/gdb/hostio.sh

# libFuzzer needs clang; harnesses link the libraries built again with
# clang and the fuzzer's instrumentation under $(BUILD)/fuzz/lib, so the
# whole reader is instrumented.  mkseeds writes each harness's seeds with
# the library's own writers; crash inputs land in $(BUILD)/fuzz/NAME-crash-*,
# and -timeout keeps a hanging input from outliving FUZZ_SECONDS by much.
FUZZ_CC ?= clang
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined
# The libraries' objects take only the instrumentation, not libFuzzer's main.
FUZZ_OBJ_FLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined
FZ := $(BUILD)/fuzz/lib
$(FZ)/sideband/%.o: COMP_INC = $(INC_sideband)
$(FZ)/ptkit/%.o: COMP_INC = $(INC_ptkit)
$(FZ)/import/%.o: COMP_INC = $(INC_import)
$(FZ)/replay/%.o: COMP_INC = $(INC_replay)
$(FZ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(BASE_CPPFLAGS) $(COMP_INC) -std=gnu11 $(WARN) \
		$(FUZZ_OBJ_FLAGS) -MMD -MP -c -o $@ $<
FZ_SB_LIB := $(FZ)/libptrec-sideband.a
FZ_PTK_LIB := $(FZ)/libptkit.a
FZ_IMP_LIB := $(FZ)/libptrec-import.a
FZ_RP_LIB := $(FZ)/libptrec.a
$(FZ_SB_LIB): $(SB_SRCS:%.c=$(FZ)/%.o)
$(FZ_PTK_LIB): $(PTK_SRCS:%.c=$(FZ)/%.o)
$(FZ_IMP_LIB): $(IMP_SRCS:%.c=$(FZ)/%.o)
$(FZ_RP_LIB): $(RP_SRCS:%.c=$(FZ)/%.o)
$(FZ_SB_LIB) $(FZ_PTK_LIB) $(FZ_IMP_LIB) $(FZ_RP_LIB):
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/fuzz/%: tests/fuzz/%.c $(FZ_SB_LIB)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ALL_CPPFLAGS) -std=gnu11 $(WARN) $(FUZZ_FLAGS) -o $@ $< \
		$(FZ_SB_LIB) $(LIBS_SIDEBAND)

# The replay harness decodes fuzz input against a real recorded bundle.
$(BUILD)/fuzz/fuzz_replay: tests/fuzz/fuzz_replay.c $(FZ_RP_LIB) \
		$(FZ_PTK_LIB) $(FZ_SB_LIB)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ALL_CPPFLAGS) -std=gnu11 $(WARN) $(FUZZ_FLAGS) -o $@ $< \
		$(FZ_RP_LIB) $(FZ_PTK_LIB) $(FZ_SB_LIB) $(LIBS_REPLAY) \
		$(LIBS_PTKIT) $(LIBS_SIDEBAND)
# The server harness serves fuzz input as GDB's packets over the same
# bundle, through everything of ptrec-server but its main().
SRV_LIB_SRCS := $(filter-out gdb/server/main.c,$(GDB_SRCS))
$(FZ)/gdb/server/%.o: COMP_INC = $(INC_gdb_server)
$(BUILD)/fuzz/fuzz_server: tests/fuzz/fuzz_server.c \
		$(SRV_LIB_SRCS:%.c=$(FZ)/%.o) $(FZ_RP_LIB) $(FZ_PTK_LIB) \
		$(FZ_SB_LIB)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ALL_CPPFLAGS) -std=gnu11 $(WARN) $(FUZZ_FLAGS) -o $@ $< \
		$(SRV_LIB_SRCS:%.c=$(FZ)/%.o) $(FZ_RP_LIB) $(FZ_PTK_LIB) \
		$(FZ_SB_LIB) $(LIBS_REPLAY) $(LIBS_PTKIT) $(LIBS_SIDEBAND)

# The index cache harness loads saved indexes into the same bundle's engine.
$(BUILD)/fuzz/fuzz_idxcache: tests/fuzz/fuzz_idxcache.c $(FZ_RP_LIB) \
		$(FZ_PTK_LIB) $(FZ_SB_LIB)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ALL_CPPFLAGS) -std=gnu11 $(WARN) $(FUZZ_FLAGS) -o $@ $< \
		$(FZ_RP_LIB) $(FZ_PTK_LIB) $(FZ_SB_LIB) $(LIBS_REPLAY) \
		$(LIBS_PTKIT) $(LIBS_SIDEBAND)
FUZZ_BUNDLE := $(BUILD)/fuzz/replay-bundle
# The bundle, and so every fuzz campaign, is the same in every clone and
# run on machines with the same toolchain: no address randomization, the
# counter clock, a fixed environment and stdout a regular file (libc
# buffers a terminal's, /dev/null's and a file's output differently, and
# the trace shows it), then pids, times, the checkout's path and mtimes
# made fixed (fixbundle.c).
# The program is tests/programs/loops built again with its debug info's
# directory mapped: the build-id hashes it, and names the image.
$(FUZZ_BUNDLE)/manifest.json: $(PTREC) $(BUILD)/fuzz/loops $(BUILD)/fuzz/fixbundle
	rm -rf $(FUZZ_BUNDLE)
	env -i PATH=/usr/bin:/bin LC_ALL=C setarch x86_64 -R $(PTREC) record \
		-q --counter-clock --psb-period 256 -o $(FUZZ_BUNDLE) \
		-- $(BUILD)/fuzz/loops </dev/null >$(BUILD)/fuzz/loops.out
	$(BUILD)/fuzz/fixbundle $(FUZZ_BUNDLE)

$(BUILD)/fuzz/loops: tests/programs/loops.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -ffile-prefix-map=$(CURDIR)=. -o $@ $<

$(BUILD)/fuzz/fixbundle: tests/fuzz/fixbundle.c $(SB_LIB) sideband/sideband.h \
		sideband/uapi/ptrec_sideband.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(SB_LIB) $(LIBS_SIDEBAND)

$(BUILD)/fuzz/mkseeds: tests/fuzz/mkseeds.c $(SB_LIB) sideband/sideband.h \
		sideband/uapi/ptrec_sideband.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(SB_LIB) $(LIBS_SIDEBAND)

# One index worker: with -seed=1 and -runs the campaign is then the same
# in every run (two workers' coverage depends on timing, so each CI run
# fuzzed differently and one found tests/fuzz/open/'s input).  -reload=0:
# libFuzzer otherwise reads the corpus directory again every second and
# runs the seeds it had not kept at whatever point of the campaign that
# falls (fuzz_snapshot: cov 159 to 164 from one run to the next).
# -use_cmp=0: libFuzzer's mutations otherwise take the values the code
# compares, pointers included, and where the heap and stack are depends on
# address randomization (fuzz_snapshot still ended at cov 159 or 165) and
# even on the checkout's path (fuzz_perf and fuzz_sideband_reader in
# /tmp/x1 and /work/wt-reindex: cov 590 and 627, 142 twice but ft 373 and
# 380; with it, 618 and 147 in both).  Also no address randomization, a
# fixed environment, relative paths and one scratch directory
# (PTREC_FUZZ_TMP), for the same reason.
fuzz: $(FUZZ_BINS) $(BUILD)/fuzz/mkseeds $(FUZZ_BUNDLE)/manifest.json
	@set -e; export PTREC_FUZZ_BUNDLE=$(FUZZ_BUNDLE); \
	export PTREC_INDEX_THREADS=1 PTREC_FUZZ_TMP=$(BUILD)/fuzz/tmp; \
	for f in $(FUZZ_BINS); do \
		n=$$(basename $$f); c=$(BUILD)/fuzz/corpus/$$n; \
		rm -rf $$c $$PTREC_FUZZ_TMP; mkdir -p $$c $$PTREC_FUZZ_TMP; \
		$(BUILD)/fuzz/mkseeds $$n $$c; \
		r=tests/fuzz/regressions/$$n; if [ -d $$r ]; then \
			echo "== $$n: replaying $$r"; \
			$$f $$r/* >$(BUILD)/fuzz/$$n.replay.log 2>&1 || \
			{ tail -40 $(BUILD)/fuzz/$$n.replay.log; exit 1; }; fi; \
		rm -rf $$PTREC_FUZZ_TMP; mkdir -p $$PTREC_FUZZ_TMP; \
		runs=$$(case $$n in fuzz_replay) echo $(FUZZ_RUNS_REPLAY);; \
			fuzz_server) echo $(FUZZ_RUNS_SERVER);; \
			fuzz_manifest) echo $(FUZZ_RUNS_MANIFEST);; \
			fuzz_idxcache) echo $(FUZZ_RUNS_IDXCACHE);; \
			fuzz_snapshot) echo $(FUZZ_RUNS_SNAPSHOT);; \
			*) echo $(FUZZ_RUNS_READER);; esac); \
		echo "== $$n ($$runs runs, at most $(FUZZ_SECONDS) s)"; \
		env -i PATH=/usr/bin:/bin PTREC_INDEX_THREADS=1 \
			PTREC_FUZZ_BUNDLE=$$PTREC_FUZZ_BUNDLE \
			PTREC_FUZZ_TMP=$$PTREC_FUZZ_TMP setarch x86_64 -R \
		$$f -seed=1 -runs=$$runs -max_total_time=$(FUZZ_SECONDS) \
			-max_len=65536 -reload=0 -use_cmp=0 \
			-timeout=10 -artifact_prefix=$(BUILD)/fuzz/$$n- \
			-print_final_stats=1 -close_fd_mask=1 $$c \
			2>$(BUILD)/fuzz/$$n.log || \
			{ tail -40 $(BUILD)/fuzz/$$n.log; exit 1; }; \
		grep -E 'stat::number_of_executed_units|Done|DONE' \
			$(BUILD)/fuzz/$$n.log || true; \
	done

# ---- benchmarks: ratios against a baseline measured in the same run ------

$(BUILD)/tests/bench/steploop: tests/bench/steploop.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $<

$(BUILD)/tests/bench/workload: tests/bench/workload.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -static -o $@ $<

# The benchmarks' libipt loops and their input readers (iptraw, the plain
# loop of a new user, takes only rawpt.c: no ptrec library).
RAWPT_SRCS := tests/bench/rawpt.c tests/bench/rawpt.h
IPTLOOP_SRCS := tests/bench/iptloop.c tests/bench/iptloop.h $(RAWPT_SRCS)

BENCH_REPLAY := $(BUILD)/tests/bench/bench_replay
$(BENCH_REPLAY): tests/bench/bench_replay.c $(IPTLOOP_SRCS) \
		$(RP_LIB) $(PTK_LIB) $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< \
		$(filter %.c,$(IPTLOOP_SRCS)) $(LINK_REPLAY)

IPTRAW := $(BUILD)/tests/bench/iptraw
$(IPTRAW): tests/bench/iptraw.c $(RAWPT_SRCS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< \
		$(filter %.c,$(RAWPT_SRCS)) -lipt

# The block-cache flow walker against libipt's decoders (replay/fwalk.c,
# docs/performance.md "A block-cache flow walker").
FWRAW := $(BUILD)/tests/bench/fwraw
$(FWRAW): tests/bench/fwraw.c $(IPTLOOP_SRCS) $(RP_LIB) $(PTK_LIB) \
		$(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< \
		$(filter %.c,$(IPTLOOP_SRCS)) $(LINK_REPLAY)

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

# Real hardware traces only (issue #19): ratios against a plain libipt
# loop, wall on 1 and 2 workers and callgrind counts (CALLGRIND=0: wall).
.PHONY: bench-real
bench-real: all $(IPTRAW)
	./scripts/bench-real $(BUILD)

# Unit tests again, built with AddressSanitizer and UBSan.
asan:
	$(MAKE) BUILD=build-asan \
		EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined" unit cli-test e2e import-test

check: all layering-check unit cli-test e2e gdb-test $(CHECK_EXTRA) install-check asan fuzz
	@echo "make check: all suites passed"

deps:
	./scripts/install-deps

# CI's command.  Two suites at a time: the machines have 2 cores and most
# suites keep one busy (a shell loop, a GDB, a single-stepped program);
# each suite's output is printed whole when it ends (--output-sync), not
# interleaved.  Every suite makes its files under $(BUILD) (build-asan for
# the ASan pass) and its scratch files with mktemp, so none waits on or
# clobbers another.
test: deps
	$(MAKE) -j2 --output-sync=target --no-print-directory check

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
	install -m 644 gdb/plugin/ptrec.py gdb/plugin/ptrec_unwind.py \
		gdb/plugin/ptrec_stop.py gdb/plugin/ptrec_record.py \
		gdb/plugin/ptrec_finish.py \
		$(DESTDIR)$(PREFIX)/share/ptrec/
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
