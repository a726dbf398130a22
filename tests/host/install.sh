#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: what `make install` and `make uninstall` put where, and the
# version a tree builds as.  The uapi header lands in PREFIX/include/linux.
# The tools land under PREFIX/lib/pktgen with
# links in PREFIX/bin and run from there; uninstall removes them and the
# module from updates/ again; a checkout without a tag is VERSION+gHASH,
# a tree without .git (git archive, as a tarball) the VERSION file.  All
# in temporary trees (DESTDIR, INSTALL_MOD_PATH).  KTAP, then the closing
# "N passed, N failed, N skipped" line.

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tests/lib/lib.sh"

T=$(lib_tmpdir)
TOOLS="ipodump pgstats pktgen-rfc2544 pktgen-sweep pktgen-top"
KV=6.0.0-pgtest		# a release no kernel has: an empty module tree
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
mk() { make -s --no-print-directory -C "$1" "${@:2}"; }

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
version_checkout() {
	local v h
	v=$(mk "$REPO" version)
	h=$(git -C "$REPO" describe --always --dirty)
	[ "$v" = "$(git -C "$REPO" describe --tags --dirty 2>/dev/null)" ] ||
		[ "$v" = "$(cat "$REPO/VERSION")+g$h" ] || { echo "version '$v', hash $h"; return 1; }
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
version_tarball() {
	mkdir -p "$T/src" && git -C "$REPO" archive HEAD | tar -x -C "$T/src" || return 1
	local v
	v=$(mk "$T/src" version)
	[ "$v" = "$(cat "$REPO/VERSION")" ] || { echo "version '$v'"; return 1; }
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
tools_installed() {
	local t
	for t in $TOOLS; do
		# shellcheck disable=SC2015 # the || branch is meant for a failure of either
		[ -x "$T/root/usr/bin/$t" ] && [ -f "$T/root/usr/lib/pktgen/$t" ] ||
			{ ls -lR "$T/root/usr"; return 1; }
	done
	# each runs from its link, finding its helper modules beside it
	for t in pgstats pktgen-rfc2544 pktgen-sweep pktgen-top; do
		"$T/root/usr/bin/$t" --help >/dev/null || { echo "$t --help failed"; return 1; }
	done
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
tools_removed() {
	local t
	for t in $TOOLS; do
		[ ! -e "$T/root/usr/bin/$t" ] && [ ! -L "$T/root/usr/bin/$t" ] || return 1
	done
	[ ! -e "$T/root/usr/lib/pktgen" ]
}

# the uapi header installed, and the memo's code compiles against it alone
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
header_installed() {
	[ -f "$T/root/usr/include/linux/pf_ipoption.h" ] || { ls -lR "$T/root/usr"; return 1; }
	cc -fsyntax-only -I"$T/root/usr/include" "$REPO/tests/lib/ipo_memo.c"
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
module_uninstall() {
	mkdir -p "$T/mods/lib/modules/$KV/updates" || return 1
	: >"$T/mods/lib/modules/$KV/updates/pktgen.ko"
	mk "$REPO" uninstall KVER="$KV" INSTALL_MOD_PATH="$T/mods" DESTDIR="$T/root" PREFIX=/usr ||
		return 1
	[ ! -e "$T/mods/lib/modules/$KV/updates/pktgen.ko" ] &&
		[ -f "$T/mods/lib/modules/$KV/modules.dep" ]
}

ktap_header
ktap_plan 9
check "version of this checkout: its tag, or VERSION+gHASH" version_checkout
check "version of a tree without .git (git archive): VERSION ($(cat "$REPO/VERSION"))" \
	version_tarball
check "make install-tools DESTDIR PREFIX=/usr" mk "$REPO" install-tools DESTDIR="$T/root" PREFIX=/usr
check "tools in /usr/lib/pktgen, linked from /usr/bin, run from there" tools_installed
check "make install-headers DESTDIR PREFIX=/usr" mk "$REPO" install-headers DESTDIR="$T/root" PREFIX=/usr
check "pf_ipoption.h in /usr/include/linux; the memo's code compiles with it" header_installed
check "make uninstall: the module leaves updates/, depmod runs" module_uninstall
check "make uninstall: the tools and their directory are gone" tools_removed
check "make uninstall: pf_ipoption.h is gone" test ! -e "$T/root/usr/include/linux/pf_ipoption.h"
echo "$_KT_PASS passed, $_KT_FAIL failed, $_KT_SKIP skipped"
ktap_finish
