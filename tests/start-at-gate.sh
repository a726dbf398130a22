#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What else may start while a start_at waits, and what a stop posted
# before the thread took the start_at does.  A start_at's gate holds its
# whole thread until the target, so a plain `start` or a device's
# `inject` meanwhile would block that long and send nothing: both are
# refused with EBUSY and a Result.  Ctrl-C of the start_at writer before
# its thread has taken the request (the thread kept off its CPU by a
# SCHED_FIFO spinner) must leave nothing to run at the target: the stop
# cancels the start it follows.
#
#   netns TX                          netns RX
#   veth0 on kpktgend_0 --- veth --- veth1
#   dum0 (added while the start_at waits)
#   veth2 on kpktgend_1 --- veth --- veth3

# The checks run through check/eval/slowwait, so their functions look
# unreachable and their single-quoted $ expand later:
# shellcheck disable=SC2016,SC2317

. "$(dirname "$0")/lib/lib.sh"

EBUSY=16
RT_RUNTIME=/proc/sys/kernel/sched_rt_runtime_us

mac_of() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }

setup() {
	pg_load || return 1
	setup_ns TX RX || return 1
	veth_create "$TX" veth0 "$RX" veth1 || return 1
	in_ns "$TX" pg_write kpktgend_0 "rem_device_all" &&
		in_ns "$TX" pg_write kpktgend_0 "add_device veth0" &&
		in_ns "$TX" pg_set veth0 "count 50" &&
		in_ns "$TX" pg_set veth0 "dst_mac $(mac_of "$RX" veth1)"
}

at_bg() {	# ARG: `start_at ARG` in TX in the background (SIGINT after 60 s)
	timeout -s INT 60 ip netns exec "$TX" \
		sh -c "echo 'start_at $1' > /proc/net/pktgen/pgctrl" 2>/dev/null &
	START_PID=$!
}

stat_of() {	# DEV KEY: DEV's KEY in TX's pgstats
	local KVAL
	kv_get "$(in_ns "$TX" pg_read pgstats | awk -v d="device=$1" \
		'$0 == d { on = 1 } on && $0 == "" { exit } on')" "$2"
	echo "$KVAL"
}

waiting() {	# veth0 held at the gate: running, nothing sent
	[ "$(stat_of veth0 running)" = 1 ] && [ "$(stat_of veth0 pkts_sofar)" = 0 ]
}

# refused_fast FILE CMD REGEX: CMD to FILE in TX fails with EBUSY at once
# (not after the start_at's run) and FILE's Result matches REGEX
refused_fast() {
	local t0=$SECONDS
	pg_refuses "$TX" "$1" "$2" "$EBUSY" "$3" || return 1
	[ $((SECONDS - t0)) -lt 10 ] || { echo "refused only after $((SECONDS - t0)) s"; false; }
}

ktap_header
ktap_plan 8
ktap_setup setup

# 1. start and inject while a start_at waits 30 s ahead
at_bg +30000000000
check "waiting: veth0 held at the gate, nothing sent" slowwait 20 waiting
check "pgctrl start while a start_at waits: EBUSY at once" \
	refused_fast pgctrl start '^ERROR: start: a start_at is waiting or running'
check "a device added while it waits (dum0 on kpktgend_0)" eval '
	dummy_create "$TX" dum0 && in_ns "$TX" pg_write kpktgend_0 "add_device dum0" &&
	in_ns "$TX" pg_set dum0 "count 10"'
check "inject of dum0 while a start_at waits: EBUSY at once" \
	refused_fast dum0 inject 'start_at waits'
check "nothing sent meanwhile" eval '[ "$(stat_of veth0 pkts_sofar)" = 0 ] &&
	[ "$(stat_of dum0 pkts_sofar)" = 0 ]'
check "stop ends the wait" in_ns "$TX" pg_write pgctrl stop
check_start_returned "start_at returned after stop"

