#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# suite: slow
#
# The receiver's stream table at its limit: 4100 streams (extension ids,
# hand-made frames by tests/lib/rx_many.py) into a table of 4096: the
# first 4096 counted each on its own, exactly, the packets of the 4
# streams beyond counted as overflow_packets, never in another stream;
# the three displays of 4096 streams (script, json equal to it, human),
# read through seq_file a record at a time; the memory the streams take
# (unreclaimable slab, Documentation/receiver.rst "Streams") and its
# return when the namespace goes; rx_reset, statistics, sample and reads
# during traffic of 5000 streams; 4096 ids that collide under the former
# fixed hash (tests/lib/rx_collide.py), counted exactly and as fast as
# consecutive ids; the namespace deleted during traffic.
#
#   netns TX                          netns RX
#   +--------------------+   veth     +--------------------------+
#   | rx_many.py  veth0  |----------->| veth1  <-- pgrx "rx veth1" |
#   |             veth0b |---.        +--------------------------+
#   +--------------------+   |  veth  netns RXD (deleted mid-traffic)
#                            '------->  veth1b <-- pgrx "rx veth1b"
# test-timeout: 1800

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

PY=/usr/bin/python3
MANY="$(dirname "$0")/lib/rx_many.py"
COLLIDE="$(dirname "$0")/lib/rx_collide.py"
# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
CHECK="$(dirname "$0")/lib/rx_json_check.py"
HIST="$(cd "$(dirname "$0")/.." && pwd)/tools/pgrx-hist"
MAX=4096 NSTREAMS=4100
D=$(lib_tmpdir)

setup() {
	pg_load || return 1
	setup_ns TX RX RXD || return 1
	veth_create "$TX" veth0 "$RX" veth1 && veth_create "$TX" veth0b "$RXD" veth1b ||
		return 1
	rx_cmd "$RX" "rx veth1" && rx_cmd "$RX" "display script" &&
		rx_cmd "$RXD" "rx veth1b"
}

# snap NS: pgrx of NS into RX_TEXT by cat (4096 streams in display script
# are some MiB, more than the pg_read helper's 1 MiB)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
snap() { RX_TEXT=$(ip netns exec "$1" cat /proc/net/pktgen/pgrx); }

# rxc NS CMD: a command to pgrx of NS, its Result read from the whole file
# (rx_cmd's helper reads 1 MiB, short of the Result after 4096 streams)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
rxc() { rxj_cmd "$@"; }

# unreclaimable slab, KiB (the streams and their histograms are kmalloc'ed)
slab_kb() { awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo; }

# A debug kernel (tests/debug/debug.config: lockdep, KASAN, kmemleak) makes
# every object larger (lockdep's spinlock alone puts a stream, 1 KiB on a
# production kernel, into kmalloc-2k; KASAN adds redzones, kmemleak an
# object of its own per allocation), and KASAN's quarantine keeps freed
# objects a while, in the slab (those of an earlier table too).  There
# only the lower bounds hold, and the memory's return is not measured
# (kmemleak checks for leaks there).
DEBUG_K=0
if [ -e /proc/lockdep ] || grep -qw -e kasan_report -e kmemleak_alloc /proc/kallsyms; then
	DEBUG_K=1
fi
# mem_check WHAT LO_KIB HI_KIB GROW_KIB: the slab grew by LO..HI KiB (a
# production kernel), at least LO KiB (a debug kernel)
mem_check() {
	local what=$1 lo=$2 hi=$3 grow=$4
	if ((DEBUG_K)); then
		check "memory: $what, at least $((lo / 1024)) MiB of slab (debug kernel: no upper bound; grew $grow KiB)" \
			test "$grow" -ge "$lo"
	else
		check "memory: $what, $((lo / 1024))-$((hi / 1024)) MiB of slab (grew $grow KiB)" \
			test "$grow" -ge "$lo" -a "$grow" -le "$hi"
	fi
}

# many DEV NS FIRST COUNT [SECONDS]: rx_many.py from TX to NS's DEV's peer
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
many() {
	local dev=$1 ns=$2 peer
	peer=$([ "$dev" = veth0 ] && echo veth1 || echo veth1b)
	shift 2
	local opt=()
	[[ $1 == --* ]] && { opt=("$1"); shift; }
	ip netns exec "$TX" "$PY" "$MANY" "${opt[@]}" "$dev" "$(mac_of "$ns" "$peer")" "$@"
}

# per_id ID: the frames rx_many.py sends stream ID (1 + ID % 4)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
per_id() { echo $((1 + $1 % 4)); }

# the streams' packets: ids 1..MAX counted, MAX+1..NSTREAMS overflow
want_rx=0 want_over=0
for ((i = 1; i <= NSTREAMS; i++)); do
	if ((i <= MAX)); then
		want_rx=$((want_rx + 1 + i % 4))
	else
		want_over=$((want_over + 1 + i % 4))
	fi
done

