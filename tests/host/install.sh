#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: what `make install` and `make uninstall` put where, and the
# version a tree builds as.  The uapi header lands in PREFIX/include/linux.
# The tools land under PREFIX/lib/pktgen with
# links in PREFIX/bin and run from there; uninstall removes them and the
# module from updates/ again; a checkout without a tag is VERSION+gHASH,
# a tree without .git (git archive, as a tarball) the VERSION file.  All
# in temporary trees (DESTDIR, INSTALL_MOD_PATH).  Without headers for the
# kernel asked for (by default the running one), make and make install
# stop and say what to install or which KVER= to use.  make sign signs
# both modules of a build/KREL (make modules-all) with a throwaway key.
# KTAP, then the closing "N passed, N failed, N skipped" line.

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tests/lib/lib.sh"

T=$(lib_tmpdir)
TOOLS="ipodump pgrx-hist pgrx-plot pgstats pktgen-exporter pktgen-rfc2544 pktgen-sweep pktgen-top"
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
		[ -x "$T/root/usr/bin/$t" ] && [ -f "$T/root/usr/lib/pktgen/$t" ] &&
			[ -f "$T/root/usr/share/man/man1/$t.1" ] ||
			{ ls -lR "$T/root/usr"; return 1; }
	done
	# man finds each page, which names the tool and lists its exit codes
	for t in $TOOLS; do
		MANPATH=$T/root/usr/share/man MANWIDTH=80 man "$t" 2>/dev/null |
			grep -q "^EXIT STATUS" || { echo "man $t: no page or no EXIT STATUS"; return 1; }
	done
	# each runs from its link, finding its helper modules beside it
	for t in pgrx-hist pgrx-plot pgstats pktgen-exporter pktgen-rfc2544 pktgen-sweep pktgen-top; do
		"$T/root/usr/bin/$t" --help >/dev/null || { echo "$t --help failed"; return 1; }
	done
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
tools_removed() {
	local t
	for t in $TOOLS; do
		[ ! -e "$T/root/usr/bin/$t" ] && [ ! -L "$T/root/usr/bin/$t" ] &&
			[ ! -e "$T/root/usr/share/man/man1/$t.1" ] || return 1
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
	local upd=$T/mods/lib/modules/$KV/updates
	mkdir -p "$upd/ipoption" || return 1
	: >"$upd/pktgen.ko" && : >"$upd/ipoption/pf_ipoption.ko" || return 1
	mk "$REPO" uninstall KVER="$KV" INSTALL_MOD_PATH="$T/mods" DESTDIR="$T/root" PREFIX=/usr ||
		return 1
	[ ! -e "$upd/pktgen.ko" ] && [ ! -e "$upd/ipoption" ] &&
		[ -f "$T/mods/lib/modules/$KV/modules.dep" ]
}

# KV with no headers: make TARGET stops, naming the running release's
# headers package and every release that has headers
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
refused() {	# TARGET KVER-ARG...
	local out b
	if out=$(mk "$REPO" "$@" 2>&1); then
		echo "make $* did not stop: $out"
		return 1
	fi
	grep -qF "apt-get install linux-headers-$(uname -r)" <<<"$out" ||
		{ echo "no package named: $out"; return 1; }
	for b in /lib/modules/*/build; do
		[ -f "$b/Makefile" ] || continue
		grep -qF "KVER=$(basename "$(dirname "$b")")" <<<"$out" ||
			{ echo "$b not offered: $out"; return 1; }
	done
	[ ! -e "$REPO/pktgen.ko" ] || [ "$REPO/pktgen.ko" -ot "$T" ] ||
		{ echo "pktgen.ko built anyway"; return 1; }
}

# a build/KREL with headers: its modules signed with a throwaway key
SIGN_KV=$(for b in /lib/modules/*/build; do
	k=$(basename "$(dirname "$b")")
	[ -f "$b/scripts/sign-file" ] && [ -f "$REPO/build/$k/pktgen.ko" ] &&
		[ -f "$REPO/build/$k/ipoption/pf_ipoption.ko" ] && echo "$k"
done | sort -V | tail -n 1)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
signed() {
	local m
	mkdir -p "$T/sign/ipoption" &&
	cp "$REPO/build/$SIGN_KV/pktgen.ko" "$T/sign/" &&
	cp "$REPO/build/$SIGN_KV/ipoption/pf_ipoption.ko" "$T/sign/ipoption/" &&
	openssl req -new -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=pktgen sign test/" \
		-outform DER -keyout "$T/key.priv" -out "$T/cert.der" 2>/dev/null || return 1
	mk "$REPO" sign KVER="$SIGN_KV" MODDIR="$T/sign" KEY="$T/key.priv" CERT="$T/cert.der" ||
		return 1
	for m in "$T/sign/pktgen.ko" "$T/sign/ipoption/pf_ipoption.ko"; do
		# shellcheck disable=SC2015 # the || branch is meant for a failure of either
		[ "$(modinfo -F signer "$m")" = "pktgen sign test" ] &&
			[ -n "$(modinfo -F sig_key "$m")" ] || { modinfo "$m"; return 1; }
	done
}

ktap_header
ktap_plan 13
check "version of this checkout: its tag, or VERSION+gHASH" version_checkout
check "version of a tree without .git (git archive): VERSION ($(cat "$REPO/VERSION"))" \
	version_tarball
check "make install-tools DESTDIR PREFIX=/usr" mk "$REPO" install-tools DESTDIR="$T/root" PREFIX=/usr
check "tools in /usr/lib/pktgen, linked from /usr/bin, run from there, man pages" tools_installed
check "make install-headers DESTDIR PREFIX=/usr" mk "$REPO" install-headers DESTDIR="$T/root" PREFIX=/usr
check "pf_ipoption.h in /usr/include/linux; the memo's code compiles with it" header_installed
check "make uninstall: both modules leave updates/, depmod runs" module_uninstall
check "make uninstall: the tools and their directory are gone" tools_removed
check "make uninstall: pf_ipoption.h is gone" test ! -e "$T/root/usr/include/linux/pf_ipoption.h"
check "make modules KVER=<no headers> stops: the package, the KVER= choices" \
	refused modules KVER="$KV"
check "make install KVER=<no headers> stops the same, installs nothing" \
	refused install KVER="$KV" INSTALL_MOD_PATH="$T/refused" DESTDIR="$T/refused"
if [ -f "/lib/modules/$(uname -r)/build/Makefile" ]; then
	ktap_skip "make without KVER stops: the running kernel has no headers" \
		"the running kernel has headers"
else
	check "make without KVER stops: the running kernel $(uname -r) has no headers" \
		refused modules
fi
if [ -n "$SIGN_KV" ] && command -v openssl >/dev/null; then
	check "make sign KEY CERT: both modules of build/$SIGN_KV, signer and sig_key" signed
else
	ktap_skip "make sign" "no build/KREL with headers (make modules-all) or no openssl"
fi
echo "$_KT_PASS passed, $_KT_FAIL failed, $_KT_SKIP skipped"
ktap_finish