# 2. Ctrl-C before the thread took the start_at.  kpktgend_1 is kept off
# CPU 1 by a SCHED_FIFO spinner (RT throttling off for the while), this
# shell and its children on CPU 0.  The writer's stop then reaches the
# thread together with the start_at it follows; the thread must not
# run veth2 at the target.
ctrl_c_before_taken() {
	local spin tmp target writer held rc=0
	tmp=$(lib_tmpdir)
	taskset -c 1 chrt -f 50 bash -c '
		end=$((SECONDS + 10))
		touch "$1/spinning"
		while [ ! -e "$1/spin-stop" ] && [ $SECONDS -lt $end ]; do :; done' _ "$tmp" &
	spin=$!
	slowwait 10 test -e "$tmp/spinning" || return 1
	sleep 0.2
	# the writer interrupted 3 s after its start (timeout: a background
	# job of this shell ignores SIGINT), the target 6 s ahead
	target=$(($(date +%s%N) + 6000000000))
	timeout -s INT 3 ip netns exec "$TX" \
		sh -c "echo 'start_at $target' > /proc/net/pktgen/pgctrl" 2>/dev/null &
	writer=$!
	slowwait 3 eval 'in_ns "$TX" pg_result pgctrl | grep -q "start_at=$target"'
	held=$(stat_of veth2 running)
	wait "$writer" || rc=$?
	touch "$tmp/spin-stop"
	wait "$spin"
	# the thread had not taken the start_at when the writer was
	# interrupted: else this is not the case under test
	[ "$held" = 0 ] || { echo "kpktgend_1 ran while held off its CPU (running=$held)"; return 1; }
	[ "$rc" -ne 0 ] || { echo "the start_at writer was not interrupted"; return 1; }
	slowwait 10 eval '[ $(date +%s%N) -gt $((target + 1000000000)) ]'
	if [ "$(stat_of veth2 pkts_sofar)" != 0 ] || [ "$(stat_of veth2 running)" != 0 ]; then
		echo "veth2 ran after its writer's Ctrl-C: sent $(stat_of veth2 pkts_sofar)"
		return 1
	fi
}

# hold_cpu1_knobs: RT throttling off and (6.12+, the fair deadline
# server, commit "sched/fair: Add trivial fair server") CPU 1's fair
# server off, each restored at exit, so that a SCHED_FIFO task keeps
# every other task off CPU 1
hold_cpu1_knobs() {
	local fs=/sys/kernel/debug/sched/fair_server/cpu1/runtime
	defer sh -c "echo $(<"$RT_RUNTIME") > $RT_RUNTIME"
	echo -1 >"$RT_RUNTIME" || return 1
	[ -d /sys/kernel/debug/sched ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	if [ -e "$fs" ]; then
		defer sh -c "echo $(<"$fs") > $fs"
		echo 0 >"$fs" || return 1
	fi
}

NAME="Ctrl-C before the thread took the start_at: nothing runs at the target"
if ! ip netns exec "$TX" test -e "$PG_PROC/kpktgend_1" || ! command -v chrt >/dev/null ||
   ! command -v taskset >/dev/null || [ ! -w "$RT_RUNTIME" ]; then
	ktap_skip "$NAME" "needs two CPUs, chrt, taskset and $RT_RUNTIME"
elif ! { veth_create "$TX" veth2 "$RX" veth3 &&
	 in_ns "$TX" pg_write kpktgend_0 "rem_device_all" &&
	 in_ns "$TX" pg_write kpktgend_1 "add_device veth2" &&
	 in_ns "$TX" pg_set veth2 "count 50" &&
	 in_ns "$TX" pg_set veth2 "dst_mac $(mac_of "$RX" veth3)"; }; then
	ktap_fail "$NAME" "veth2 on kpktgend_1 not set up"
else
	# this shell and every child on CPU 0, so the spinner holds only CPU 1
	defer taskset -p -c 0-"$(($(nproc --all) - 1))" $$
	if hold_cpu1_knobs && taskset -p -c 0 $$ >/dev/null; then
		check "$NAME" ctrl_c_before_taken
	else
		ktap_fail "$NAME" "could not set the scheduler knobs"
	fi
fi

ktap_finish