# sample_ok: streams of a sample of ids at their index (arrival order,
# id order), each with its own count and numbers, nothing lost
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
sample_ok() {
	local id n args=()
	for id in 1 2 3 4 5 1000 2047 2048 3333 4095 4096; do
		n=$(per_id "$id")
		args+=("s$((id - 1))_stream" "$(printf 'id-%08x' "$id")"
		       "s$((id - 1))_rx_packets" "$n" "s$((id - 1))_first_seq" 1
		       "s$((id - 1))_last_seq" "$n" "s$((id - 1))_lost" 0)
	done
	rx_expect "${args[@]}"
}

rx_begin 24

slab0=$(slab_kb)
# 1. 4100 streams into 4096
check "send $NSTREAMS streams (ids 1..$NSTREAMS, 1-4 frames each)" many veth0 "$RX" 1 "$NSTREAMS"
snap "$RX"
check "streams $MAX of streams_max $MAX, overflow_packets $want_over, rx_packets $want_rx" \
	rx_expect streams "$MAX" streams_max "$MAX" overflow_packets "$want_over" \
	rx_packets "$want_rx" lost 0 duplicates 0 reordered 0
check "a sample of streams: each its own packets, in order of arrival" sample_ok
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "no stream beyond the limit shown (no s${MAX}_, no id-00001001)" eval \
	'! grep -q -e "^s${MAX}_" -e "=id-00001001$" <<<"$RX_TEXT"'
slab1=$(slab_kb)
# statistics time: 1 KiB a stream, 4 KiB its histogram (receiver.rst)
mem_check "$MAX streams with histograms" 16384 28672 $((slab1 - slab0))

# 2. the other displays
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "display json: stream_count $MAX, streams_max $MAX, equal to display script" eval '
	ip netns exec "$RX" cat /proc/net/pktgen/pgrx >"$D/big.txt" &&
	rxj_cmd "$RX" "display json" &&
	ip netns exec "$RX" cat /proc/net/pktgen/pgrx >"$D/big.json" &&
	[ "$("$PY" "$CHECK" keys "$D/big.json" stream_count)" = "$MAX" ] &&
	[ "$("$PY" "$CHECK" keys "$D/big.json" streams_max)" = "$MAX" ] &&
	"$PY" "$CHECK" compare "$D/big.txt" "$D/big.json"'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "display json read in 4093-byte reads: the same object" eval '
	ip netns exec "$RX" dd if=/proc/net/pktgen/pgrx bs=4093 status=none >"$D/dd.json" &&
	"$PY" "$CHECK" same "$D/big.json" "$D/dd.json"'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "display human: streams $MAX/$MAX, $MAX rows in each of the 3 tables" eval '
	rxj_cmd "$RX" "display human" &&
	ip netns exec "$RX" cat /proc/net/pktgen/pgrx >"$D/big.human" &&
	grep -q "streams: $MAX/$MAX  overflow packets: $want_over" "$D/big.human" &&
	[ "$(grep -c "^[0-9][0-9]* " "$D/big.human")" = $((3 * MAX)) ] &&
	[ "$(grep -c "^all " "$D/big.human")" = 3 ] && tail -1 "$D/big.human" | grep -q "^Result: "'
check "display script" rxc "$RX" "display script"

# 3. statistics counter: streams without histograms (1 KiB each)
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "statistics counter, rx_reset, $NSTREAMS streams: $MAX, overflow $want_over" eval '
	rxc "$RX" "statistics counter" && rxc "$RX" rx_reset &&
	many veth0 "$RX" 1 "$NSTREAMS" >/dev/null && snap "$RX" &&
	rx_expect streams "$MAX" overflow_packets "$want_over" rx_packets "$want_rx"'
mem_check "$MAX streams without histograms" 2048 8192 $(($(slab_kb) - slab0))
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "statistics time: histograms for the $MAX streams there, then counted" eval '
	rxc "$RX" "statistics time" && many veth0 "$RX" --seq0=10 1 8 >/dev/null &&
	snap "$RX" &&
	rx_expect s0_latency_samples 2 s7_latency_samples 1 &&
	[ "$(rx_val s0_latency_p50_ns)" -gt 0 ]'
