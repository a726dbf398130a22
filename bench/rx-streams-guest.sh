#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of bench/rx-streams.sh: pgrx's receive cost against its
# number of streams.  In one netns, S pktgen devices dummy0@1..S on one
# thread, each with its own source MAC, drive dummy0 in xmit_mode
# netif_receive (the frame enters the receive path at once, on the
# sending CPU): S streams (Documentation/receiver.rst "Streams"), each
# numbered 1, 2, 3... as S real senders would be.
#
# What depends on S besides pgrx is taken out by differences:
# - each run is timed by its devices' Result (the longest elapsed time;
#   under -icount guest nanoseconds are instructions), and a cell is two
#   runs of C1 and C2 packets per device: (T2 - T1) / ((C2 - C1) S) is
#   the cost of a packet in the steady state, without what a run costs
#   once (stream creation, the devices' start and stop);
# - the thread's pick of the next device looks at all S devices, so the
#   same two runs are made with the receiver off (the frames, for
#   another MAC, are dropped at once by ip_rcv): pgrx's cost is the
#   difference, on - off, and its growth with S is what the table shows.
# Per cell S in RX_BENCH_STREAMS (1 64 1024 4096), RX_BENCH_RUNS rounds,
# the cells in turn, reversed in odd rounds; every packet received is
# checked (rx_packets, streams == S, overflow 0, no loss).  Writes
# "streams=S round=R rx=on|off c1=N t1=NS c2=N t2=NS" lines to
# $OUT/bench-rx-streams-$KV/result.txt.
set -u
. "$(dirname "$0")/../tests/lib/lib.sh"
. "$(dirname "$0")/../tests/lib/rx-lib.sh"

CELLS=${RX_BENCH_STREAMS:-1 64 1024 4096}
COUNT=${RX_BENCH_COUNT:-100000}
ROUNDS=${RX_BENCH_RUNS:-3}
C1=32
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
rx_cmd "$NS" "display script" || fail "display script"
THR=$(ip netns exec "$NS" ls /proc/net/pktgen | grep kpktgend_ | sort -V | head -n 1)
[ -n "$THR" ] || fail "no kpktgend thread"

# In the netns, one shell for the thousands of writes of a cell:
#	devs.sh rx CMD | add S | count S N | elapsed S
cat >"$dir/devs.sh" <<'EOF'
set -u
P=/proc/net/pktgen
w() { echo "$2" >"$P/$1" || { echo "$1: '$2': $(sed -n 's/^Result: //p' "$P/$1")"; exit 1; }; }
case $1 in
rx)
	echo "$2" >"$P/pgrx" || { echo "pgrx: '$2': $(grep '^Result:' "$P/pgrx")"; exit 1; } ;;
add)
	w "$THR" rem_device_all
	for ((k = 1; k <= $2; k++)); do
		w "$THR" "add_device dummy0@$k"
		for c in "xmit_mode netif_receive" "pkt_size 60" "clone_skb 0" \
			 "dst 10.97.0.2" "dst_mac 02:00:00:ff:ff:fe" \
			 "src_mac $(printf '02:00:00:00:%02x:%02x' $((k >> 8)) $((k & 255)))"; do
			w "dummy0@$k" "$c"
		done
	done ;;
count)
	for ((k = 1; k <= $2; k++)); do w "dummy0@$k" "count $3"; done ;;
elapsed)
	# the longest Result of the devices, each checked to be OK
	max=0
	for ((k = 1; k <= $2; k++)); do
		r=""
		while IFS= read -r l; do
			[[ $l == Result:* ]] && r=${l#Result: }
		done <"$P/dummy0@$k"
		case $r in
		"OK: "*) ;;
		*) echo "dummy0@$k: $r"; exit 1 ;;
		esac
		read -r _ us _ <<<"$r"
		us=${us%%(*}
		((us > max)) && max=$us
	done
	echo "$max" ;;
esac
EOF

devs() { ip netns exec "$NS" env THR="$THR" bash "$dir/devs.sh" "$@"; }

# run S C RX: one run of C packets per device; prints its time in ns,
# what went wrong on stderr
run() {
	local s=$1 c=$2 us
	devs rx rx_disable >&2 || return 1
	if [ "$3" = on ]; then
		devs rx "rx dummy0" >&2 && devs rx rx_reset >&2 || return 1
	fi
	devs count "$s" "$c" >&2 || return 1
	pg_start_ns "$NS" 900 || { echo "the run failed" >&2; return 1; }
	us=$(devs elapsed "$s") || { echo "$us" >&2; return 1; }
	if [ "$3" = on ]; then
		# the totals only: the whole text of 4096 streams is over
		# rx_snap's 1 MiB
		RX_TEXT=$(ip netns exec "$NS" grep -E '^(streams|overflow_packets|rx_packets|lost)=' \
			  /proc/net/pktgen/pgrx)
		if [ "$(rx_val streams)" != "$s" ] || [ "$(rx_val overflow_packets)" != 0 ] ||
		   [ "$(rx_val rx_packets)" != $((s * c)) ] || [ "$(rx_val lost)" != 0 ]; then
			echo "streams $(rx_val streams) overflow $(rx_val overflow_packets)" \
			     "rx_packets $(rx_val rx_packets) (want $((s * c))) lost $(rx_val lost)" >&2
			return 1
		fi
	fi
	echo $((us * 1000))
}

# cell S ROUND: the four runs of S streams
cell() {
	local s=$1 c2 t1 t2 rx
	c2=$((C1 + (COUNT + s - 1) / s))
	devs add "$s" || return 1
	for rx in on off; do
		t1=$(run "$s" "$C1" "$rx") && t2=$(run "$s" "$c2" "$rx") || return 1
		echo "streams=$s round=$2 rx=$rx c1=$C1 t1=$t1 c2=$c2 t2=$t2" | tee -a "$res"
	done
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
