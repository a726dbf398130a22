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
	grep -qs "^streams=" "$res" || { echo "bench: $kv: no cell in $res" >&2; rc=1; continue; }
	name=$REPO/bench/results/$(date +%Y-%m-%d)-$kv-rx-streams-icount.md
	{
		echo "# pgrx: receive cost against the number of streams, $kv"
		echo
		echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); ours $(make -s -C "$REPO" version)"
		echo "- $(head -n 1 "$res"); VM: tests/lib/vm.sh, 1 vCPU, -icount shift=0 (pps = packets per 10^9 guest instructions)"
		echo "- Method: bench/rx-streams-guest.sh: S pktgen devices (dummy0@1..S, one thread, a source MAC each: S streams, each numbered 1, 2, 3...) in xmit_mode netif_receive into pgrx on dummy0; per cell two runs of c1 and c2 packets a device, with the receiver on and off"
		echo "- instructions/packet = (t2 - t1) / ((c2 - c1) S): the steady state, without what a run costs once; off = the same senders with the receiver off (the frames dropped by ip_rcv), so that pgrx = on - off, the receiver's own cost; the thread's pick of the next device, which looks at all S devices, is in both on and off"
		echo "- whole path at S: 10^9 / (on(1) + pgrx(S) - pgrx(1)), packets per 10^9 instructions with the 1-stream cell's sender and pgrx's cost at S, against the 1-stream cell"
		echo
		echo "| streams | on: instructions/packet | off | pgrx (on - off) | pgrx vs 1 stream | whole path, packets per 10^9 instructions | vs 1 stream | runs |"
		echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		/usr/bin/python3 - "$res" <<'PY'
import re, statistics, sys
ipp = {}
for line in open(sys.argv[1]):
    m = re.match(r'streams=(\d+) round=(\d+) rx=(on|off) c1=(\d+) t1=(\d+) c2=(\d+) t2=(\d+)$', line.strip())
    if m:
        s, r, rx = int(m[1]), int(m[2]), m[3]
        c1, t1, c2, t2 = map(int, m.group(4, 5, 6, 7))
        ipp.setdefault(s, {}).setdefault(r, {})[rx] = (t2 - t1) / ((c2 - c1) * s)
cells = {}
for s, rounds in ipp.items():
    full = [v for v in rounds.values() if 'on' in v and 'off' in v]
    if full:
        cells[s] = (statistics.median(v['on'] for v in full),
                    statistics.median(v['off'] for v in full),
                    statistics.median(v['on'] - v['off'] for v in full), len(full))
if cells:
    b = min(cells)
    on1, _, rx1, _ = cells[b]
    for s in sorted(cells):
        on, off, rx, n = cells[s]
        whole = 1e9 / (on1 + rx - rx1)
        print(f'| {s} | {on:.0f} | {off:.0f} | {rx:.0f} | {rx / rx1:.3f} | {whole:.0f} '
              f'| {whole * on1 / 1e9:.3f} | {n} |')
PY
	} >"$name"
	cat "$name"
done
exit $rc
