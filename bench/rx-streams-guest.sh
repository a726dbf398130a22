#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of bench/rx-streams.sh: pgrx's receive cost against its
# number of streams.  In one netns, pktgen drives dummy0 in xmit_mode
# netif_receive (the frame enters the receive path at once, on the
# sending CPU) and pgrx receives on dummy0; src_mac_count S makes S
# streams (one per source MAC, Documentation/receiver.rst "Streams").
# Per cell S in RX_BENCH_STREAMS (1 64 1024 4096): rx_reset, a warm-up
# run of 4 S packets (every stream created), then a measured run of
# RX_BENCH_COUNT packets into the existing streams; RX_BENCH_RUNS
# rounds, the cells in turn, reversed in odd rounds.  The measure is
# the sender's Result pps, every packet received (checked: rx_packets,
# streams == S, overflow 0); under -icount, packets per 10^9 guest
# instructions.  The streams' numbers are S apart (one sequence over all
# MACs): each packet moves its stream's window by S (64 words at 4096),
# a cost of the sequence tracking, not of the table, counted in too.
# Writes "streams=S round=R pps=N" lines to $OUT/bench-rx-streams-$KV/result.txt.
set -u
. "$(dirname "$0")/../tests/lib/lib.sh"
. "$(dirname "$0")/../tests/lib/rx-lib.sh"

CELLS=${RX_BENCH_STREAMS:-1 64 1024 4096}
COUNT=${RX_BENCH_COUNT:-100000}
ROUNDS=${RX_BENCH_RUNS:-3}
dir=${OUT:-/tmp}/bench-rx-streams-${KV:-$(uname -r)}
mkdir -p "$dir"
res=$dir/result.txt
: >"$res"

ktap_header
ktap_plan 1
fail() { ktap_fail "rx streams bench" "$*"; ktap_finish; }

pg_load || fail "pg_load"
setup_ns NS || fail "setup_ns"
dummy_create "$NS" dummy0 || fail "dummy0"
MAC=$(mac_of "$NS" dummy0)
if ! rx_cmd "$NS" "rx dummy0" || ! rx_cmd "$NS" "display script"; then
	fail "rx dummy0"
fi
if ! tx_setup "$NS" dummy0 ||
   ! tx_set "$NS" dummy0 "xmit_mode netif_receive" "pkt_size 60" "clone_skb 0" \
		"dst 10.97.0.2" "dst_mac $MAC" "src_mac 02:00:00:00:00:00"; then
	fail "pktgen dummy0"
fi

# cell S ROUND: one measured run with S streams
cell() {
	local s=$1 pps
	rx_cmd "$NS" rx_reset && tx_set "$NS" dummy0 "src_mac_count $s" "count $((4 * s))" &&
		tx_run "$NS" || return 1
	rx_snap "$NS"
	[ "$(rx_val streams)" = "$s" ] || { echo "warm-up: streams $(rx_val streams), not $s"; return 1; }
	tx_set "$NS" dummy0 "count $COUNT" && tx_run "$NS" 600 || return 1
	rx_snap "$NS"
	if [ "$(rx_val streams)" != "$s" ] || [ "$(rx_val overflow_packets)" != 0 ] ||
	   [ "$(rx_val rx_packets)" != $((4 * s + COUNT)) ]; then
		echo "streams $(rx_val streams) overflow $(rx_val overflow_packets) rx_packets $(rx_val rx_packets)"
		return 1
	fi
	pps=$(ip netns exec "$NS" sed -n 's/^ *\([0-9]*\)pps .*/\1/p' /proc/net/pktgen/dummy0)
	[ -n "$pps" ] || { echo "no pps in the Result"; return 1; }
	echo "streams=$s round=$2 pps=$pps" | tee -a "$res"
}

echo "count=$COUNT rounds=$ROUNDS cpus=$(nproc) kernel=$(uname -r)" | tee -a "$res"
for ((r = 0; r < ROUNDS; r++)); do
	order=$CELLS
	((r % 2)) && order=$(tr ' ' '\n' <<<"$CELLS" | tac | tr '\n' ' ')
	for s in $order; do
		out=$(cell "$s" "$r" 2>&1) || fail "cell $s round $r: $out"
		echo "$out"
	done
done
ktap_pass "rx streams bench"
ktap_finish
