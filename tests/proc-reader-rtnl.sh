#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RTNL behind a proc reader: a read of /proc/net/pktgen/<dev> held in
# copy_to_user() (a userfaultfd page, tests/lib/uffd_read.py) while the
# device's file is removed (rem_device_all) or renamed (ip link set name).
# proc_remove() waits for that read; nothing that holds RTNL, or a lock
# the netdevice notifier takes under RTNL, may wait with it.  While the
# read is held, `ip link add` in another netns must return at once.  A
# device whose thread is the one stuck (in proc_remove()) is unregistered
# too: the notifier waits a bounded time (PG_RELEASE_WAIT, 1.25 s), leaves
# an ERROR Result and returns; the thread lets the device go once the
# read is over.
#
#   netns NS:  dA (held file, removed), dB (same thread, unregistered
#              while the thread is stuck), dC (no pktgen device, deleted),
#              dR (held file, renamed to dR2)
#   netns NS2: the RTNL probe (ip link add probeN type dummy)
. "$(dirname "$0")/lib/lib.sh"

ktap_header
ktap_plan 17

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
pgw() { in_ns "$NS" pg_write "$@"; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
exists() { in_ns "$NS" pg_read "$1" >/dev/null 2>&1; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
gone_file() { ! exists "$1"; }

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_load || return 1
	setup_ns NS NS2 || return 1
	THR=$(pg_first_thread "$NS") || return 1
	for d in dA dB dC dR; do dummy_create "$NS" "$d" || return 1; done
	# dB first: a thread's newest device is removed first, so dA's
	# proc_remove() holds the thread while dB is still its own
	for d in dB dA; do
		in_ns "$NS" pg_write "$THR" "add_device $d" || return 1
	done
	TMP=$(lib_tmpdir)
	# every held read is let go at the end, whatever failed
	defer touch "$TMP/release-A" "$TMP/release-R"
}

# hold DEV TAG: a read of DEV's file held in its copy_to_user()
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
hold() {
	ip netns exec "$NS" python3 -S "$LIB_DIR/uffd_read.py" "$PG_PROC/$1" \
		"$TMP/held-$2" "$TMP/release-$2" >"$TMP/reader-$2.log" 2>&1 &
	eval "READER_$2=$!"
	slowwait 30 test -e "$TMP/held-$2" && return 0
	cat "$TMP/reader-$2.log"
	return 1
}

# rtnl_free N: `ip link add probeN` in NS2 returns within 5 s (RTNL not
# held)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
rtnl_free() {
	local pid
	# its output to a file: a background command holding check's
	# $(...) pipe would make check wait for it
	ip -n "$NS2" link add "probe$1" type dummy >"$TMP/probe.log" 2>&1 &
	pid=$!
	if slowwait 5 pid_gone "$pid"; then
		wait "$pid"
		return
	fi
	echo "ip link add in another netns still blocked after 5 s: RTNL is held"
	return 1
}

# bg_returned PID SECS: the background command PID exits 0 within SECS
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
bg_returned() {
	slowwait "$2" pid_gone "$1" || { echo "still blocked after $2 s"; return 1; }
	wait "$1"
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
reader_done() {	# TAG: the held read returned the file's first line
	bg_returned "$(eval echo "\$READER_$1")" 30 || return 1
	cat "$TMP/reader-$1.log"
	grep -q '^read [0-9]*: Params: count ' "$TMP/reader-$1.log"
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
dB_abandoned() {
	local r
	r=$(in_ns "$NS" pg_result dB) || { echo "no file dB"; return 1; }
	[ "$r" = "ERROR: dB unregistered while its thread did not release it" ] && return 0
	echo "Result: $r"
	return 1
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
thread_empty() {
	local t want=$'Running: \nStopped: \nResult: OK: rem_device_all'
	t=$(in_ns "$NS" pg_read "$THR")
	[ "$t" = "$want" ] || { echo "$t"; return 1; }
}

ktap_setup setup

pg_is_ours || ktap_skip_rest "proc reader vs RTNL" "ours only: the fix is ours"
why=$(python3 -S "$LIB_DIR/uffd_read.py" --probe) ||
	ktap_skip_rest "proc reader vs RTNL" "no $why"

# 1. removal: rem_device_all while dA's read is held; the thread waits in
# proc_remove(dA), with dB still on its list.
check_here "remove: a read of dA held in copy_to_user" hold dA A
ip netns exec "$NS" sh -c "echo rem_device_all > $PG_PROC/$THR" >"$TMP/rem.log" 2>&1 &
REM=$!
check "remove: dA's file goes (its removal began)" slowwait 10 gone_file dA
ip -n "$NS" link del dC >"$TMP/delc.log" 2>&1 &
DELC=$!
check_here "remove: ip link del of another device returns" bg_returned "$DELC" 5
check "remove: RTNL free (ip link add in another netns)" rtnl_free 1

# 2. the bounded wait: dB's thread is stuck in dA's proc_remove()
T0=${EPOCHREALTIME/./}
ip -n "$NS" link del dB >"$TMP/delb.log" 2>&1 &
DELB=$!
check "bounded wait: dB's Result says its thread did not release it" \
	slowwait 5 dB_abandoned
check "bounded wait: RTNL free while ip link del dB waits for pktgen" rtnl_free 2
ktap_diag "dB's ERROR Result after $(((${EPOCHREALTIME/./} - T0) / 1000)) ms"

touch "$TMP/release-A"
check_here "remove: the held read returns" reader_done A
check_here "remove: rem_device_all returns" bg_returned "$REM" 30
check_here "bounded wait: ip link del dB returns once the thread let go" \
	bg_returned "$DELB" 30
check "remove: files dA and dB gone" eval 'gone_file dA && gone_file dB'

# 3. rename while dR's read is held (down first where a live rename is
# refused, before 6.2): the file follows the name, the read goes on.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
add_dr_held() { pgw "$THR" "add_device dR" && hold dR R; }
rename_dr() {
	ip -n "$NS" link set dR name dR2 2>/dev/null && return
	ip -n "$NS" link set dR down && ip -n "$NS" link set dR name dR2 &&
		ip -n "$NS" link set dR2 up
}
check_here "rename: add_device dR, a read of its file held" \
	add_dr_held
rename_dr >"$TMP/rename.log" 2>&1 &
REN=$!
check_here "rename: ip link set dR name dR2 returns" bg_returned "$REN" 5
check "rename: RTNL free" rtnl_free 3
check "rename: file dR2 exists, dR gone" slowwait 5 eval 'exists dR2 && gone_file dR'
touch "$TMP/release-R"
check_here "rename: the held read returns" reader_done R
check "rename: dR2 takes commands" in_ns "$NS" pg_set dR2 "count 10"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "rename: rem_device_all, thread empty, ip link del dR2" \
	eval 'pgw "$THR" rem_device_all && thread_empty && ip -n "$NS" link del dR2'

ktap_finish
