#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# KCSAN on the run counters: a device runs in each xmit mode
# while two processes read its file and pgstats and one writes
# clear_counters, all in a loop; afterwards dmesg must hold no
# "BUG: KCSAN: data-race in" line naming a pktgen function (pg_*,
# pktgen_*).  The counters are written by the thread only, each store one
# WRITE_ONCE() read with READ_ONCE() (48c71f5): before that, the reads
# and the proc side's own clear met the thread's plain stores.
# Skips on a kernel without KCSAN (make kcsan-kernel builds one).
#
#   netns NS:  pktgen device "dum0" --> dum0 (dummy, up, IPv6 off)
#              readers: dum0's file, pgstats; writer: clear_counters
# test-timeout: 1200
. "$(dirname "$0")/lib/lib.sh"

RACE_SECONDS=${RACE_SECONDS:-10}
MODES="start_xmit netif_receive queue_xmit"
DEV=dum0
# the report's first line names the two functions of the racing accesses
PG_RACE='BUG: KCSAN: data-race in .*(pg_|pktgen)'

ktap_header
# the guest does not mount debugfs; KCSAN_EARLY_ENABLE is off in
# kcsan.config (the boot is not slowed by it), so the test switches it on
KCSAN_CTL=/sys/kernel/debug/kcsan
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
if [ ! -e "$KCSAN_CTL" ]; then
	echo "1..0 # SKIP no KCSAN in $(uname -r) ($KCSAN_CTL)"
	exit 4
fi
if ! echo on >"$KCSAN_CTL"; then
	echo "1..0 # SKIP KCSAN in $(uname -r) does not switch on"
	exit 4
fi
# KCSAN watches one access in skip_watch (4000) for udelay_task (80 us);
# KCSAN_SKIP_WATCH and KCSAN_UDELAY change them (the whole kernel is
# instrumented, so a denser watch slows every path, the counters' too)
KP=/sys/module/kcsan/parameters
[ -z "${KCSAN_SKIP_WATCH:-}" ] || echo "$KCSAN_SKIP_WATCH" >$KP/skip_watch
[ -z "${KCSAN_UDELAY:-}" ] || echo "$KCSAN_UDELAY" >$KP/udelay_task
ktap_plan $((2 + 3 * 3))

if ! pg_load; then
	ktap_fail "module loads"
	ktap_finish
fi
ktap_pass "module loads"
setup_ns NS
dummy_create "$NS" "$DEV"
check "add_device $DEV" in_ns "$NS" pg_write kpktgend_0 "add_device $DEV"

# the readers and the writer: tests/lib/proc_loop.py
tmp=$(lib_tmpdir)

sofar() {
	in_ns "$NS" pg_read "$DEV" |
		sed -n 's/^     pkts-sofar: \([0-9]*\)  errors: .*/\1/p'
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
running() { [ "$(sofar)" -gt 0 ] 2>/dev/null; }

for mode in $MODES; do
	L="$mode"
	before=$(dmesg | wc -l)
	ok=1
	for c in "xmit_mode $mode" "count 0" "pkt_size 60" "clone_skb 0" "delay 0"; do
		in_ns "$NS" pg_set "$DEV" "$c" || ok=0
	done
	timeout -k 5 -s INT $((RACE_SECONDS + 60)) ip netns exec "$NS" \
		sh -c 'echo start > /proc/net/pktgen/pgctrl' 2>/dev/null &
	spid=$!
	defer kill -INT "$spid"
	if [ "$ok" -eq 1 ] && slowwait 30 running; then
		pids=()
		for a in "$PG_PROC/$DEV r" "$PG_PROC/pgstats r" "$PG_PROC/$DEV w"; do
			# shellcheck disable=SC2086
			ip netns exec "$NS" python3 -S "$LIB_DIR/proc_loop.py" $a "$RACE_SECONDS" \
				>"$tmp/rounds.${#pids[@]}" 2>&1 &
			pids+=($!)
		done
		wait "${pids[@]}"
		rounds="$(cat "$tmp"/rounds.0) reads of $DEV, $(cat "$tmp"/rounds.1) of pgstats, $(cat "$tmp"/rounds.2) clear_counters"
		ktap_pass "$L: ran $RACE_SECONDS s with readers and clear_counters"
		ktap_diag "$L: $rounds, pkts-sofar $(sofar) at the end"
	else
		ktap_fail "$L: ran $RACE_SECONDS s with readers and clear_counters" \
			"the device did not run"
	fi
	in_ns "$NS" pg_write pgctrl stop
	check "$L: start returned" slowwait 30 pid_gone "$spid"
	races=$(dmesg | tail -n +$((before + 1)) | grep -E "$PG_RACE" | sed 's/^\[[ 0-9.]*\] //' |
		sort | uniq -c)
	if [ -z "$races" ]; then
		ktap_pass "$L: no KCSAN data race in pktgen"
	else
		ktap_fail "$L: no KCSAN data race in pktgen" "$races"
	fi
done

ktap_finish
