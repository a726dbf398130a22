#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Races, each for RACE_SECONDS (20) and counted:
#  1. add_device / rem_device_all / start / stop / reset from four
#     processes at once (tests/lib/pgfuzz.c -L);
#  2. rename, then delete the bound device during a run;
#  3. delete the netns during a run;
#  4. rmmod during a run;
#  5. CPU 1 offline and online again during a run on kpktgend_1.
# After each, pktgen must be in a clean state; the test runner then
# unloads it and scans kmemleak and dmesg.
#
#   netns $NS: d0, d1 (dummy); netns per round for 3.
# test-timeout: 900
# suite: stress
. "$(dirname "$0")/lib/lib.sh"

RACE_SECONDS=${RACE_SECONDS:-20}

ktap_header
ktap_plan 12

tmp=$(lib_tmpdir)
PGFUZZ=$(lib_prog pgfuzz 2>&1)
check "pgfuzz built (make helpers)" test -x "$PGFUZZ"
if ! pg_load; then
	ktap_fail "module loads"
	ktap_finish
fi
ktap_pass "module loads"
_pgw_init
setup_ns NS
dummy_create "$NS" d0
dummy_create "$NS" d1

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
sofar() {	# DEV [NS]
	_PG_NS=${2:-$NS} pg_read "$1" 2>/dev/null |
		sed -n 's/^     pkts-sofar: \([0-9]*\)  errors: .*/\1/p'
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
running() { [ "$(sofar "$@")" -gt 0 ] 2>/dev/null; }

# start_bg NS: a bounded `echo start > pgctrl` in NS; START_PID
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
start_bg() {
	timeout -k 5 -s INT 30 ip netns exec "$1" \
		sh -c 'echo start > /proc/net/pktgen/pgctrl' 2>/dev/null &
	START_PID=$!
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
start_returns() {	# within 15 s
	slowwait 15 pid_gone "$START_PID" || { echo "start still blocked"; return 1; }
	wait "$START_PID" 2>/dev/null
	return 0
}

# a clean state: reset works, only the base files remain, a run sends
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
clean_state() {
	local want have tx0 tx1
	_PG_NS=$NS pg_write pgctrl reset || { echo "reset failed"; return 1; }
	# shellcheck disable=SC2010 # the names of /proc/net/pktgen: no odd characters
	want=$( { echo pgctrl; ls "$PG_PROC" | grep '^kpktgend_'; pg_own_files; } | sort)
	have=$(ip netns exec "$NS" ls "$PG_PROC" | sort)
	[ "$want" = "$have" ] || { echo "files after reset: ${have//$'\n'/ }"; return 1; }
	_PG_NS=$NS pg_set kpktgend_0 "add_device d0" &&
		_PG_NS=$NS pg_set d0 "count 500" &&
		_PG_NS=$NS pg_set d0 "dst_mac 02:00:00:00:00:01" || return 1
	tx0=$(ip netns exec "$NS" cat /sys/class/net/d0/statistics/tx_packets)
	_PG_NS=$NS pg_write pgctrl start || { echo "start failed"; return 1; }
	tx1=$(ip netns exec "$NS" cat /sys/class/net/d0/statistics/tx_packets)
	[ $((tx1 - tx0)) -eq 500 ] || { echo "sent $((tx1 - tx0)), want 500"; return 1; }
	_PG_NS=$NS pg_write pgctrl reset
}

# --- 1. add/rem/start/stop/reset from four processes
printf '%s\n' "kpktgend_0 add_device d0" "kpktgend_1 add_device d1" \
	"d0 count 0" "d1 count 0" "kpktgend_0 add_device d1@3" "d1@3 count 100" >"$tmp/add"
printf '%s\n' "kpktgend_0 rem_device_all" "kpktgend_1 rem_device_all" >"$tmp/rem"
printf '%s\n' "pgctrl start" >"$tmp/start"
printf '%s\n' "pgctrl stop" "pgctrl stop" "pgctrl reset" >"$tmp/stop"
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
race_writers() {
	local l pids=() rc=0
	for l in add rem start stop; do
		ip netns exec "$NS" "$PGFUZZ" -d "$PG_PROC" -L "$tmp/$l" -p 1 \
			-w 100000000 -t "$RACE_SECONDS" >"$tmp/race-$l.out" 2>&1 &
		pids+=($!)
	done
	for l in "${pids[@]}"; do
		wait "$l" || rc=1
	done
	for l in add rem start stop; do
		echo "$l: $(head -n 2 "$tmp/race-$l.out" | tail -n 1)"
	done
	return "$rc"
}
check "racing add_device/rem_device_all/start/stop/reset for ${RACE_SECONDS}s" race_writers
ktap_diag "$(cat "$tmp"/race-*.out | grep '^writes')"
check "afterwards: clean state and a 500-packet run" clean_state

# --- 2. rename, then delete the bound device during a run
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
rename_delete() {
	local i=0 end=$((SECONDS + RACE_SECONDS)) a b
	while [ "$SECONDS" -lt "$end" ]; do
		i=$((i + 1)) a=ra$i b=rb$i
		ip -n "$NS" link add "$a" up type dummy || return 1
		_PG_NS=$NS pg_set kpktgend_1 "add_device $a" &&
			_PG_NS=$NS pg_set "$a" "count 0" || return 1
		start_bg "$NS"
		slowwait 10 running "$a" || { echo "round $i: not running"; return 1; }
		ip -n "$NS" link set "$a" name "$b" 2>/dev/null ||
			{ ip -n "$NS" link set "$a" down && ip -n "$NS" link set "$a" name "$b"; } ||
			{ echo "round $i: rename failed"; return 1; }
		timeout 10 ip -n "$NS" link del "$b" || { echo "round $i: link del hung"; return 1; }
		start_returns || { echo "round $i"; return 1; }
		slowwait 5 eval "! ip netns exec $NS test -e $PG_PROC/$a" ||
			{ echo "round $i: file $a left"; return 1; }
	done
	echo "$i rounds" >"$tmp/rounds-rename"
}
check "rename and delete the bound device during a run, ${RACE_SECONDS}s" rename_delete
ktap_diag "rename/delete: $(cat "$tmp/rounds-rename" 2>/dev/null)"
check "afterwards: clean state and a 500-packet run" clean_state

# --- 3. delete the netns during a run
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
netns_delete() {
	local i=0 end=$((SECONDS + RACE_SECONDS)) k0 x
	k0=$(pg_kthreads)
	while [ "$SECONDS" -lt "$end" ]; do
		i=$((i + 1)) x=pgt-r$(printf '%08x' "$SRANDOM")
		ip netns add "$x" && ip -n "$x" link add x0 up type dummy || return 1
		# shellcheck disable=SC2015 # the || branch is meant for a failure of either
		_PG_NS=$x pg_set kpktgend_0 "add_device x0" && _PG_NS=$x pg_set x0 "count 0" ||
			{ ip netns del "$x"; return 1; }
		start_bg "$x"
		slowwait 10 running x0 "$x" || { echo "round $i: not running"; ip netns del "$x"; return 1; }
		ip netns del "$x"
		kill -INT "$START_PID"
		start_returns || { echo "round $i"; return 1; }
		# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
		slowwait 30 eval '[ "$(pg_kthreads)" -eq "$k0" ]' ||
			{ echo "round $i: $(pg_kthreads) kpktgend threads, want $k0"; return 1; }
	done
	echo "$i rounds" >"$tmp/rounds-netns"
}
check "delete the netns during a run, ${RACE_SECONDS}s" netns_delete
ktap_diag "netns delete: $(cat "$tmp/rounds-netns" 2>/dev/null)"
check "afterwards: clean state and a 500-packet run" clean_state

# --- 4. rmmod during a run
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
rmmod_running() {
	local i=0 end=$((SECONDS + RACE_SECONDS))
	while [ "$SECONDS" -lt "$end" ]; do
		i=$((i + 1))
		pg_load || return 1
		_PG_NS=$NS pg_set kpktgend_0 "add_device d0" && _PG_NS=$NS pg_set d0 "count 0" &&
			_PG_NS=$NS pg_set kpktgend_1 "add_device d1" && _PG_NS=$NS pg_set d1 "count 0" ||
			return 1
		start_bg "$NS"
		slowwait 10 running d0 || { echo "round $i: not running"; return 1; }
		timeout 30 rmmod pktgen || { echo "round $i: rmmod failed"; return 1; }
		start_returns || { echo "round $i"; return 1; }
	done
	echo "$i rounds" >"$tmp/rounds-rmmod"
}
if pg_is_ours; then
	check "rmmod during a run, ${RACE_SECONDS}s" rmmod_running
else
	ktap_skip "rmmod during a run" "stock: start holds a module reference"
fi
ktap_diag "rmmod: $(cat "$tmp/rounds-rmmod" 2>/dev/null)"
check "afterwards: load, clean state and a 500-packet run" eval 'pg_load && clean_state'

# --- 5. CPU 1 offline and online during a run on kpktgend_1
CPU1=/sys/devices/system/cpu/cpu1/online
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
cpu_toggle() {
	local i=0 end=$((SECONDS + RACE_SECONDS)) n0 n1 res
	_PG_NS=$NS pg_set kpktgend_1 "add_device d1" && _PG_NS=$NS pg_set d1 "count 0" || return 1
	start_bg "$NS"
	slowwait 10 running d1 || { echo "not running"; return 1; }
	while [ "$SECONDS" -lt "$end" ]; do
		i=$((i + 1))
		echo 0 >"$CPU1" || { echo "round $i: offline failed"; return 1; }
		sleep 0.2
		echo 1 >"$CPU1" || { echo "round $i: online failed"; return 1; }
		# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
		n0=$(sofar d1)
		# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
		slowwait 10 eval '[ "$(sofar d1)" -gt "$n0" ]' ||
			{ echo "round $i: the run stopped sending"; return 1; }
	done
	_PG_NS=$NS pg_write pgctrl stop
	start_returns || return 1
	res=$(_PG_NS=$NS pg_result d1)
	[[ "$res" == "OK: "* ]] || { echo "Result: $res"; return 1; }
	# every kpktgend_1 (one per netns) is bound to CPU 1 again
	for n1 in $(pgrep '^kpktgend_1$'); do
		grep -q '^Cpus_allowed_list:[[:space:]]*1$' "/proc/$n1/status" && continue
		echo "kpktgend_1 (pid $n1) after the last online: $(grep Cpus_allowed_list "/proc/$n1/status")"
		return 1
	done
	echo "$i rounds" >"$tmp/rounds-cpu"
}
if [ -w "$CPU1" ]; then
	check "CPU 1 offline/online during a run, ${RACE_SECONDS}s" cpu_toggle
	echo 1 >"$CPU1" 2>/dev/null
else
	ktap_skip "CPU 1 offline/online during a run" "no $CPU1"
fi
ktap_diag "cpu offline/online: $(cat "$tmp/rounds-cpu" 2>/dev/null)"
check "afterwards: clean state and a 500-packet run" clean_state

ktap_finish
