#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# suite: slow
#
# Smoke test of the benchmark harness: bench/guest.sh --quick on two cells
# (dummy and veth, start_xmit, 64 B) and one paced veth cell (captured
# gaps) runs the kernel's pktgen.ko and ours once each and prints a
# Markdown table with a ratio per cell and the pacing table; AF_PACKET's
# runs (bench/afp_send.c) in the xmit cells; two 2t cells
# (two devices, and one device's two queues) and their scaling rows.  No timing
# assertion: only that both modules sent packets in every run, the gaps
# were measured and the tables are complete.  Runs the same whatever PKTGEN_MODULE says (the
# benchmark always loads both modules).  The floor (bench/floor/pg_floor.ko):
# a floor row per start_xmit cell with packets, none for the paced one,
# the table's floor columns; then the module itself: its errnos for a
# bad device, size or line, a run that a device deletion, a signal or
# rmmod ends (ENETDOWN, promptly, ECANCELED), unloaded cleanly.
. "$(dirname "$0")/lib/lib.sh"

BENCH=$(cd "$(dirname "$0")/../bench" && pwd)
TP_CELLS="dummy/xmit/64/1t veth/xmit/64/1t" PACED=veth/ratep10000/64/1t
TWO_CELLS="dummy2/xmit/64/2t dummymq/xmit/64/2t"
CELLS="$TP_CELLS $PACED $TWO_CELLS"

ktap_header
ktap_plan 26

OUT_DIR=$(mktemp -d /tmp/bench-smoke.XXXXXX)
defer rm -rf "$OUT_DIR"
LOG=$OUT_DIR/guest.log
rc=0
"$BENCH/guest.sh" --quick --secs 0.3 --cells "$CELLS" --out "$OUT_DIR" \
	>"$LOG" 2>&1 || rc=$?
sed 's/^/# /' "$LOG"
check "bench/guest.sh --quick exits 0" test "$rc" -eq 0

# runs.csv: cell,module,pass,requested,pps,bps,sofar,errors,usec,status,...
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
ran_ok() {	# CELL MODULE: one run, status ok, packets sent
	awk -F, -v c="$1" -v m="$2" '$1 == c && $2 == m {
		n++; if ($10 == "ok" && $7 > 0) good++ }
		END { exit !(n == 1 && good == 1) }' "$OUT_DIR/runs.csv"
}
for c in $CELLS; do
	check "$c: stock and ours each sent packets once" \
		eval "ran_ok $c stock && ran_ok $c ours"
done

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
floor_ok() {	# CELL SEND: one floor run, status ok, packets, sent as SEND
	awk -F, -v c="$1" -v s="send $2" '$1 == c && $2 == "floor" {
		n++; if ($10 == "ok" && $5 > 0 && $7 > 0 && index($11, s)) good++ }
		END { exit !(n == 1 && good == 1) }' "$OUT_DIR/runs.csv"
}
check "dummy/xmit/64/1t: the floor sent packets once (one skb shared)" \
	floor_ok dummy/xmit/64/1t shared
check "veth/xmit/64/1t: the floor sent packets once (a clone each)" \
	floor_ok veth/xmit/64/1t clone
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
no_floor() {	# CELL: no floor row
	! awk -F, -v c="$1" '$1 == c && $2 == "floor"' "$OUT_DIR/runs.csv" | grep -q .
}
check "$PACED: no floor run" no_floor "$PACED"

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
row_has_ratio() {	# CELL: ratio ours/stock, floor pps, both % of the floor,
	# AF_PACKET pps and % of the floor
	grep -qE "^\| $1 \| [0-9].* \| [0-9].* \| [0-9]+\.[0-9]{2} \| [0-9]+ \| [0-9.]+% \| [0-9.]+% \| [0-9]+ \| [0-9.]+% \|$" "$LOG"
}
for c in $TP_CELLS; do
	check "$c: table row with ratio ours/stock, % of the floor, AF_PACKET" row_has_ratio "$c"
done
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
afp_ok() {	# CELL: one afpacket run (bench/afp_send.c), status ok, packets
	awk -F, -v c="$1" '$1 == c && $2 == "afpacket" {
		n++; if ($10 == "ok" && $5 > 0 && $7 > 0) good++ }
		END { exit !(n == 1 && good == 1) }' "$OUT_DIR/runs.csv"
}
check "xmit cells: AF_PACKET sent packets once on dummy and veth; none in the others" \
	eval "afp_ok dummy/xmit/64/1t && afp_ok veth/xmit/64/1t &&
		! grep -q ',afpacket,' <(grep -v '/xmit/64/1t,' '$OUT_DIR/runs.csv')"

# ...,note,gap_samples,gap_avg_ns,gap_sd_ns: a capture of every paced run
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
gaps_ok() {	# CELL MODULE
	awk -F, -v c="$1" -v m="$2" '$1 == c && $2 == m && $12 > 0 && $13 > 0 { g++ }
		END { exit !(g == 1) }' "$OUT_DIR/runs.csv"
}
check "$PACED: gaps captured for stock and ours" \
	eval "gaps_ok $PACED stock && gaps_ok $PACED ours"
check "$PACED: pacing table row (requested 100 us, both modules)" \
	grep -qE "^\| $PACED \| 100 us \| [0-9.]+ us \| [0-9.]+ us \| [0-9.]+ us \| [0-9.]+ us \|$" "$LOG"

