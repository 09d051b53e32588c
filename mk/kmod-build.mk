# Builds kmod/ptrec.ko (docs/kmod.md) against the Debian cloud kernel's
# headers (linux-headers-cloud-amd64), not the host's kernel: the module is
# loaded in a QEMU guest booting that kernel.  The sources are copied into
# $(BUILD)/kmod with the sideband header, so the tree stays clean.
#
#   make kmod        $(BUILD)/kmod/ptrec.ko
#   make checkpatch  checkpatch.pl --no-tree over kmod/ (part of make check)

KMOD_KDIR ?= $(lastword $(sort $(wildcard /usr/src/linux-headers-*-cloud-amd64)))
KMOD_OUT := $(BUILD)/kmod
KMOD_SRCS := $(wildcard kmod/*.c kmod/*.h) kmod/Kbuild kmod/uapi/ptrec.h \
	sideband/uapi/ptrec_sideband.h

.PHONY: kmod
kmod: $(KMOD_OUT)/ptrec.ko

$(KMOD_OUT)/ptrec.ko: $(KMOD_SRCS)
	@test -n "$(KMOD_KDIR)" || { echo "kmod: no /usr/src/linux-headers-*-cloud-amd64;" \
		"run scripts/install-deps" >&2; exit 1; }
	@mkdir -p $(KMOD_OUT)/uapi
	cp kmod/*.c kmod/*.h kmod/Kbuild $(KMOD_OUT)/
	cp kmod/uapi/ptrec.h sideband/uapi/ptrec_sideband.h $(KMOD_OUT)/uapi/
	$(MAKE) -C $(KMOD_KDIR) M=$(CURDIR)/$(KMOD_OUT) W=1 modules

# The kernel's style checker over kmod/ (scripts/checkpatch: checkpatch.pl
# --no-tree from linux-source-6.1's tarball, extracted once into
# $(BUILD)/checkpatch; about 5 s of CPU after that).  Part of make check.
.PHONY: checkpatch
checkpatch:
	./scripts/checkpatch $(BUILD)

CHECK_EXTRA += checkpatch
