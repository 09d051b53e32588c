# ptrec.ko through DKMS (kmod/dkms.conf; README "Installing the module
# with DKMS"), so the module is rebuilt for every kernel the machine
# installs.
#
#   make dkms-src      stage the module's source in $(DESTDIR)/usr/src/ptrec-VERSION
#   make dkms-install  dkms-src, then dkms add, build and install (root)
#   make dkms-remove   dkms remove --all (root)
#   make dkms-test     dkms add + build in private trees under $(BUILD),
#                      against the cloud kernel's headers (make check)

DKMS_SRC = $(DESTDIR)/usr/src/ptrec-$(VERSION)
DKMS_FILES := $(wildcard kmod/*.c kmod/*.h) kmod/Kbuild kmod/dkms.conf \
	kmod/uapi/ptrec.h sideband/uapi/ptrec_sideband.h

# dkms_stage DIR: the module's sources, its two UAPI headers, dkms.conf
define dkms_stage
	rm -rf $(1) && install -d $(1)/uapi
	install -m 644 $(wildcard kmod/*.c kmod/*.h) kmod/Kbuild $(1)/
	install -m 644 kmod/uapi/ptrec.h sideband/uapi/ptrec_sideband.h $(1)/uapi/
	sed 's/@VERSION@/$(VERSION)/' kmod/dkms.conf >$(1)/dkms.conf
endef

.PHONY: dkms-src dkms-install dkms-remove dkms-test
dkms-src: $(DKMS_FILES)
	$(call dkms_stage,$(DKMS_SRC))

dkms-install: dkms-src
	-dkms remove -m ptrec -v $(VERSION) --all >/dev/null 2>&1
	dkms add -m ptrec -v $(VERSION)
	dkms build -m ptrec -v $(VERSION)
	dkms install -m ptrec -v $(VERSION)

dkms-remove:
	dkms remove -m ptrec -v $(VERSION) --all

DKMS_T = $(CURDIR)/$(BUILD)/dkms-test
dkms-test: $(DKMS_FILES)
	@command -v dkms >/dev/null || { echo "dkms-test: dkms missing; run scripts/install-deps" >&2; exit 1; }
	@test -n "$(KMOD_KDIR)" || { echo "dkms-test: no cloud kernel headers; run scripts/install-deps" >&2; exit 1; }
	$(call dkms_stage,$(DKMS_T)/src/ptrec-$(VERSION))
	rm -rf $(DKMS_T)/tree && mkdir -p $(DKMS_T)/tree
	tests/kmod/dkms-test.sh $(DKMS_T) $(VERSION) $(KMOD_KDIR)

CHECK_EXTRA += dkms-test
