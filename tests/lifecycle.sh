#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lifecycle: what happens to pktgen devices and runs when the net_device,
# the namespace or the module goes away underneath them.  Every case ends
# with `start` returned (every wait is bounded), the pktgen file gone where
# expected and the module unloadable; the runner scans dmesg for splats.
#
#   netns NS:   dummy devices (one per case) bound to pktgen on the first
#               kpktgend_N thread
#   netns NSX:  (netns cases) a dummy bound to pktgen, then `ip netns del`
#
# Stock behaviour asserted (differs from a naive reading of the spec):
# - `rmmod pktgen` is refused (EBUSY, "in use") while `echo start >
#   pgctrl` is blocked: the waiting writer holds a module reference.
#   After `stop` the start returns and rmmod works.
# - `ip netns del` only drops the name: the writer blocked in `start`
#   keeps the namespace (and the run) alive until it is interrupted.
# - a rename re-creates the device file under the new net_device name.
#   Stock then never releases the renamed net_device on unregister (it
#   looks pktgen devices up by the name given to add_device): `ip link del`
#   of the renamed device would hang, so with the stock module that subtest
#   is skipped and the device is renamed back before deletion.
# - a live rename (device up) is refused before 6.2: there the case takes
#   the device down, renames it and brings it up again.

. "$(dirname "$0")/lib/lib.sh"

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
pgw() { in_ns "$NS" pg_write "$@"; }	# FILE CMD -> errno
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
exists() { in_ns "${2:-$NS}" pg_read "$1" >/dev/null 2>&1; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
gone_file() { ! exists "$@"; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
sofar() {	# DEV [NS]
	in_ns "${2:-$NS}" pg_read "$1" 2>/dev/null |
		sed -n 's/^     pkts-sofar: \([0-9]*\)  errors: .*/\1/p'
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
running() { [ "$(sofar "$@")" -gt 0 ] 2>/dev/null; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
grows() {	# DEV: pkts-sofar increases within 5 s
	local a
	# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
	a=$(sofar "$1")
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	slowwait 5 eval '[ "$(sofar '"$1"')" -gt "${a:-0}" ]'
}

# add DEV: a dummy DEV in NS (IPv6 off by NS's default), bound to pktgen,
# count 0, pkt_size 60.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
add() {
	local rc=0
	ip -n "$NS" link add "$1" up type dummy || return 1
	pgw "$THR" "add_device $1" || rc=$?
	[ "$rc" -eq 0 ] || { echo "add_device $1: errno $rc"; return 1; }
	in_ns "$NS" pg_set "$1" "count 0" && in_ns "$NS" pg_set "$1" "pkt_size 60"
}

# NSX helpers: plain processes in NSX (nothing else may keep it alive).
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
xw() { ip netns exec "$NSX" sh -c "echo '$2' > /proc/net/pktgen/$1"; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
xsofar() {
	ip netns exec "$NSX" cat "/proc/net/pktgen/$1" 2>/dev/null |
		sed -n 's/^     pkts-sofar: \([0-9]*\)  errors: .*/\1/p'
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
xrunning() { [ "$(xsofar "$1")" -gt 0 ] 2>/dev/null; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
xadd() {	# DEV: netns NSX with a dummy DEV bound to pktgen, count 0
	ip netns add "$NSX" && ip -n "$NSX" link set lo up &&
		ip -n "$NSX" link add "$1" up type dummy &&
		xw "$THR" "add_device $1" && xw "$1" "count 0"
}

# start_bg [NS]: `echo start > pgctrl` in NS in the background, bounded
# (SIGINT after 60 s, SIGKILL 10 s later); START_PID = timeout's pid.
start_bg() {
	timeout -k 10 -s INT 60 ip netns exec "${1:-$NS}" \
		sh -c 'echo start > /proc/net/pktgen/pgctrl' &
	START_PID=$!
	defer kill -INT "$START_PID"
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
thread_empty() {	# the thread file after rem_device_all
	local t want=$'Running: \nStopped: \nResult: OK: rem_device_all'
	t=$(in_ns "$NS" pg_read "$THR")
	[ "$t" = "$want" ] || { echo "$t"; return 1; }
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
result_ok() {	# DEV: Result is the OK statistics with pkts-sofar > 0
	local f n
	f=$(in_ns "$NS" pg_read "$1") || { echo "no file $1"; return 1; }
	n=$(sed -n 's/^     pkts-sofar: \([0-9]*\)  errors: .*/\1/p' <<<"$f")
	[ "${n:-0}" -gt 0 ] && grep -q "^Result: OK: [0-9]*(c[0-9]*+d[0-9]*) usec, $n (60byte,0frags)\$" <<<"$f" &&
		return 0
	echo "$f"
	return 1
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
unload_ok() { timeout 30 rmmod pktgen; }

# link_del NS DEV: `ip link del` bounded; if it hangs (pktgen keeps the
# net_device), unload the module to release it before failing.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
link_del() {
	local pid
	ip -n "$1" link del "$2" &
	pid=$!
	if slowwait 10 pid_gone "$pid"; then
		wait "$pid"
		return
	fi
	echo "ip link del $2 still blocked after 10 s; unloading pktgen"
	timeout 30 rmmod pktgen
	slowwait 20 pid_gone "$pid"
	return 1
}

# rename NS OLD NEW: live rename, or down/rename/up where refused (< 6.2).
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
rename() {
	if ip -n "$1" link set "$2" name "$3" 2>/dev/null; then
		RENAMED=live
		return 0
	fi
	RENAMED=down
	ip -n "$1" link set "$2" down && ip -n "$1" link set "$2" name "$3" &&
		ip -n "$1" link set "$3" up
}

# del_renamed LABEL NEW OLD: `ip link del` of a renamed bound device.
del_renamed() {
	if pg_is_ours; then
		check "$1: ip link del $2 (renamed) returns" link_del "$NS" "$2"
		check "$1: file $2 gone" slowwait 5 gone_file "$2"
		return
	fi
	ktap_skip "$1: ip link del $2 (renamed) returns" \
		"stock pktgen never releases a renamed net_device (looks it up by the add_device name)"
	check "$1: stock: renamed back to $3, ip link del returns, file gone" \
		eval "ip -n $NS link set $2 down && ip -n $NS link set $2 name $3 &&
			link_del $NS $3 && slowwait 5 gone_file $3"
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_load || return 1
	setup_ns NS || return 1
	THR=$(pg_first_thread "$NS") || return 1
	ip netns exec "$NS" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 \
		net.ipv6.conf.all.disable_ipv6=1 || return 1
	# start the lib's write server from the main shell
	in_ns "$NS" pg_read pgctrl >/dev/null
}

T0=${EPOCHREALTIME/./}
case_time() {	# diagnostic: seconds since the previous case
	local t=${EPOCHREALTIME/./}
	echo "# $L: $(((t - T0) / 1000000)).$(printf '%01d' $(((t - T0) / 100000 % 10))) s"
	T0=$t
}

TMP=$(mktemp -d /tmp/lifecycle.XXXXXX)
defer rm -rf "$TMP"

ktap_header

ktap_setup setup

# 1. delete the bound net_device while idle.
L="delete idle"
check "$L: add_device dumA" add dumA
check "$L: ip link del returns" link_del "$NS" dumA
check "$L: file dumA gone" slowwait 5 gone_file dumA
check "$L: rmmod pktgen" unload_ok
case_time

# 2. delete it while running.
L="delete running"
check "$L: load, add_device dumB" eval 'pg_load && add dumB'
start_bg
check "$L: running" slowwait 30 running dumB
check "$L: ip link del returns" link_del "$NS" dumB
check_start_returned "$L: start returned"
check "$L: file dumB gone" slowwait 5 gone_file dumB
check "$L: rmmod pktgen" unload_ok
case_time

# 3. rename while idle: the file follows the new name, the device works.
L="rename idle"
check "$L: load, add_device dumC" eval 'pg_load && add dumC'
check_here "$L: ip link set dumC name dumC2" rename "$NS" dumC dumC2
check "$L: file dumC2 exists, dumC gone" eval 'exists dumC2 && gone_file dumC'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "$L: count 100 via dumC2, start" eval 'in_ns "$NS" pg_set dumC2 "count 100" &&
	timeout -s INT 60 ip netns exec "$NS" sh -c "echo start > /proc/net/pktgen/pgctrl"'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "$L: Result OK, 100 packets" \
	eval 'result_ok dumC2 && [ "$(sofar dumC2)" = 100 ]'
del_renamed "$L" dumC2 dumC
check "$L: rmmod pktgen" unload_ok
case_time

# 4. rename while running.
L="rename running"
check "$L: load, add_device dumD" eval 'pg_load && add dumD'
start_bg
check "$L: running" slowwait 30 running dumD
check_here "$L: rename to dumD2 (live, or down/rename/up before 6.2)" \
	rename "$NS" dumD dumD2
check "$L: file dumD2 exists, dumD gone" eval 'exists dumD2 && gone_file dumD'
if [ "$RENAMED" = live ]; then
	check "$L: the run continues after the live rename" grows dumD2
	check "$L: stop" pgw pgctrl stop
fi
check_start_returned "$L: start returned"
check "$L: Result OK" result_ok dumD2
del_renamed "$L" dumD2 dumD
check "$L: rmmod pktgen" unload_ok
case_time

# 5. rmmod while start is blocked.  Stock pins the module while start
# waits (rmmod refused until the run ends); ours lets rmmod stop the run:
# the blocked start returns and the module goes away.
L="rmmod running"
check "$L: load, add_device dumE" eval 'pg_load && add dumE'
start_bg
check "$L: running" slowwait 30 running dumE
if pg_is_ours; then
	check "$L: rmmod succeeds while start blocks" unload_ok
	check_start_returned "$L: start returned"
	check "$L: module gone" eval '[ ! -e /sys/module/pktgen ]'
else
	check "$L: rmmod refused while start blocks (module in use)" \
		eval '! timeout 30 rmmod pktgen 2>&1 && [ -e /sys/module/pktgen ]'
	check "$L: the run continues" grows dumE
	check "$L: stop" pgw pgctrl stop
	check_start_returned "$L: start returned"
	check "$L: Result OK" result_ok dumE
	check "$L: rmmod pktgen after the run" unload_ok
fi
case_time

# 6. delete the namespace while a run is in progress there.
L="netns del running"
check "$L: load" pg_load
k0=$(pg_kthreads)
NSX=pgt-x$(printf '%08x' "$SRANDOM")
defer ip netns del "$NSX"
check "$L: netns NSX, add_device dumX" xadd dumX
start_bg "$NSX"
check "$L: running" slowwait 30 xrunning dumX
check "$L: ip netns del" ip netns del "$NSX"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "$L: start still running (its writer keeps the netns)" \
	eval 'sleep 0.5 && kill -0 $START_PID'
check "$L: SIGINT to the start" kill -INT "$START_PID"
check_start_returned "$L: start returned (killed by SIGINT: 130)" 130
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "$L: netns destroyed: its kpktgend threads exit" \
	slowwait 30 eval '[ "$(pg_kthreads)" -eq "$k0" ]'
check "$L: rmmod pktgen" unload_ok
case_time

# 6b. delete the namespace with an idle bound device.
L="netns del idle"
check "$L: load" pg_load
# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
k0=$(pg_kthreads)
NSX=pgt-y$(printf '%08x' "$SRANDOM")
defer ip netns del "$NSX"
check "$L: netns NSX, add_device dumY" xadd dumY
check "$L: ip netns del" ip netns del "$NSX"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "$L: netns destroyed: its kpktgend threads exit" \
	slowwait 30 eval '[ "$(pg_kthreads)" -eq "$k0" ]'
check "$L: rmmod pktgen" unload_ok
case_time

# 7. rem_device_all during a run.
L="rem_device_all running"
check "$L: load, add_device dumF" eval 'pg_load && add dumF'
start_bg
check "$L: running" slowwait 30 running dumF
check "$L: rem_device_all" pgw "$THR" rem_device_all
check_start_returned "$L: start returned"
check "$L: file dumF gone" slowwait 5 gone_file dumF
check "$L: thread file: no device, Result OK: rem_device_all" thread_empty
check "$L: rmmod pktgen" unload_ok
case_time

# 8. reset during a run.
L="reset running"
check "$L: load, add_device dumG" eval 'pg_load && add dumG'
start_bg
check "$L: running" slowwait 30 running dumG
check "$L: pgctrl reset returns" timeout 30 ip netns exec "$NS" \
	sh -c 'echo reset > /proc/net/pktgen/pgctrl'
check_start_returned "$L: start returned"
check "$L: file dumG gone" slowwait 5 gone_file dumG
check "$L: rmmod pktgen" unload_ok
case_time

# 9. start interrupted by SIGINT.
L="SIGINT"
check "$L: load, add_device dumH" eval 'pg_load && add dumH'
start_bg
# running first: on a loaded host the thread may not have begun the run
# within a fixed delay, and Result would still be the last command's
check "$L: running" slowwait 30 running dumH
check "$L: SIGINT to the start" kill -INT "$START_PID"
check_start_returned "$L: start returned (killed by SIGINT: 130)" 130
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "$L: thread file lists dumH as stopped" eval \
	'in_ns "$NS" pg_read "$THR" | grep -qx "Stopped: dumH "'
check "$L: Result OK" result_ok dumH
check "$L: rmmod pktgen" unload_ok
case_time

# 10. add and remove devices in a loop: pktgen devices on one net_device
# (add_device / rem_device_all), then net_devices (ip link add /
# add_device / ip link del, the adds and dels batched through ip -batch).
L="add/remove x50"
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
churn_pg() {
	local i rc
	ip -n "$NS" link add dumL up type dummy || return 1
	for i in $(seq 50); do
		rc=0
		pgw "$THR" "add_device dumL" || rc=$?
		# (EBUSY here would mean the previous dumL was not removed)
		[ "$rc" -eq 0 ] || { echo "cycle $i: add_device errno $rc"; return 1; }
		pgw "$THR" rem_device_all
	done
	gone_file dumL || { echo "dumL left after the last rem_device_all"; return 1; }
}
DEL_LIMIT=$(( ${TEST_TIMEOUT:-600} / 10 ))
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
churn_dev() {
	local i rc
	for i in $(seq 50); do echo "link add dumM$i up type dummy"; done |
		ip -n "$NS" -batch - || return 1
	for i in $(seq 50); do
		rc=0
		pgw "$THR" "add_device dumM$i" || rc=$?
		[ "$rc" -eq 0 ] || { echo "dumM$i: add_device errno $rc"; return 1; }
	done
	# a hang fails, a slow kernel does not: 60 s, 300 s under check-debug
	# (50 unregisters take over a minute on the debug kernel under TCG)
	for i in $(seq 50); do echo "link del dumM$i"; done |
		timeout "$DEL_LIMIT" ip -n "$NS" -batch - ||
		{ echo "ip link del x50: exit $? (limit $DEL_LIMIT s)"; return 1; }
	for i in $(seq 50); do
		gone_file "dumM$i" || { echo "dumM$i: file left"; return 1; }
	done
}
check "$L: load" pg_load
check "$L: add_device + rem_device_all, 50 cycles" churn_pg
check "$L: 50 x (ip link add, add_device), 50 x ip link del" churn_dev
check "$L: rmmod pktgen" unload_ok
case_time

# 11. delete one of two interfaces sending on the same thread: only its
# pktgen device goes; the other keeps its file and goes on sending.  A
# delay for both: without one the thread sends on the first due device
# only (its due time never moves), as the stock module does.
L="delete one of two running"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "$L: load, add_device dumN and dumO (one thread), delay 1 ms each" eval '
	pg_load && add dumN && add dumO &&
	in_ns "$NS" pg_set dumN "delay 1000000" && in_ns "$NS" pg_set dumO "delay 1000000"'
start_bg
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "$L: both running" slowwait 30 eval 'running dumN && running dumO'
check "$L: ip link del dumN returns" link_del "$NS" dumN
check "$L: file dumN gone" slowwait 5 gone_file dumN
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "$L: dumO's file stays, the thread runs it alone" eval '
	exists dumO && in_ns "$NS" pg_read "$THR" | grep -qx "Running: dumO "'
check "$L: dumO still sending" grows dumO
check "$L: SIGINT to the start" kill -INT "$START_PID"
check_start_returned "$L: start returned (killed by SIGINT: 130)" 130
check "$L: Result OK" result_ok dumO
check "$L: rmmod pktgen" unload_ok
case_time

ktap_finish
