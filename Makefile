# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree pktgen.  The module itself is built by Kbuild; the other
# targets drive the VM-based tests and demos (see README).

KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(lastword $(sort $(wildcard /lib/modules/*/build))))
PWD := $(shell pwd)
PKTGEN_VERSION := $(shell git -C $(PWD) describe --always --dirty 2>/dev/null || echo 0.1)
export PKTGEN_VERSION

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(PWD) modules

# Build one pktgen.ko per installed kernel under build/<kver>/, with W=1,
# failing on any compiler warning.
modules-all:
	tests/lib/build-all.sh

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean 2>/dev/null || true
	rm -rf build

install: modules
	$(MAKE) -C $(KDIR) M=$(PWD) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(notdir $(patsubst %/build,%,$(KDIR)))

# Set up a fresh Debian machine (apt, pip), build, boot each kernel in a
# VM and run every test in tests/.
check:
	tests/lib/setup.sh
	tests/lib/build-all.sh
	tests/lib/vm.sh check

# Set up, build, boot a VM and send packets with a classic script.
run:
	tests/lib/setup.sh
	tests/lib/build-all.sh
	tests/lib/vm.sh run

sparse:
	$(MAKE) -C $(KDIR) M=$(PWD) C=2 modules

style:
	tests/lib/style.sh

.PHONY: all modules modules-all clean install check run sparse style
