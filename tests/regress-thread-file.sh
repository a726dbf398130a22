#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A write to a kpktgend_N file of a netns on its way out:
# the thread was stopped before its file was removed, so a
# write under way posted to, and woke, a task that had exited (a freed
# task_struct: KASAN on the debug kernel).  The write is held inside the
# kernel, in copy_from_user() on a page of a FUSE file
# (tests/lib/fuse_hold.py), while the netns is deleted: the netns's exit
# must wait for the write before it stops the thread.
#
#   netns $X: kpktgend_0, kpktgend_1 (their files opened from the initial
#   netns through /proc/PID/net, a first write to each starting its
#   thread); the writer writes "rem_device_all" into
#   kpktgend_1's file from the held page
. "$(dirname "$0")/lib/lib.sh"

ktap_header
ktap_plan 2

if ! pg_is_ours; then
	ktap_skip "thread file" "ours only: the fix is ours"
	ktap_finish
fi
if ! pg_load; then
	ktap_fail "module loads"
	ktap_finish
fi
ktap_pass "module loads"
tmp=$(lib_tmpdir)
T0=$SECONDS
: >"$tmp/marks"
mark() { echo "t+$((SECONDS - T0))s $*" >>"$tmp/marks"; }

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
fewer() { [ "$(pgrep -c -x "$1")" -lt "$2" ]; }	# NAME N: fewer threads
HOLD=$tmp/fuse X="" X_PID="" W_PID="" F_PID=""
thread_file_write() {
	local n0 n1 early=""
	mkdir -p "$HOLD" || return 1
	python3 -S "$LIB_DIR/fuse_hold.py" "$HOLD" rem_device_all "$tmp/held" "$tmp/release" \
		2>"$tmp/fuse.log" &
	F_PID=$!
	slowwait 60 test -e "$HOLD/cmd" || { echo "no FUSE file"; cat "$tmp/fuse.log"; return 1; }
	mark fuse
	X=pgt-$(printf '%08x' "$SRANDOM")
	ip netns add "$X" || return 1
	ip netns exec "$X" sleep 600 &
	X_PID=$!
	slowwait 30 test -e "/proc/$X_PID/net/pktgen/kpktgend_1" || { echo "no kpktgend_1 in $X"; return 1; }
	# a namespace's threads start with the first write to their files
	n0=$(pgrep -c -x kpktgend_0) n1=$(pgrep -c -x kpktgend_1)
	for f in kpktgend_0 kpktgend_1; do
		echo rem_device_all >"/proc/$X_PID/net/pktgen/$f" || return 1
	done
	n0=$((n0 + 1)) n1=$((n1 + 1))
	slowwait 30 test "$(pgrep -c -x kpktgend_1)" -eq "$n1" || { echo "no kpktgend_1 started in $X"; return 1; }
	mark netns
	python3 -S "$LIB_DIR/held_write.py" "/proc/$X_PID/net/pktgen/kpktgend_1" "$HOLD/cmd" >"$tmp/writer.log" 2>&1 &
	W_PID=$!
	slowwait 60 test -e "$tmp/held" || { echo "the write never reached the held page"; return 1; }
	mark held
	kill "$X_PID" && wait "$X_PID" 2>/dev/null
	ip netns del "$X" || return 1
	mark deleted
	# the netns's exit takes kpktgend_0 (no writer) first, then kpktgend_1,
	# which must wait for the write under way in its file
	slowwait 120 fewer kpktgend_0 "$n0" || { echo "kpktgend_0 of $X still there after 120 s"; return 1; }
	mark kpktgend_0 gone
	slowwait 10 fewer kpktgend_1 "$n1" && early=1
	mark window over
	touch "$tmp/release"
	slowwait 30 pid_gone "$W_PID" || { echo "the writer still waits 30 s after its page came"; return 1; }
	mark writer 'done'
	slowwait 60 fewer kpktgend_1 "$n1" || { echo "kpktgend_1 of $X still there 60 s after the write"; return 1; }
	mark kpktgend_1 gone
	[ -z "$early" ] || { echo "kpktgend_1 of $X stopped while a write to its file was under way ($(cat "$tmp/writer.log"))"; return 1; }
	echo "writer: $(cat "$tmp/writer.log")"
}
thread_file_hold() {
	local rc=0
	thread_file_write || rc=$?
	touch "$tmp/release"
	[ -n "$X_PID" ] && kill "$X_PID" 2>/dev/null
	[ -n "$X" ] && ip netns del "$X" 2>/dev/null
	[ -n "$W_PID" ] && slowwait 30 pid_gone "$W_PID"
	umount -l "$HOLD" 2>/dev/null
	[ -n "$F_PID" ] && slowwait 10 pid_gone "$F_PID"
	cat "$tmp/marks"
	return "$rc"
}
modprobe -q fuse 2>/dev/null
if [ ! -c /dev/fuse ] || [ "$(nproc)" -lt 2 ]; then
	ktap_skip "a write to kpktgend_1 held while its netns goes: the thread outlives it" \
		"needs FUSE and two CPUs"
else
	thread_file_hold >"$tmp/out" 2>&1 && r=0 || r=$?
	ktap_diag "$(cat "$tmp/out")"
	if [ "$r" -eq 0 ]; then
		ktap_pass "a write to kpktgend_1 held while its netns goes: the thread outlives it"
	else
		ktap_fail "a write to kpktgend_1 held while its netns goes: the thread outlives it"
	fi
fi

ktap_finish
