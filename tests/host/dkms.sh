#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side (not in the VM: compiling under TCG takes too long): DKMS adds,
# builds and installs pktgen for each kernel with headers (DKMS_KERNELS to
# choose; every one by default), then removes it.  Prints
# KTAP and a closing "N passed, N failed, N skipped" line.
#
# Nothing of the machine's DKMS state is touched: the source, DKMS and
# install trees are temporary (--sourcetree/--dkmstree/--installtree), and
# in a private mount namespace a tmpfs covers /var/lib/dkms, where DKMS
# would otherwise create its module signing key.  Needs root and dkms
# (apt: dkms); without dkms every subtest is skipped.
#
#	tests/host/dkms.sh	(make check-dkms)

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tests/lib/lib.sh"

if [ -z "${DKMS_PRIVATE:-}" ] && [ "$(id -u)" -eq 0 ] &&
   unshare -m --propagation private true 2>/dev/null; then
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	exec env DKMS_PRIVATE=1 unshare -m --propagation private \
		sh -c 'mount -t tmpfs dkms /var/lib/dkms 2>/dev/null; exec "$0"' "$0"
fi

KERNELS=${DKMS_KERNELS:-$(for b in /lib/modules/*/build; do
	[ -d "$b" ] && basename "$(dirname "$b")"; done | sort -V)}
VER=$(make -s --no-print-directory -C "$REPO" version)
T=$(lib_tmpdir)
OPTS=(--sourcetree "$T/src" --dkmstree "$T/dkms" --installtree "$T/lib/modules")

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
dk() { dkms "$1" "pktgen/$VER" "${@:2}" "${OPTS[@]}" 2>&1; }

# installed KV: DKMS put our module (this version, built for KV) under
# updates/, and depmod -b resolves pktgen to it.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
installed() {
	local f
	f=$(modinfo -b "$T" -k "$1" -F filename pktgen) || return 1
	case $f in "$T/lib/modules/$1/updates/"*) ;; *) echo "pktgen is $f"; return 1 ;; esac
	[ "$(modinfo -F version "$f")" = "$VER" ] || { modinfo "$f"; return 1; }
	case "$(modinfo -F vermagic "$f")" in "$1 "*) ;; *) modinfo "$f"; return 1 ;; esac
	dkms status "pktgen/$VER" -k "$1" "${OPTS[@]}" | grep -q ': installed'
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
removed() { ! ls "$T/lib/modules/$1"/updates/dkms/pktgen.ko* 2>/dev/null; }

per_kernel() {	# KV: build, install, check, remove
	mkdir -p "$T/lib/modules/$1" && ln -sfn "/lib/modules/$1/build" "$T/lib/modules/$1/build"
	check "dkms build -k $1" dk build -k "$1"
	check "dkms install -k $1" dk install -k "$1" --no-depmod
	depmod -b "$T" "$1" 2>/dev/null
	check "installed for $1: updates/, version $VER" installed "$1"
	check "dkms uninstall -k $1" dk uninstall -k "$1" --no-depmod
	check "uninstalled for $1" removed "$1"
}

ktap_header
if ! command -v dkms >/dev/null; then
	ktap_skip "dkms" "dkms not installed (apt-get install dkms)"
	ktap_finish
fi
mkdir -p "$T/src" "$T/dkms" "$T/lib/modules"
check "make dkms-src" make -s -C "$REPO" dkms-src DKMS_SRC="$T/src"
check "dkms add pktgen/$VER" dk add
for kv in $KERNELS; do
	per_kernel "$kv"
done
check "dkms remove --all" dk remove --all
echo "$_KT_PASS passed, $_KT_FAIL failed, $_KT_SKIP skipped"
ktap_finish
