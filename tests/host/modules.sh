#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: the two modules of each build/KREL (tests/lib/build-all.sh)
# are two products.  pktgen.ko is the generator and its receiver: it
# references no socket-family symbol and registers no IPv4 netfilter
# hook (the receiver's one hook is a netdev ingress hook), and
# pf_ipoption.ko, the option classifier and PF_IPOPTION family, needs
# nothing of it: neither module depends on the other.  Prints KTAP and
# "N passed, N failed, N skipped"; exit 4 without nm or a build.

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tests/lib/lib.sh"

# what a socket family or the IPv4 option hooks would need
FAMILY_SYMS='sock_register|sock_unregister|proto_register|sk_alloc|nf_register_net_hooks'

builds=()
for d in "$REPO"/build/*/; do
	[ -f "$d/pktgen.ko" ] && [ -f "$d/ipoption/pf_ipoption.ko" ] && builds+=("${d%/}")
done

ktap_header
if ! command -v nm >/dev/null || ! command -v modinfo >/dev/null || [ ${#builds[@]} -eq 0 ]; then
	ktap_plan 1
	ktap_skip "two modules" "no nm/modinfo, or no build/KREL (make modules-all)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 4
fi
ktap_plan $((${#builds[@]} * 3 + 1))

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
no_family_syms() {	# KO
	local found
	found=$(nm -u "$1" | grep -Ew "$FAMILY_SYMS")
	[ -z "$found" ] || { echo "$1 references: $found"; return 1; }
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
no_depends() {	# KO
	local dep
	dep=$(modinfo -F depends "$1")
	[ -z "$dep" ] || { echo "$1 depends on: $dep"; return 1; }
}

for b in "${builds[@]}"; do
	kv=${b##*/}
	check "$kv: pktgen.ko references no socket-family symbol" no_family_syms "$b/pktgen.ko"
	check "$kv: pktgen.ko depends on no module" no_depends "$b/pktgen.ko"
	check "$kv: pf_ipoption.ko depends on no module" no_depends "$b/ipoption/pf_ipoption.ko"
done
# the source says the same: no IPv4 netfilter hook outside ipoption/
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "no NFPROTO_IPV4 hook and no socket family in pktgen's sources" \
	eval '! grep -nE "NFPROTO_IPV4|sock_register|net_proto_family" "$REPO"/*.c "$REPO"/*.h'
echo "$_KT_PASS passed, $_KT_FAIL failed, $_KT_SKIP skipped"
ktap_finish
