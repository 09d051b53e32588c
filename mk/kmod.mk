# The kernel module's tests (tests/kmod/, docs/kmod.md): boot the Debian
# cloud kernel in QEMU with a busybox initramfs, load the module, check.
#
#   make kmod-test   the suite (part of make check)
#   make kmod-bench  context-switch cost, traced against untraced (make bench)

KQ_DIR := $(BUILD)/kmod-qemu
KQ_FETCH := tests/kmod/fetch-kernel.sh
KQ_SELFTEST := $(KQ_DIR)/selftest/kqselftest.ko
KQ_CHECK := $(KQ_DIR)/kqcheck
KQ_GEN := $(KQ_DIR)/kqgen
KQ_GUEST_SRCS := $(wildcard tests/kmod/guest/*.c)
KQ_GUEST_BINS := $(KQ_GUEST_SRCS:tests/kmod/guest/%.c=$(KQ_DIR)/guest/%)
# The real module, once mk/kmod-build.mk builds it with target `kmod`.
KQ_KMOD_DEP := $(if $(wildcard mk/kmod-build.mk),kmod)
KQ_PTREC_KO = $(firstword $(wildcard $(BUILD)/kmod/ptrec.ko kmod/ptrec.ko))

# The harness's own module, built out of tree against the cloud headers.
$(KQ_SELFTEST): tests/kmod/selftest/kqselftest.c tests/kmod/selftest/Kbuild
	@rm -rf $(dir $@) && mkdir -p $(dir $@)
	cp $^ $(dir $@)
	$(MAKE) -s -C /usr/src/linux-headers-$$($(KQ_FETCH) --kver) \
		M=$(CURDIR)/$(dir $@) modules >$(dir $@)build.log 2>&1 || \
		{ cat $(dir $@)build.log; exit 1; }

# Guest programs are static: the initramfs has no libc.
$(KQ_DIR)/guest/%: tests/kmod/guest/%.c kmod/uapi/ptrec.h \
		sideband/uapi/ptrec_sideband.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -static -pthread -o $@ $<

KQ_RUN = KQ_KERNEL=$(KQ_DIR)/kernel \
	KQ_KVER=$$($(KQ_FETCH) $(KQ_DIR)/kernel) \
	KQ_SELFTEST=$(KQ_SELFTEST) KQ_GUEST=$(KQ_DIR)/guest \
	PTREC_KO=$(KQ_PTREC_KO) KQ_CHECK=$(KQ_CHECK) KQ_GEN=$(KQ_GEN) \
	KQ_PTREC=$(PTREC) \
	KQ_LAZY_LIBS="$(foreach l,capstone opcodes bfd nettle zstd,$(call soname,$(l)))" \
	tests/kmod/run.sh

.PHONY: kmod-test kmod-bench
kmod-test: $(KQ_SELFTEST) $(KQ_GUEST_BINS) $(KQ_CHECK) $(KQ_GEN) $(PTREC) \
		$(KQ_KMOD_DEP)
	@mkdir -p $(KQ_DIR)/guest
	$(KQ_RUN)

kmod-bench: $(KQ_SELFTEST) $(KQ_GUEST_BINS) $(KQ_KMOD_DEP)
	@mkdir -p $(KQ_DIR)/guest
	KQ_MODE=bench $(KQ_RUN)

CHECK_EXTRA += kmod-test
BENCH_EXTRA += kmod-bench

# Host side: checks the traces and sideband the guest brings back.
KQ_CHECK_SRCS := tests/kmod/kqcheck.c tests/kmod/kqcheck_trace.c \
	tests/kmod/kqcheck_log.c
$(KQ_CHECK): $(KQ_CHECK_SRCS) tests/kmod/kqcheck.h $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(KQ_CHECK_SRCS) \
		$(SB_LIB) -lipt $(LIBS_SIDEBAND)

# Writes small traces with known defects, to show that kqcheck catches them.
$(KQ_GEN): tests/kmod/kqgen.c $(SB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(SB_LIB) \
		-lipt $(LIBS_SIDEBAND)
