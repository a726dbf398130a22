#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proc fuzzer: FUZZ_WRITES (100000) random and mutated writes to every file
# of /proc/net/pktgen from FUZZ_PROCS (4) processes at once (tests/lib/
# pgfuzz.c: valid commands with broken values, huge and empty buffers,
# binary bytes, partial words, no newline), while a runner adds a device,
# starts and stops runs.  Reads on the way must be printable text without
# kernel pointers.  Afterwards the module must still do a clean run; the
# test runner then unloads it and scans kmemleak and dmesg.
#
#   netns $NS: d0, d1 (dummy), v0 -- veth -- v1 (netns $NS2)
# test-timeout: 1200
# suite: stress
. "$(dirname "$0")/lib/lib.sh"

FUZZ_WRITES=${FUZZ_WRITES:-100000}
FUZZ_PROCS=${FUZZ_PROCS:-4}
# the time limit follows the runner's (check-debug raises it: the debug
# kernel under TCG does ~50 writes/s)
FUZZ_SECONDS=${FUZZ_SECONDS:-$(( ${TEST_TIMEOUT:-0} > 1200 ? TEST_TIMEOUT - 300 : 900 ))}
FUZZ_SEED=${FUZZ_SEED:-$SRANDOM}

ktap_header
ktap_plan 8

tmp=$(lib_tmpdir)
PGFUZZ=$(lib_prog pgfuzz 2>&1)
check "pgfuzz built (make helpers)" test -x "$PGFUZZ"
if ! pg_load; then
	ktap_fail "module loads"
	ktap_finish
fi
ktap_pass "module loads"

pin_static_keys
setup_ns NS
setup_ns NS2
dummy_create "$NS" d0
dummy_create "$NS" d1
veth_create "$NS" v0 "$NS2" v1

# one line per command of every file: the fuzzer mutates these
corpus() {
	local c
	for c in start stop reset; do echo "pgctrl $c"; done
	for c in "add_device d0" "add_device d1" "add_device v0" "add_device v0@1" \
		 "add_device d0@7" "add_device lo" rem_device_all "max_before_softirq 100"; do
		echo "thread $c"
	done
	while read -r c; do
		echo "dev $c"
	done <<-'EOF'
	count 1000
	count 0
	clone_skb 10
	burst 32
	pkt_size 1500
	min_pkt_size 60
	max_pkt_size 9000
	imix_weights 64,7 576,4 1500,1
	frags 4
	delay 1000
	rate 100
	ratep 10000
	duration 1
	debug 0
	dst 198.18.0.1
	dst_min 198.18.0.1
	dst_max 198.18.255.254
	src_min 10.0.0.1
	src_max 10.0.0.254
	dst6 2001:db8::1
	dst6_min 2001:db8::1
	dst6_max 2001:db8::ffff
	src6 2001:db8:1::1
	dst_mac 02:00:00:00:00:01
	src_mac 02:00:00:00:00:02
	src_mac_count 16
	dst_mac_count 16
	udp_src_min 9
	udp_src_max 1009
	udp_dst_min 9
	udp_dst_max 1009
	queue_map_min 0
	queue_map_max 3
	tos 10
	traffic_class 20
	skb_priority 7
	mpls 0001000a,0002000b
	vlan_id 100
	vlan_p 3
	vlan_cfi 1
	svlan_id 200
	svlan_p 5
	svlan_cfi 0
	flows 1024
	flowlen 8
	spi 256
	node 0
	xmit_mode netif_receive
	xmit_mode queue_xmit
	xmit_mode start_xmit
	flag IPV6
	flag !IPV6
	flag IPSRC_RND
	flag UDPCSUM
	flag QUEUE_MAP_CPU
	flag FLOW_SEQ
	flag IPSEC
	flag NODE
	flag !SHARED
	clear_counters
	ip_opt rr:4
	ip_opt ts:3
	ip_opt lsrr:10.0.0.1,10.0.0.2
	ip_opt ra
	ip_opt hex:94040000
	ip_opt none
	EOF
	for c in "rx v1" "rx v0" "rx d0" "rx_disable v0" rx_disable rx_reset \
		 "statistics counter" "statistics basic" "statistics time" \
		 "display script" "display human"; do
		echo "pgrx $c"
	done
	for c in on off reset "verdict rr drop" "verdict ts queue:3 bypass" \
		 "verdict any accept" "display script"; do
		echo "ipopt $c"
	done
}
corpus >"$tmp/corpus"

