#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pgrx's per-packet cost against its number of streams (1, 64, 1024,
# 4096): one VM per kernel (tests/lib/vm.sh, -icount shift=0: guest time
# counts instructions, one vCPU) runs bench/rx-streams-guest.sh; the
# table, with each cell's median against the 1-stream cell's, goes to
# bench/results/DATE-KV-rx-streams-icount.md.
#	bench/rx-streams.sh [KV...]	(default: the newest of kernels.sh suite)
# RX_BENCH_RUNS, RX_BENCH_COUNT, RX_BENCH_STREAMS: see the guest script.
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC2046 # the kernel releases, one word each
[ $# -gt 0 ] || set -- $("$REPO/tests/lib/kernels.sh" suite | tail -n 1)
rc=0
for kv in "$@"; do
	log=$(mktemp /tmp/pktgen-bench.XXXXXX)
	TESTS=../bench/rx-streams-guest VM_TIMEOUT=3600 TEST_TIMEOUT=3000 VM_CPUS=1 \
		VM_QEMU_OPTS="-icount shift=0,sleep=off" \
		"$REPO/tests/lib/vm.sh" check "$kv" | tee "$log"
	out=$(sed -n 's/^vm\.sh: output in //p' "$log" | head -n 1)
	rm -f "$log"
	res=$out/bench-rx-streams-$kv/result.txt
	[ -s "$res" ] || { echo "bench: $kv: no $res" >&2; rc=1; continue; }
	name=$REPO/bench/results/$(date +%Y-%m-%d)-$kv-rx-streams-icount.md
	{
		echo "# pgrx: receive cost against the number of streams, $kv"
		echo
		echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); ours $(make -s -C "$REPO" version)"
		echo "- $(head -n 1 "$res"); VM: tests/lib/vm.sh, 1 vCPU, -icount shift=0 (pps = packets per 10^9 guest instructions)"
		echo "- Method: bench/rx-streams-guest.sh: pktgen netif_receive on dummy0 into pgrx, src_mac_count S streams, after a warm-up that creates them"
		echo
		echo "- instructions/packet = 10^9 / pps, the whole path (pktgen's build, netif_receive, pgrx); the streams' numbers are S apart, so part of the difference is the sequence window's move (bench/rx-streams-guest.sh)"
		echo
		echo "| streams | median pps | runs | vs 1 stream | instructions/packet | more than 1 stream |"
		echo "| ---: | ---: | --- | ---: | ---: | ---: |"
		/usr/bin/python3 - "$res" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    m = re.match(r'streams=(\d+) round=\d+ pps=(\d+)$', line.strip())
    if m:
        runs.setdefault(int(m[1]), []).append(int(m[2]))
base = statistics.median(runs[min(runs)]) if runs else 0
for s in sorted(runs):
    med = statistics.median(runs[s])
    ipp = 1e9 / med
    print(f'| {s} | {med:.0f} | {" ".join(map(str, runs[s]))} | {med / base:.3f} '
          f'| {ipp:.0f} | {ipp - 1e9 / base:+.0f} |')
PY
	} >"$name"
	cat "$name"
done
exit $rc