# the 2t cells (two devices, one device's two queues; their runs checked
# with the others above), scaled from dummy's 1t
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
scaling_rows() {
	local c
	for c in $TWO_CELLS; do
		grep -qE "^\| ${c%/2t} \| [0-9]+ \| [0-9]+ \| [0-9]+\.[0-9]{2} \| [0-9]+ \| [0-9]+ \| [0-9]+\.[0-9]{2} \|$" \
			"$LOG" || { echo "no scaling row for $c"; return 1; }
	done
}
check "scaling table: a row for each 2t cell against dummy/xmit/64/1t" scaling_rows

check "no pktgen module left loaded" test ! -e /sys/module/pktgen/initstate
check "no pg_floor module left loaded" test ! -e /sys/module/pg_floor/initstate

# ---------------------------------------------------------------- pg_floor itself
FLOOR_KO=${FLOOR_KO:-$(dirname "${PKTGEN_KO:-.}")/floor/pg_floor.ko}
WRITE_RET=$(cd "$(dirname "$0")/lib" && pwd)/write_ret.py
FNS=""
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
fwrite() {	# LINE: write(2)'s return (bytes or -errno) of LINE to $FNS's pg_floor
	ip netns exec "$FNS" /usr/bin/python3 -S "$WRITE_RET" /proc/net/pg_floor <<<"$1"
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
fwrite_is() {	# WANT LINE...: each LINE's write(2) returns WANT (ok: all of it)
	local want=$1 got w l
	shift
	for l in "$@"; do
		w=$want
		[ "$w" = ok ] && w=$((${#l} + 1))
		got=$(fwrite "$l")
		[ "$got" = "$w" ] || { echo "write '$l': $got, want $w"; return 1; }
	done
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
fresult_has() {	# ERE: the last result matches
	ip netns exec "$FNS" cat /proc/net/pg_floor | tr '\n' ' ' | grep -qE "$1" ||
		{ ip netns exec "$FNS" cat /proc/net/pg_floor; return 1; }
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
tx_of_fl0() { ip netns exec "$FNS" cat /sys/class/net/fl0/statistics/tx_packets; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
sent_more_than() { [ "$(tx_of_fl0)" -gt "$1" ]; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
run_started() {	# PID TX0: the run of writer PID sends (fl0 past TX0 packets)
	# python3's start alone takes seconds in a TCG guest: a fixed sleep
	# acted before the write began
	slowwait 20 sent_more_than "$2" && return 0
	echo "the run did not start"
	kill "$1" 2>/dev/null
	wait "$1"
	return 1
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
ends_with() {	# WANT ACTION...: a 20 s run, ACTION once it sends; write(2)
	# returns WANT within 8 s of ACTION
	local want=$1 t0 got pid tx0
	shift
	tx0=$(tx_of_fl0)
	fwrite "fl0 60 20" >"$OUT_DIR/bg" &
	pid=$!
	run_started "$pid" "$tx0" || return 1
	t0=$SECONDS
	"$@" || echo "'$*' failed"
	wait "$pid"
	got=$(<"$OUT_DIR/bg")
	if [ "$got" != "$want" ] || [ $((SECONDS - t0)) -gt 8 ]; then
		echo "write: '$got' (want $want) $((SECONDS - t0)) s after '$*'"
		return 1
	fi
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
short_run() {
	fwrite_is ok "fl0 60 0.2" &&
		fresult_has "^pps [1-9][0-9]* packets [1-9][0-9]* ns [1-9].* send shared errors 0 "
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
bad_dev() {
	fwrite_is -19 "nosuch0 60 0.1" && ip -n "$FNS" link add fl1 type dummy &&
		fwrite_is -100 "fl1 60 0.1"
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
signal_ends() {	# the writer killed once its 20 s run sends: gone within 8 s
	local t0 pid tx0
	tx0=$(tx_of_fl0)
	# the writer itself (ip netns exec execs it), not a subshell of fwrite
	ip netns exec "$FNS" /usr/bin/python3 -S "$WRITE_RET" /proc/net/pg_floor \
		<<<"fl0 60 20" >/dev/null &
	pid=$!
	run_started "$pid" "$tx0" || return 1
	t0=$SECONDS
	kill -TERM "$pid"
	wait "$pid"
	[ $((SECONDS - t0)) -le 8 ] || { echo "ended after $((SECONDS - t0)) s"; return 1; }
	fresult_has " interrupted"
}
if ! setup_ns FNS || ! dummy_create "$FNS" fl0; then
	ktap_skip_rest "pg_floor" "no namespace"
fi
check "insmod pg_floor ($FLOOR_KO)" insmod "$FLOOR_KO"
check "a short run on dummy: packets, the one skb shared" short_run
check "bad DEV: ENODEV; a down one: ENETDOWN" bad_dev
check "size 59, burst 0 or 257, 0 s, no size, a bad key: EINVAL" \
	fwrite_is -22 "fl0 59 0.1" "fl0 60 0.1 burst 0" "fl0 60 0.1 burst 257" \
	"fl0 60 0" "fl0" "fl0 60 0.1 rate 5"
check "size over the MTU: EMSGSIZE" fwrite_is -90 "fl0 1515 0.1"
check "a signal ends a run at once, its result kept" signal_ends
check "deleting the device mid-run ends it: ENETDOWN" \
	ends_with -100 ip -n "$FNS" link del fl0
dummy_create "$FNS" fl0 >/dev/null 2>&1
check "rmmod mid-run waits for the run, which it ends: ECANCELED" \
	ends_with -125 rmmod pg_floor
check "pg_floor unloaded" test ! -e /sys/module/pg_floor/initstate
ktap_finish