# the histograms stay allocated under basic but are neither counted nor shown
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "statistics basic: latencies counted, no percentile, every histogram empty" eval '
	rxc "$RX" "statistics basic" && many veth0 "$RX" --seq0=20 1 8 >/dev/null &&
	snap "$RX" && rx_expect s0_latency_samples 4 s0_latency_p50_ns 0 s7_latency_p99_ns 0 \
		latency_p50_ns 0 latency_p999_ns 0 &&
	rxc "$RX" "display json" &&
	ip netns exec "$RX" cat /proc/net/pktgen/pgrx >"$D/basic.json" &&
	rxc "$RX" "display script" && rxc "$RX" "statistics time" &&
	"$PY" -c "import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(d[\"statistics\"] != \"basic\" or bool(d[\"total\"][\"histogram\"]) or
         any(s[\"histogram\"] for s in d[\"streams\"]))" "$D/basic.json"'

# 4. traffic of 5000 streams during rx_reset, settings and reads
many veth0 "$RX" 1 5000 20 >"$D/storm.out" &
storm=$!
defer kill "$storm"
# storm_records: each record of storm.json (read during traffic, under
# statistics time) of one moment: its buckets add up to its latency_samples
# and give its percentiles
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
storm_records() {
	"$PY" "$HIST" --percentiles --check "$D/storm.json" >"$D/storm.hist" && return 0
	grep "^# " "$D/storm.hist" | head -n 5
	return 1
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
storm_cmds() {
	local i
	for i in 1 2 3 4; do
		rxc "$RX" rx_reset && rxc "$RX" "sample 1" &&
			rxc "$RX" "display json" &&
			ip netns exec "$RX" cat /proc/net/pktgen/pgrx >"$D/storm.json" &&
			"$PY" -c 'import json, sys; json.load(open(sys.argv[1]))' "$D/storm.json" &&
			storm_records &&
			ip netns exec "$RX" cat /proc/net/pktgen/pgrx_samples >/dev/null &&
			rxc "$RX" "statistics basic" && rxc "$RX" "display script" &&
			snap "$RX" && rxc "$RX" "statistics time" &&
			rxc "$RX" "sample 0" || return 1
		[ "$(rx_val streams)" -le "$MAX" ] || return 1
	done
}
check "during traffic: rx_reset, sample, statistics and reads x 4 (valid json, each record of one moment)" \
	storm_cmds
wait "$storm"
check "the traffic ran (rx_many.py: $(tail -n 1 "$D/storm.out" 2>/dev/null))" \
	grep -q "^sent [1-9]" "$D/storm.out"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "after it: rx_reset, $NSTREAMS streams: $MAX, overflow $want_over, exact" eval '
	rxc "$RX" rx_reset && many veth0 "$RX" 1 "$NSTREAMS" >/dev/null && snap "$RX" &&
	rx_expect streams "$MAX" overflow_packets "$want_over" rx_packets "$want_rx" && sample_ok'

# 5. ids that share one probe chain under the receiver's former hash
# (jhash, seed 0): with it each of their packets walked up to 4096 slots
# (about 1800 on average), with a probe limit but no hash key all but
# about 32 of them would be refused; with the keyed hash they are counted
# like any ids, each in its own stream, and as fast as consecutive ones.
# The time is the sender's: on veth the hook runs inside its send.
ROUNDS=8
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
collide() {
	ip netns exec "$TX" "$PY" "$COLLIDE" veth0 "$(mac_of "$RX" veth1)" "$MAX" "$ROUNDS" "$1"
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
collide_run() {
	local out
	rxc "$RX" rx_reset && out=$(collide "$1") && snap "$RX" || return 1
	secs=${out##* }
	echo "# $1: $out"
	rx_expect streams "$MAX" overflow_packets 0 rx_packets $((MAX * ROUNDS)) lost 0 \
		duplicates 0 &&
		[ "$(grep -c "^s[0-9]*_rx_packets=$ROUNDS\$" <<<"$RX_TEXT")" = "$MAX" ] &&
		[ "$(grep -c "^s[0-9]*_last_seq=$ROUNDS\$" <<<"$RX_TEXT")" = "$MAX" ]
}
rxc "$RX" "statistics counter" >/dev/null
secs=0
check_here "$MAX consecutive ids x $ROUNDS: each its own stream, exact" collide_run plain
plain1=$secs
check_here "$MAX ids colliding under the old hash x $ROUNDS: each its own stream, no overflow" \
	collide_run collide
coll=$secs
check_here "$MAX consecutive ids again" collide_run plain
plain2=$secs
# the colliding ids at most 3 times as slow as the slower consecutive run, + 1 s
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "colliding ids cost about what consecutive ones do (${coll} s, ${plain1} s, ${plain2} s)" \
	awk -v c="$coll" -v a="$plain1" -v b="$plain2" \
	'BEGIN { m = a > b ? a : b; exit !(c > 0 && m > 0 && c <= 3 * m + 1) }'
rxc "$RX" "statistics time" >/dev/null

# 6. a namespace with full tables deleted during traffic: its memory returns
check "RXD: $NSTREAMS streams" many veth0b "$RXD" 1 "$NSTREAMS"
many veth0b "$RXD" 1 5000 10 >"$D/del.out" &
del=$!
defer kill "$del"
slowwait 30 grep -q sending "$D/del.out"
sleep 1
check "delete RXD during traffic" ip netns del "$RXD"
wait "$del"
check "the traffic ran into the deletion (rx_many.py: $(tail -n 1 "$D/del.out"))" \
	grep -q "^sent [1-9][0-9]* failed [1-9]" "$D/del.out"
if ((DEBUG_K)); then
	ktap_skip "RX reset, RXD gone: slab back within 4 MiB of the start" \
		"debug kernel: KASAN's quarantine holds freed objects (kmemleak checks leaks)"
else
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	check "RX reset, RXD gone: slab back within 4 MiB of the start" eval \
		'rxc "$RX" rx_reset && slowwait 60 eval "[ \$((\$(slab_kb) - slab0)) -le 4096 ]"'
fi

ktap_finish
