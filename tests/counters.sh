#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run counters and the Result statistics, on a dummy device (no capture):
# pkts-sofar / errors / seq_num, the dummy's tx_packets / tx_bytes, the
# exact Result format and its arithmetic, clone_skb, burst, clear_counters,
# stop from another process, delay / ratep, !SHARED, device down mid-run.
#
#   netns NS:  pktgen device "dum0" --> dum0 (dummy, up, IPv6 off)

. "$(dirname "$0")/lib/lib.sh"

DEV=dum0

tx_stat() { ns_cat "$NS" "/sys/class/net/$DEV/statistics/tx_$1"; }
dev_file() { in_ns "$NS" pg_read "$DEV"; }
sofar() { dev_file | sed -n 's/^     pkts-sofar: \([0-9]*\)  errors: .*/\1/p'; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
running() { [ "$(sofar)" -gt 0 ] 2>/dev/null; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
set_all() {	# CMD...: pg_set each on the device (prints the failure)
	local c
	for c in "$@"; do
		in_ns "$NS" pg_set "$DEV" "$c" || return 1
	done
}

# start_fg: `echo start > pgctrl` in NS, bounded (SIGINT after 60 s stops
# pktgen, then the exit status is 124).
start_fg() {
	timeout -s INT 60 ip netns exec "$NS" \
		sh -c 'echo start > /proc/net/pktgen/pgctrl'
}

# start_bg: the same in the background; START_PID = its pid.
start_bg() {
	start_fg &
	START_PID=$!
	defer kill -INT "$START_PID"
}

# run_counted LABEL N SIZE: start in the foreground with count N already
# set; checks start, pkts-sofar/errors, tx_packets and tx_bytes deltas.
run_counted() {
	local lab=$1 n=$2 size=$3 p0 b0 p1 b1 rc=0
	p0=$(tx_stat packets) b0=$(tx_stat bytes)
	start_fg || rc=$?
	p1=$(tx_stat packets) b1=$(tx_stat bytes)
	FILE=$(dev_file)
	check "$lab: start returned 0" test "$rc" -eq 0
	check "$lab: pkts-sofar $n errors 0" \
		grep -q "^     pkts-sofar: $n  errors: 0\$" <<<"$FILE"
	check "$lab: dummy tx_packets grew by $n" test $((p1 - p0)) -eq "$n"
	[ -n "$size" ] &&
		check "$lab: dummy tx_bytes grew by $n*$size" \
			test $((b1 - b0)) -eq $((n * size))
	return 0
}

# Result parsing: RES_T RES_C RES_D RES_N RES_SIZE RES_FRAGS RES_PPS RES_MB
# RES_BPS RES_ERR from the device file in $FILE.
RESULT_RE='^Result: OK: ([0-9]+)\(c([0-9]+)\+d([0-9]+)\) usec, ([0-9]+) \(([0-9]+)byte,(-?[0-9]+)frags\)'$'\n''  ([0-9]+)pps ([0-9]+)Mb/sec \(([0-9]+)bps\) errors: ([0-9]+)$'
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
parse_result() {
	local res
	res=$(sed -n '/^Result: /,$p' <<<"$FILE")
	if [[ $res =~ $RESULT_RE ]]; then
		RES_T=${BASH_REMATCH[1]} RES_C=${BASH_REMATCH[2]}
		RES_D=${BASH_REMATCH[3]} RES_N=${BASH_REMATCH[4]}
		RES_SIZE=${BASH_REMATCH[5]} RES_FRAGS=${BASH_REMATCH[6]}
		RES_PPS=${BASH_REMATCH[7]} RES_MB=${BASH_REMATCH[8]}
		RES_BPS=${BASH_REMATCH[9]} RES_ERR=${BASH_REMATCH[10]}
		return 0
	fi
	echo "Result does not parse:"
	echo "$res"
	return 1
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
result_fields() {	# N SIZE FRAGS
	parse_result || return 1
	[ "$RES_N" = "$1" ] && [ "$RES_SIZE" = "$2" ] && [ "$RES_FRAGS" = "$3" ] &&
		[ "$RES_ERR" = 0 ] && return 0
	echo "N=$RES_N size=$RES_SIZE frags=$RES_FRAGS errors=$RES_ERR, want $1 $2 $3 0"
	return 1
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
result_arith() {	# SIZE: c+d ~ T, bps = pps*8*size, Mb = bps/1e6, pps ~ N/T
	local lo hi
	parse_result || return 1
	if [ $((RES_C + RES_D - RES_T)) -lt -1 ] || [ $((RES_C + RES_D - RES_T)) -gt 1 ]; then
		echo "c$RES_C + d$RES_D vs $RES_T usec"
		return 1
	fi
	[ "$RES_BPS" -eq $((RES_PPS * 8 * $1)) ] ||
		{ echo "bps $RES_BPS != pps $RES_PPS * 8 * $1"; return 1; }
	[ "$RES_MB" -eq $((RES_BPS / 1000000)) ] ||
		{ echo "Mb/sec $RES_MB != $RES_BPS / 1000000"; return 1; }
	# elapsed_ns is in [T*1000, T*1000+999] and pps = N*1e9/elapsed_ns
	[ "$RES_T" -gt 0 ] || { echo "elapsed 0 usec"; return 1; }
	lo=$((RES_N * 1000000000 / ((RES_T + 1) * 1000)))
	hi=$((RES_N * 1000000000 / (RES_T * 1000)))
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[ "$RES_PPS" -ge "$lo" ] && [ "$RES_PPS" -le "$hi" ] ||
		{ echo "pps $RES_PPS not in [$lo, $hi] for $RES_N pkts in $RES_T usec"; return 1; }
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_load || return 1
	setup_ns NS || return 1
	dummy_create "$NS" "$DEV" || return 1
	THR=$(pg_first_thread "$NS") || return 1
	in_ns "$NS" pg_write "$THR" "add_device $DEV" || return 1
	HAS_SHARED=no
	if pg_is_ours || dev_file | grep -q '^     Flags: .*SHARED'; then
		HAS_SHARED=yes
	fi
}

TMP=$(mktemp -d /tmp/counters.XXXXXX)
defer rm -rf "$TMP"

ktap_header
ktap_plan 48

ktap_setup setup

# 1. count 1000 x 60 bytes: counters, seq_num and the Result text.
N=1000
check "set count $N, pkt_size 60" set_all "count $N" "pkt_size 60" \
	"dst 10.99.0.2"
run_counted "count $N" "$N" 60
check "count $N: seq_num $((N + 1))" \
	grep -q "^     seq_num: $((N + 1))  " <<<"$FILE"
check "count $N: Result 'OK: T(cC+dD) usec, $N (60byte,0frags)' + pps line, errors 0" \
	result_fields "$N" 60 0
check "count $N: Result c+d within 1 of T, bps = pps*8*60, Mb = bps/1e6, pps = N/T" \
	result_arith 60

# 1b. the MAC counts as Params shows them (params-diff compares them with
# the stock module's; this holds without it)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
mac_counts() {	# SRC DST
	set_all "src_mac_count $1" "dst_mac_count $2" || return 1
	dev_file | grep -qx "     src_mac_count: $1  dst_mac_count: $2" && return 0
	dev_file | grep mac_count
	return 1
}
check "Params: src_mac_count 3, dst_mac_count 5" mac_counts 3 5
check "Params: src_mac_count 0, dst_mac_count 0 again" mac_counts 0 0

# 2. clone_skb 100: every skb sent 100 times, still exactly count packets.
check "set clone_skb 100" set_all "clone_skb 100"
run_counted "clone_skb 100, count $N" "$N" 60

# 3. burst 16 with count 1024.
check "set clone_skb 0, burst 16, count 1024" set_all "clone_skb 0" \
	"burst 16" "count 1024"
run_counted "burst 16, count 1024" 1024 60

# 4. clear_counters after a run.
check "clear_counters: Result OK" set_all "clear_counters"
FILE=$(dev_file)
check "clear_counters: pkts-sofar 0 errors 0, seq_num 1" \
	grep -Pzq '\n     pkts-sofar: 0  errors: 0\n(.*\n)?     seq_num: 1  ' <<<"$FILE"

# 5. count 0 (infinite), `stop` written by another process.
check "set burst 1, count 0, clear_counters" set_all "burst 1" "count 0" \
	"clear_counters"
p0=$(tx_stat packets)
start_bg
check "count 0: running (pkts-sofar > 0)" slowwait 30 running
check "count 0: stop written from another process" in_ns "$NS" pg_write pgctrl stop
check_start_returned "count 0 + stop: start returned"
p1=$(tx_stat packets)
FILE=$(dev_file)
s=$(sofar)
check "count 0 + stop: Result OK with N = pkts-sofar, errors 0" \
	result_fields "${s:-x}" 60 0
check "count 0 + stop: dummy tx_packets grew by pkts-sofar" \
	test $((p1 - p0)) -eq "${s:--1}"

# 6. delay and ratep: the run finishes (no timing assertion).
check "set count 50, delay 100000" set_all "count 50" "delay 100000"
run_counted "delay 100000 ns, count 50" 50 ""
check "set ratep 1000" set_all "ratep 1000"
run_counted "ratep 1000, count 50" 50 ""

# 7. flag !SHARED: pktgen does not keep a reference to the skb, so the
# Result reports -1 frags (no current skb), as the stock module does.  The
# SHARED flag exists since 6.7: skipped with the stock module of older
# kernels (a fresh device shows "Flags: SHARED" where it exists).
if [ "$HAS_SHARED" = yes ]; then
	check "set delay 0, count $N, flag !SHARED" set_all "delay 0" \
		"count $N" "flag !SHARED"
	run_counted "!SHARED, count $N" "$N" 60
	check "!SHARED: Result OK: ..., $N (60byte,-1frags), errors 0" \
		result_fields "$N" 60 -1
	SHARED_ON=("flag SHARED")
else
	for t in "set delay 0, count $N, flag !SHARED" \
		"!SHARED, count $N: start returned 0" \
		"!SHARED, count $N: pkts-sofar $N errors 0" \
		"!SHARED, count $N: dummy tx_packets grew by $N" \
		"!SHARED, count $N: dummy tx_bytes grew by $N*60" \
		"!SHARED: Result OK: ..., $N (60byte,-1frags), errors 0"; do
		ktap_skip "$t" "stock pktgen of $(uname -r) has no SHARED flag"
	done
	SHARED_ON=("delay 0")
fi

# 8. the device goes down mid-run: the run stops, start returns.
check "set ${SHARED_ON[*]}, count 0, clear_counters" set_all "${SHARED_ON[@]}" \
	"count 0" "clear_counters"
start_bg
check "device down: running before" slowwait 30 running
check "device down: ip link set $DEV down" ip -n "$NS" link set "$DEV" down
check_start_returned "device down: start returned"
FILE=$(dev_file)
s=$(sofar)
check "device down: Result OK with N = pkts-sofar > 0" \
	result_fields "${s:-x}" 60 0
check "device down: pkts-sofar > 0" test "${s:-0}" -gt 0

ktap_finish
