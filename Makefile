# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree pktgen.  The module itself is built by Kbuild; the other
# targets drive the VM-based tests and demos (see README).

# the kernels make check, check-all and modules-all take (see check)
export KERNELS

# The kernel to build for: KDIR, else KVER's headers, else the running
# kernel's; never another one silently (kdir-check says what to do).
RUNNING := $(shell uname -r)
ifeq ($(origin KDIR),undefined)
KDIR := /lib/modules/$(or $(KVER),$(RUNNING))/build
endif
PWD := $(shell pwd)
# The version: `git describe --tags` of a checkout; without a tag, the
# VERSION file's number and the commit (0.9+g1234abc); in a tree that is
# not a git checkout of its own (a tarball), the VERSION file alone.
PKTGEN_VERSION := $(shell cd $(PWD) && \
	if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$$(pwd -P)" ]; then \
		git describe --tags --dirty 2>/dev/null || \
		echo "$$(cat VERSION)+g$$(git describe --always --dirty)"; \
	else cat VERSION; fi)
export PKTGEN_VERSION

all: modules

modules: kdir-check
	$(MAKE) -C $(KDIR) M=$(PWD) modules

# No headers for the kernel asked for (the running one by default): stop,
# naming the package and the releases that have them.
kdir-check:
	@test -f $(KDIR)/Makefile || { \
	  echo "pktgen: no kernel headers in $(KDIR) (kernel $(KVER))"; \
	  echo "pktgen: for the running kernel $(RUNNING): apt-get install linux-headers-$(RUNNING)"; \
	  echo "pktgen: or build for an installed kernel with KVER=<release>; these have headers:"; \
	  for b in /lib/modules/*/build; do test -f $$b/Makefile && echo "  KVER=$$(basename $$(dirname $$b))"; done; \
	  exit 1; } >&2

# Build one pktgen.ko per installed and cached (make kernels) kernel under
# build/<kver>/, with W=1, failing on any compiler warning.
modules-all:
	tests/lib/build-all.sh

# The tests' C programs, built once on the host into build/helpers/ (the
# guest sees the repo at the same path): lib.sh's one-write(2) helper,
# the fuzzer, the PF_IPOPTION programs and the receiver's statistics
# against their model (tests/host/rxstat.sh), and the bench's AF_PACKET
# sender.  modules-all builds them.
HELPER_DIR := build/helpers
HELPER_CFLAGS := -O2 -Wall -Wextra -Wno-unused-function -Iinclude/uapi
HELPERS := $(addprefix $(HELPER_DIR)/,pgwrite pgfuzz ipo_memo ipo_reinject ipo_tool rxstat \
	afp_send)

helpers: $(HELPERS)

$(HELPER_DIR)/%: tests/lib/%.c include/uapi/linux/pf_ipoption.h
	@mkdir -p $(HELPER_DIR)
	$(CC) $(HELPER_CFLAGS) -o $@ $<

$(HELPER_DIR)/afp_send: bench/afp_send.c
	@mkdir -p $(HELPER_DIR)
	$(CC) $(HELPER_CFLAGS) -o $@ $<

$(HELPER_DIR)/rxstat: tests/host/rxstat.c tests/host/rxstat_model.c \
		      pktgen_rxstat.c $(wildcard pktgen_rxstat.h)
	@mkdir -p $(HELPER_DIR)
	$(CC) $(HELPER_CFLAGS) -o $@ $<

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean 2>/dev/null || true
	rm -rf build

version:
	@echo $(PKTGEN_VERSION)

# ---------------------------------------------------------------- packaging
# make install [KVER=<release>] [INSTALL_MOD_PATH=<root>]
#	build against /lib/modules/KVER/build (KVER: the running kernel's
#	release; without its headers make stops, see kdir-check) and install pktgen.ko into
#	<root>/lib/modules/KVER/updates/, which modprobe prefers to the
#	in-tree kernel/net/core/pktgen.ko, and pf_ipoption.ko into
#	updates/ipoption/; then depmod.
#	Then the tools (install-tools).
# make install-built KVER=<release>: the same for build/KVER/pktgen.ko
#	(made by `make modules-all`), without building.
# make install-tools [PREFIX=/usr/local] [DESTDIR=<root>]: the tools into
#	PREFIX/lib/pktgen/, each linked from PREFIX/bin/.
# make install-headers [PREFIX=/usr/local] [DESTDIR=<root>]: the uapi
#	header of the PF_IPOPTION family, PREFIX/include/linux/pf_ipoption.h.
# make uninstall [KVER=...] [INSTALL_MOD_PATH=...] [PREFIX=...]: remove
#	what install or dkms put there: the modules of KVER, the tools, the
#	header, every pktgen version DKMS holds and DKMS_SRC/pktgen-*
#	(left to apt when the pktgen-dkms package is installed)
#	(uninstall-tools: the tools only).
# make dkms-src [DKMS_SRC=/usr/src]: DKMS_SRC/pktgen-VERSION with the
#	sources and dkms.conf (VERSION: git describe), for `dkms add`.
# make dkms [KVER=<release>]: dkms-src, then dkms add, build, install,
#	after removing any other pktgen version from DKMS (one at a time).
#	DKMS_FLAGS: options for every dkms command (--dkmstree ..., tests).
# make sign KEY=<key.pem> CERT=<cert.der|pem> [KVER=...] [MODDIR=.]: sign
#	MODDIR's pktgen.ko and ipoption/pf_ipoption.ko with the kernel's
#	scripts/sign-file (a MOK key: Documentation/install.rst).
# make deb: build/pktgen-dkms_VERSION_all.deb (debian/, dh with dh_dkms;
#	VERSION from the VERSION file), then lintian on it.
# make check-dkms: tests/host/dkms.sh (DKMS in temporary trees, KTAP).
KVER ?= $(or $(patsubst /lib/modules/%/build,%,$(filter /lib/modules/%/build,$(KDIR))),\
	     $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null))
MODDIR ?= build/$(KVER)
DKMS_SRC ?= /usr/src
DKMS_DIR = $(DKMS_SRC)/pktgen-$(PKTGEN_VERSION)
# Kbuild signs installed modules when the kernel has MODULE_SIG_ALL; the
# key exists only where that kernel was built (not in distribution headers)
NOSIGN = $(if $(wildcard $(KDIR)/certs/signing_key.pem),,CONFIG_MODULE_SIG_ALL=)

PREFIX ?= /usr/local
TOOLS := ipodump pgrx-hist pgrx-plot pgstats pktgen-exporter pktgen-rfc2544 pktgen-sweep pktgen-top
# the exporter's unit (make install-tools; @BINDIR@ becomes $(PREFIX)/bin)
UNITDIR = $(DESTDIR)$(PREFIX)/lib/systemd/system
TOOL_LIBS := pgplot.py pgproc.py rfc2544.py
TOOLDIR = $(DESTDIR)$(PREFIX)/lib/pktgen
HEADERS := pf_ipoption.h
HDRDIR = $(DESTDIR)$(PREFIX)/include/linux

install: kdir-check modules
	$(MAKE) install-built MODDIR=$(PWD)
	$(MAKE) install-tools
	$(MAKE) install-headers

install-headers:
	install -d $(HDRDIR)
	install -m 644 $(addprefix include/uapi/linux/,$(HEADERS)) $(HDRDIR)/

uninstall-headers:
	rm -f $(addprefix $(HDRDIR)/,$(HEADERS))

# make man: the tools' manual pages, build/man/TOOL.1 from man/TOOL.rst
# (Debian's docutils: rst2man, python3-docutils); install-tools installs
# them into PREFIX/share/man/man1.  A new tool: man/TOOL.rst beside the others.
MANDIR = $(DESTDIR)$(PREFIX)/share/man/man1
MAN_PAGES := $(addprefix build/man/,$(addsuffix .1,$(TOOLS)))
RST2MAN ?= rst2man

man: $(MAN_PAGES)

build/man/%.1: man/%.rst $(wildcard man/_*.rst.inc) VERSION
	@command -v $(RST2MAN) >/dev/null || \
		{ echo "make man: no $(RST2MAN): apt-get install python3-docutils" >&2; exit 1; }
	@mkdir -p build/man
	cd man && sed 's/@VERSION@/$(PKTGEN_VERSION)/' $*.rst | \
		$(RST2MAN) --no-generator --no-datestamp --halt=warning - $(CURDIR)/$@.tmp
	mv $@.tmp $@

install-tools: man
	install -d $(TOOLDIR) $(DESTDIR)$(PREFIX)/bin $(MANDIR)
	install -m 755 $(addprefix tools/,$(TOOLS)) $(TOOLDIR)/
	install -m 644 $(addprefix tools/,$(TOOL_LIBS)) $(TOOLDIR)/
	for t in $(TOOLS); do ln -sfn ../lib/pktgen/$$t $(DESTDIR)$(PREFIX)/bin/$$t; done
	install -m 644 $(MAN_PAGES) $(MANDIR)/
	install -d $(UNITDIR)
	sed 's|@BINDIR@|$(PREFIX)/bin|' systemd/pktgen-exporter.service >$(UNITDIR)/pktgen-exporter.service

uninstall: uninstall-tools uninstall-headers uninstall-dkms
	rm -f $(INSTALL_MOD_PATH)/lib/modules/$(KVER)/updates/pktgen.ko* \
		$(INSTALL_MOD_PATH)/lib/modules/$(KVER)/updates/ipoption/pf_ipoption.ko*
	rmdir $(INSTALL_MOD_PATH)/lib/modules/$(KVER)/updates/ipoption 2>/dev/null || true
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KVER)

uninstall-tools:
	for t in $(TOOLS); do rm -f $(DESTDIR)$(PREFIX)/bin/$$t \
		$(MANDIR)/$$t.1 $(MANDIR)/$$t.1.gz; done
	rm -rf $(TOOLDIR)
	rm -f $(UNITDIR)/pktgen-exporter.service

install-built: kdir-check
	@test -f $(MODDIR)/pktgen.ko -a -f $(MODDIR)/ipoption/pf_ipoption.ko || \
		{ echo "no $(MODDIR)/pktgen.ko or ipoption/pf_ipoption.ko (make modules-all?)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(abspath $(MODDIR)) KERNELRELEASE=$(KVER) \
		INSTALL_MOD_DIR=updates $(NOSIGN) modules_install
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KVER)

dkms-src:
	rm -rf $(DKMS_DIR)
	mkdir -p $(DKMS_DIR)
	cp Kbuild Makefile $(filter-out %.mod.c,$(wildcard *.c)) *.h $(DKMS_DIR)/
	cp -r include $(DKMS_DIR)/
	mkdir -p $(DKMS_DIR)/ipoption
	cp ipoption/Kbuild ipoption/*.c ipoption/*.h $(DKMS_DIR)/ipoption/
	mkdir -p $(DKMS_DIR)/probes
	cp probes/Kbuild.probes probes/*.c probes/*.sym $(DKMS_DIR)/probes/
	sed 's/@VERSION@/$(PKTGEN_VERSION)/' dkms.conf >$(DKMS_DIR)/dkms.conf

# the pktgen versions DKMS holds ("pktgen/V, KVER, arch: state" or "pktgen/V: added")
DKMS_VERSIONS = $(shell dkms status -m pktgen $(DKMS_FLAGS) 2>/dev/null | \
	sed -n 's|^pktgen/\([^,:]*\)[,:].*|\1|p' | sort -u)
PKG_INSTALLED = $(shell dpkg-query -W -f='$${Status}' pktgen-dkms 2>/dev/null | \
	grep -q ' installed$$' && echo yes)

# DKMS keeps a module whose version is below the kernel's own (the
# kernel's pktgen says 2.75) out of updates/ unless listed here as
# overriding it, for every later kernel too
DKMS_FORCE ?= /usr/share/dkms/modules_to_force_install/pktgen
dkms-force:
	install -d $(dir $(DKMS_FORCE))
	echo pktgen_version-override >$(DKMS_FORCE)

dkms: kdir-check
	@if [ -n "$(PKG_INSTALLED)" ]; then \
		echo "pktgen: the package pktgen-dkms is installed: apt purge pktgen-dkms first" >&2; \
		exit 1; fi
	$(MAKE) dkms-src dkms-force
	for v in $(filter-out $(PKTGEN_VERSION),$(DKMS_VERSIONS)); do \
		dkms remove pktgen/$$v --all $(DKMS_FLAGS) && rm -rf $(DKMS_SRC)/pktgen-$$v || exit 1; done
	dkms status pktgen/$(PKTGEN_VERSION) $(DKMS_FLAGS) | grep -q . || \
		dkms add pktgen/$(PKTGEN_VERSION) $(DKMS_FLAGS)
	dkms build pktgen/$(PKTGEN_VERSION) -k $(KVER) $(DKMS_FLAGS)
	dkms install pktgen/$(PKTGEN_VERSION) -k $(KVER) $(DKMS_FLAGS)

# every pktgen in DKMS and its source, unless the package owns them
uninstall-dkms:
ifeq ($(PKG_INSTALLED),yes)
	@echo "pktgen: DKMS's pktgen belongs to the package pktgen-dkms: apt purge pktgen-dkms"
else
	for v in $(DKMS_VERSIONS); do dkms remove pktgen/$$v --all $(DKMS_FLAGS) || exit 1; done
	rm -rf $(wildcard $(DKMS_SRC)/pktgen-*) $(DKMS_FORCE)
endif

sign: kdir-check
	@test -n "$(KEY)" -a -n "$(CERT)" || \
		{ echo "make sign KEY=<private key> CERT=<certificate> (Documentation/install.rst)" >&2; exit 1; }
	for m in $(MODDIR)/pktgen.ko $(MODDIR)/ipoption/pf_ipoption.ko; do \
		$(KDIR)/scripts/sign-file sha256 $(KEY) $(CERT) $$m || exit 1; done

# the Debian package, built in a copy of the tree under build/deb
DEB_TOOLS := dpkg-buildpackage:dpkg-dev dh:debhelper dh_dkms:dh-dkms lintian:lintian \
	rst2man:python3-docutils
DEB_VERSION := $(shell cat VERSION)
deb:
	@for t in $(DEB_TOOLS); do command -v $${t%%:*} >/dev/null || \
		{ echo "make deb: no $${t%%:*}: apt-get install $${t#*:}" >&2; exit 1; }; done
	@dpkg-query -W -f='$${Status}' build-essential 2>/dev/null | grep -q ' installed$$' || \
		{ echo "make deb: apt-get install build-essential (dpkg-buildpackage wants it)" >&2; exit 1; }
	@v=$$(dpkg-parsechangelog -S Version); [ "$$v" = "$(DEB_VERSION)" ] || \
		{ echo "make deb: debian/changelog is $$v, VERSION $(DEB_VERSION): dch -v $(DEB_VERSION)" >&2; exit 1; }
	rm -rf build/deb && mkdir -p build/deb/pktgen-$(DEB_VERSION)
	tar -c --exclude=./build --exclude=./.git --exclude='*.ko' --exclude='*.o' . | \
		tar -x -C build/deb/pktgen-$(DEB_VERSION)
	cd build/deb/pktgen-$(DEB_VERSION) && dpkg-buildpackage -b -us -uc
	cp build/deb/pktgen-dkms_$(DEB_VERSION)_all.deb build/
	lintian --info build/deb/*.changes
	@echo "make deb: build/pktgen-dkms_$(DEB_VERSION)_all.deb"

# DKMS add/build/install/remove for every kernel with headers, on the host
# in temporary trees (exit 4: dkms missing, every subtest skipped).
check-dkms:
	tests/host/dkms.sh || [ $$? -eq 4 ]

# tests/host/fresh.sh: the README's starting point proved in minimal
# debootstrapped Debian 12 and 13 roots (apt-get install git make, then
# make run there; cached in ~/.cache/pktgen/fresh).  make check-all runs
# it for Debian 12 (FRESH_RELEASES) in the background of the VM suites.
check-fresh:
	FRESH_RELEASES="$${FRESH_RELEASES:-bookworm trixie}" tests/host/fresh.sh || [ $$? -eq 4 ]

# tests/host/rxstat.sh: the receiver's sequence and statistics logic
# (pktgen_rxstat.c) against a reference model, in user space; make check
# runs it too.  RXSTAT_SEQUENCES=10000000 for the long run.
check-rxstat: helpers
	tests/host/rxstat.sh || [ $$? -eq 4 ]

# tests/many-hosts.sh: the Ansible collection (ansible/) run from the host
# against three guests at once (two senders, one receiver), its merged
# report checked against each guest's /proc.  KERNELS="KV..." (default
# the suite's newest kernel, `tests/lib/kernels.sh suite`).  Three TCG
# guests load both cores for minutes: not in make check; nothing else
# may boot meanwhile (Documentation/testing.rst).
check-many-hosts:
	tests/lib/setup.sh many-hosts
	tests/lib/build-all.sh
	rc=0; for kv in $${KERNELS:-$$(tests/lib/kernels.sh suite | tail -n 1)}; do \
		bash tests/many-hosts.sh $${kv%:fast} || [ $$? -eq 4 ] || rc=1; done; exit $$rc

# Set up a fresh Debian machine (apt, a venv for virtme-ng), build for its
# kernels (tests/lib/check.sh), run the host-side tests (tests/host: DKMS,
# a fresh Debian root) and boot each kernel in a VM for tests/*.sh.
# Kernels: the host release's, the newest Debian builds and Debian 11's
# 5.10 (fetched into the cache by setup.sh check; CHECK_NEWEST=none,
# CHECK_OLDEST=none leave them out); the newest with the suite but its
# slow tier (SLOW=1 adds it), the others with the fast differential subset.
# KERNELS="KV..." names the kernels (installed, or in the cache of
# tests/lib/kernels.sh; KV:fast for the fast differential subset only).
check:
	tests/lib/setup.sh check
	tests/lib/check.sh $(KERNELS)

# Kernels from Debian's archive, unpacked into ~/.cache/pktgen/kernels and
# never installed as the host's (tests/lib/kernels.sh; KERNELS names them,
# default its set: 6.12-rt, 7.2, 7.3 and 7.3-rt).
kernels:
	tests/lib/kernels.sh fetch $(KERNELS)

# The matrix: every installed and cached kernel, the full suite on make
# check's kernels and the newest, the fast differential subset on the
# others (CHECK_FULL=1: the full suite on all).
check-all: kernels
	tests/lib/setup.sh
	CHECK_MATRIX=1 SLOW=1 tests/lib/check.sh $(KERNELS)

# The debug kernel (KASAN, UBSAN, lockdep, kmemleak, fault injection) of
# tests/debug/debug.config, built from linux-source-6.12 and cached in
# ~/.cache/pktgen-debug; check-debug runs every test on it (Documentation/testing.rst).
debug-kernel:
	tests/lib/setup.sh
	tests/lib/debug-kernel.sh

# The KCSAN kernel of tests/debug/kcsan.config (6.12.117-pgkcsan; KCSAN
# excludes KASAN, so a kernel of its own) for tests/race-counters.sh.
kcsan-kernel:
	tests/lib/setup.sh
	PG_DEBUG_CONFIG=kcsan tests/lib/debug-kernel.sh

# The same with the kernel uninstrumented and only our module watched
# (tests/debug/kcsan-mod.config, 6.12.117-pgkcsanmod).
kcsan-mod-kernel:
	tests/lib/setup.sh
	PG_DEBUG_CONFIG=kcsan-mod tests/lib/debug-kernel.sh

# race-counters on it, every access of the module watched (~70 s)
check-kcsan: kcsan-mod-kernel
	tests/lib/build-all.sh
	KCSAN_SKIP_WATCH=$${KCSAN_SKIP_WATCH:-1} TESTS=race-counters \
		tests/lib/vm.sh check $$(PG_DEBUG_CONFIG=kcsan-mod tests/lib/debug-kernel.sh 2>/dev/null | tail -n 1)

# The suite's strength measured by mutants: each tests/mutants/*.patch
# (one changed line of the module, and the tests that should fail on it)
# built on the host, then one 6.12 VM runs the named tests on each
# (tests/lib/mutants.sh, which prints the table).
# MUTANTS_KV=KV another kernel; MUTANTS="NAME..." a subset.  Not in CI.
# SAMPLE=N [SEED=S]: instead, a uniform random N of the mutants
# tests/lib/mutants-gen.py writes for every site of both modules'
# sources (build/mutants-gen/), their tests from tests/mutants/map;
# it fails below KILL_MIN=85 percent (the hand-written ones: 95).
SEED ?= 1
check-mutants:
	tests/lib/setup.sh
ifdef SAMPLE
	python3 tests/lib/mutants-gen.py build/mutants-gen $(SAMPLE) $(SEED)
	KILL_MIN=$${KILL_MIN:-85} MUTANTS_SRC=build/mutants-gen/sample tests/lib/mutants.sh $(MUTANTS_KV)
else
	tests/lib/mutants.sh $(MUTANTS_KV)
endif

# Every test and the stress tests (STRESS=1); the debug kernel under TCG is
# 5-10 times slower: longer limits per test and per VM (TEST_TIMEOUT,
# VM_TIMEOUT override).  `STRESS=1 make check` runs the stress tests on the
# stock kernels.
check-debug: debug-kernel
	tests/lib/build-all.sh
	STRESS=1 TEST_TIMEOUT=$${TEST_TIMEOUT:-3000} VM_TIMEOUT=$${VM_TIMEOUT:-43200} \
		tests/lib/check.sh $$(tests/lib/debug-kernel.sh 2>/dev/null | tail -n 1)

# The documentation's example runs and figures (tests/lib/figures.sh) in
# a VM of the newest kernel (KERNELS=KV another; FIGURES=sweep or
# rfc2544 for one set): the PNGs go to Documentation/images, the runs'
# output to build/figures/figures/*.txt for the text around them.
FIGURES ?= sweep rfc2544
figures:
	tests/lib/setup.sh
	tests/lib/build-all.sh
	rm -rf build/figures && mkdir -p build/figures
	FIGURES="$(FIGURES)" VM_OUT=$(CURDIR)/build/figures tests/lib/vm.sh figures $(KERNELS)
	case " $(FIGURES) " in *" sweep "*) for f in sweep-veth0 sweep-dummy0; do \
		cp build/figures/figures/$$f.png Documentation/images/$$f.png || exit 1; done; \
		tests/lib/figures_text.py build/figures/figures Documentation/tools.rst ;; esac
	case " $(FIGURES) " in *" rfc2544 "*) for f in tbf lossy delay; do \
		cp build/figures/figures/rfc2544/$$f.png Documentation/images/rfc2544-$$f.png \
			|| exit 1; done; \
		tests/lib/figures_text.py build/figures/figures Documentation/rfc2544.rst ;; esac

# Set up, build, boot a VM and send packets with a classic script.
run:
	tests/lib/setup.sh
	tests/lib/build-all.sh
	tests/lib/vm.sh run

sparse: kdir-check
	$(MAKE) -C $(KDIR) M=$(PWD) C=2 modules

# checkpatch, shellcheck and sparse on every kernel (tests/lib/style.sh;
# make check runs the same as tests/host/lint.sh)
style:
	tests/lib/style.sh || [ $$? -eq 4 ]

.PHONY: all modules modules-all helpers clean install check run figures sparse style debug-kernel check-debug
.PHONY: kcsan-kernel
.PHONY: kernels check-all
.PHONY: kdir-check uninstall-dkms sign deb dkms-force
.PHONY: man install-built install-tools install-headers uninstall uninstall-tools uninstall-headers version dkms-src dkms check-dkms check-fresh
.PHONY: check-rxstat kcsan-mod-kernel check-kcsan check-mutants check-many-hosts

# Benchmarks: the kernel's own pktgen.ko against ours, alternately in one
# 6.12 VM; report under bench/results/.  BENCH_ARGS="--kernel all",
# "--quick", "--runs N", ... (bench/README).
bench:
	tests/lib/setup.sh
	bench/run.sh $(BENCH_ARGS)

# The PF_IPOPTION memo's measurement: forwarding IPv4 option packets
# through a router netns, classifier off/on, intercepted by ipodump.
bench-ipopt:
	tests/lib/setup.sh
	bench/run.sh --ipopt $(BENCH_ARGS)

.PHONY: bench bench-ipopt