# the runner: add d0 on thread 0, a short run, stop; until told to end
runner() {
	local n=0
	while [ ! -e "$tmp/end" ]; do
		pg_write kpktgend_0 "add_device d0"
		pg_write d0 "count 20000"
		timeout -s INT 2 ip netns exec "$NS" \
			sh -c 'echo start > /proc/net/pktgen/pgctrl' 2>/dev/null
		pg_write pgctrl stop
		n=$((n + 1))
		echo "$n" >"$tmp/runs"
	done
}
_pgw_init
_PG_NS=$NS runner &
runner_pid=$!

ktap_diag "pgfuzz: seed $FUZZ_SEED, $FUZZ_WRITES writes, $FUZZ_PROCS processes"
t0=$SECONDS
ip netns exec "$NS" "$PGFUZZ" -d "$PG_PROC" -c "$tmp/corpus" -s "$FUZZ_SEED" \
	-w "$FUZZ_WRITES" -p "$FUZZ_PROCS" -t "$FUZZ_SECONDS" >"$tmp/fuzz.out" 2>"$tmp/fuzz.err"
frc=$?
touch "$tmp/end"
wait "$runner_pid"
ktap_diag "$(cat "$tmp/fuzz.out")"
ktap_diag "$(sort "$tmp/fuzz.err" | uniq -c | sort -rn | head -n 20)"
ktap_diag "$((SECONDS - t0)) s; runs started and stopped meanwhile: $(cat "$tmp/runs" 2>/dev/null)"

# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
read -r _ writes _ reads _ bad _ overlong _ < <(grep '^writes ' "$tmp/fuzz.out")
check "pgfuzz: $FUZZ_WRITES writes done" test "${writes:-0}" -ge "$FUZZ_WRITES"
check "pgfuzz: every read was text without kernel pointers, no write over-long" \
	test "$frc" -eq 0 -a "${bad:-1}" -eq 0 -a "${overlong:-1}" -eq 0
check "the runner ran meanwhile" test "$(cat "$tmp/runs" 2>/dev/null || echo 0)" -gt 0

# still a working pktgen: reset, a 1000-packet run on d1
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
clean_run() {
	local tx0 tx1 res
	pg_write pgctrl reset || return 1
	pg_set kpktgend_0 "add_device d1" &&
		pg_set d1 "count 1000" && pg_set d1 "pkt_size 60" &&
		pg_set d1 "dst 198.18.0.1" && pg_set d1 "dst_mac 02:00:00:00:00:01" ||
		return 1
	tx0=$(cat /sys/class/net/d1/statistics/tx_packets)
	pg_write pgctrl start || return 1
	tx1=$(cat /sys/class/net/d1/statistics/tx_packets)
	res=$(pg_result d1)
	[[ "$res" == "OK: "* ]] && [ $((tx1 - tx0)) -eq 1000 ] && return 0
	echo "after the fuzzing: Result '$res', d1 sent $((tx1 - tx0))"
	return 1
}
check "afterwards: reset and a clean 1000-packet run" in_ns "$NS" clean_run

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
files_ok() {
	local want have
	# shellcheck disable=SC2010,SC2012 # the names of /proc/net/pktgen: no odd characters
	want=$( { printf "%s\n" pgctrl d1; ls "$PG_PROC" | grep '^kpktgend_'; pg_own_files; } | sort)
	# shellcheck disable=SC2012 # the names of /proc/net/pktgen: no odd characters
	have=$(ls "$PG_PROC" | sort)
	[ "$want" = "$have" ] && return 0
	echo "files:"
	ls -b "$PG_PROC"
	return 1
}
check "afterwards: only pgctrl, the threads, d1 (and ours) in the proc dir" \
	in_ns "$NS" files_ok

ktap_finish
