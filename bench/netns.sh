#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What network namespaces cost with pktgen loaded: one VM per kernel
# (tests/lib/vm.sh, as the tests) runs bench/netns-guest.sh, which adds
# and deletes NETNS_N (1000) namespaces with no module, the stock one and
# ours; the table goes to bench/results/DATE-KV-netns.md.
#	bench/netns.sh [KV...]		(default: 6.12's)
#	bench/netns.sh --icount [KV...]	guest instructions, not time
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
icount=""
[ "${1:-}" = --icount ] && { icount=-icount; shift; }
# shellcheck disable=SC2046 # the kernel releases, one word each
[ $# -gt 0 ] || set -- $("$REPO/tests/lib/kernels.sh" suite | grep '^6\.12' | head -n 1)
rc=0
for kv in "$@"; do
	log=$(mktemp /tmp/pktgen-bench.XXXXXX)
	TESTS=../bench/netns-guest VM_TIMEOUT=3600 TEST_TIMEOUT=3000 \
		VM_QEMU_OPTS="${icount:+-icount shift=0,sleep=off}" \
		"$REPO/tests/lib/vm.sh" check "$kv" | tee "$log"
	out=$(sed -n 's/^vm\.sh: output in //p' "$log" | head -n 1)
	rm -f "$log"
	res=$out/bench-netns-$kv/result.txt
	[ -s "$res" ] || { echo "bench: $kv: no $res" >&2; rc=1; continue; }
	name=$REPO/bench/results/$(date +%Y-%m-%d)-$kv-netns$icount.md
	{
		echo "# Creating and destroying network namespaces, $kv"
		echo
		echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); ours $(make -s -C "$REPO" version)"
		echo "- $(head -n 1 "$res"); VM: tests/lib/vm.sh${icount:+, -icount shift=0 (ms = 10^6 guest instructions)}"
		echo "- Method: bench/netns-guest.sh: CPU time busy (both CPUs, /proc/stat) adding with one ip -batch, and deleting with one plus ${NETNS_SETTLE:-60} s of cleanup, less an idle guest's ${NETNS_SETTLE:-60} s"
		echo
		echo "| module | create, CPU ms | destroy, CPU ms | kpktgend threads with them |"
		echo "| --- | ---: | ---: | ---: |"
		sed -n 's/^\([a-z_]*\) create_ms=\([0-9]*\) destroy_ms=\([0-9]*\) kthreads=\([0-9]*\)$/| \1 | \2 | \3 | \4 |/p' "$res"
	} >"$name"
	cat "$name"
done
exit $rc
