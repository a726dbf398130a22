#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The PF_IPOPTION memo's measurement redone on Linux, inside the VM (run by
# bench/run.sh --ipopt through tests/lib/vm.sh): what a router pays to
# forward IPv4 packets with options, with pktgen's classifier off and on,
# and with the packets intercepted by tools/ipodump and reinjected (RA and
# RR through the PF_IPOPTION family, the memo's interface, with ipodump's
# --timers: the memo's Figure 4; RA through an IP_ROUTER_ALERT socket; RR
# through the classifier's NFQUEUE verdict), at two UDP payload sizes.
#
#   netns S: pktgen, s0 --veth-- r0 netns R (ip_forward) r1 --veth-- k0 netns K: pgrx
#
# Per cell and pass: a paced run (LAT_PPS pps, LAT_COUNT packets) whose
# one-way latency S -> K the receiver measures from pktgen's timestamps
# (slow enough that Python under TCG keeps up: a packet's latency, not a
# queue's; at 200 pps ipodump's 2-5 ms per packet under TCG on a loaded
# host queued them for tens of ms), then an unpaced run of TPUT_MS ms whose packets arriving at K
# give the forwarding rate (counted DRAIN s after it ends: 1, --quick 0.3,
# for what R still had queued).  In the family cells ipodump runs with
# --timers and is restarted between the two runs, so its timers are the
# paced packets'.  Each pass runs every cell once, the order rotated from
# pass to pass; the report gives medians over the passes.
#
# Payload: UDP payload bytes, as the memo's were ICMP payload bytes (ping
# -s 1 / -s 1400).  The memo's 1 byte cannot carry pktgen's 16-byte header
# (sequence, timestamp), which the latency needs: the small size is 16,
# pktgen's minimum.  pkt_size (the frame without FCS) is computed per cell:
# Ethernet 14 + IPv4 20 + the option bytes (RA 4, rr:2 12) + UDP 8 + payload.
#
#	bench/ipopt-guest.sh [--runs N] [--quick] [--out DIR]
. "$(dirname "$0")/../tests/lib/lib.sh"
. "$(dirname "$0")/../tests/lib/rx-lib.sh"

RUNS=5 LAT_PPS=50 LAT_COUNT=300 TPUT_MS=2000 DRAIN=1 OUTDIR=/tmp/bench-ipopt QUICK=0
SMALL=16 LARGE=1400
while [ $# -gt 0 ]; do
	case $1 in
	--runs) RUNS=$2; shift ;;
	--quick) RUNS=1 LAT_COUNT=30 TPUT_MS=300 DRAIN=0.3 QUICK=1 ;;
	--out) OUTDIR=$2; shift ;;
	*) sed -n '/^#	bench/p' "$0" >&2; exit 2 ;;
	esac
	shift
done

IPS=10.71.0.1 IPR0=10.71.0.254 IPR1=10.72.0.254 IPK=10.72.0.2 DST=10.73.0.2
IPOD=$(cd "$(dirname "$0")/.." && pwd)/tools/ipodump
# cell: ip_opt, classifier (off|on), interception (family:TYPE: PF_IPOPTION
# with --timers; ralert: IP_ROUTER_ALERT; nfqueue: the classifier's queue 3)
declare -A C_OPT=([plain]=none [ra]=ra [rr]=rr:2 [plain_cls]=none [ra_cls]=ra
	[rr_cls]=rr:2 [ra_ipodump]=ra [rr_ipodump]=rr:2 [ra_ralert]=ra [rr_nfqueue]=rr:2)
declare -A C_CLS=([plain]=off [ra]=off [rr]=off [plain_cls]=on [ra_cls]=on [rr_cls]=on
	[ra_ipodump]=off [rr_ipodump]=off [ra_ralert]=off [rr_nfqueue]=on)
declare -A C_TAKE=([ra_ipodump]=family:ra [rr_ipodump]=family:rr [ra_ralert]=ralert
	[rr_nfqueue]=nfqueue)
declare -A OPT_BYTES=([none]=0 [ra]=4 [rr:2]=12)
# CELL/PAYLOAD: every cell at the small payload, the paths (not the
# classifier's counting) at the large one too; --quick (the test suite's
# smoke) only the memo's own size comparison, rr_ipodump, at the large one
RUN_CELLS=()
for c in plain ra rr plain_cls ra_cls rr_cls ra_ipodump rr_ipodump ra_ralert rr_nfqueue; do
	RUN_CELLS+=("$c/$SMALL")
done
LARGE_CELLS="plain ra rr rr_cls ra_ipodump rr_ipodump ra_ralert rr_nfqueue"
[ "$QUICK" = 1 ] && LARGE_CELLS=rr_ipodump
for c in $LARGE_CELLS; do
	RUN_CELLS+=("$c/$LARGE")
done

lib_tmpdir >/dev/null
TMP=$_LIB_TMP

setup() {
	pg_load || return 1
	router_create "$IPS" "$IPR0" "$IPR1" "$IPK" 10.73.0.0/24 || return 1
	_PG_NS=$S pg_set kpktgend_0 "add_device s0" || return 1
	for c in "dst $DST" "dst_mac $MR0" "clone_skb 0"; do
		_PG_NS=$S pg_set s0 "$c" || return 1
	done
	_PG_NS=$K pg_set pgrx "rx k0" && _PG_NS=$K pg_set pgrx "statistics time" &&
		_PG_NS=$K pg_set pgrx "display script"
}

rx_value() {	# KEY: a value of K's receiver (lib.sh's helper: no exec)
	local _PG_TEXT KVAL
	_PG_NS=$K _pg_read_var pgrx || return 1
	kv_get "$_PG_TEXT" "$1"
	echo "$KVAL"
}

send() {	# CMD...: configure s0, run it to the end; $TMP/result: its Result
	local c
	for c in "$@"; do
		_PG_NS=$S pg_set s0 "$c" || return 1
	done
	_PG_NS=$K pg_set pgrx rx_reset || return 1
	pg_start_ns "$S" || return 1
	_PG_NS=$S pg_result s0 >"$TMP/result"
}

# ipodump in R taking KIND (family:TYPE: PF_IPOPTION -T TYPE --timers;
# ralert: IP_ROUTER_ALERT; nfqueue: RR through NFQUEUE 3), its output
# thrown away; returns once it intercepts
ipod_start() {
	: >"$TMP/ipod.err"
	local a
	case $1 in
	family:*) a=(-T "${1#family:}" --timers) ;;
	ralert) a=(--router-alert -T ra) ;;
	nfqueue) a=(-T rr -Q 3) ;;
	esac
	ip netns exec "$R" python3 -S "$IPOD" "${a[@]}" >/dev/null 2>"$TMP/ipod.err" &
	IPOD_PID=$!
	slowwait 120 grep -q '^ipodump: intercepting' "$TMP/ipod.err"
}

ipod_stop() {
	kill -TERM "$IPOD_PID" 2>/dev/null
	wait "$IPOD_PID" 2>/dev/null
	IPOD_PID=""
}

# ipodump's --timers line (ipodump: timers (us): recvmsg n N mean M median
# D; user ...; sendto ...) as recvmsg n,mean,median,user mean,median,
# sendto mean,median; empty fields without it
timers_csv() {
	sed -n 's/^ipodump: timers (us): recvmsg n \([0-9]*\) mean \([0-9.]*\) median \([0-9.]*\); user n [0-9]* mean \([0-9.]*\) median \([0-9.]*\); sendto n [0-9]* mean \([0-9.]*\) median \([0-9.]*\)$/\1,\2,\3,\4,\5,\6,\7/p' \
		"$TMP/ipod.err" | grep . || echo ",,,,,,"
}

# the two runs of CELL at PAYLOAD bytes, ipodump (if any) already
# intercepting; a family cell's ipodump is restarted between them
measure_cell() {	# PASS CELL PAYLOAD: one line of runs.csv
	local pass=$1 cell=$2 payload=$3 frame p50 avg lost rx usec timers=",,,,,,"
	frame=$((14 + 20 + ${OPT_BYTES[${C_OPT[$cell]}]} + 8 + payload))
	send "ip_opt ${C_OPT[$cell]}" "pkt_size $frame" "ratep $LAT_PPS" \
		"count $LAT_COUNT" "duration 0" || return 1
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	slowwait 5 eval '[ "$(rx_value rx_packets)" -ge '"$LAT_COUNT"' ]'
	p50=$(rx_value latency_p50_ns) avg=$(rx_value latency_avg_ns) lost=$(rx_value lost)
	if [[ ${C_TAKE[$cell]:-} == family:* ]]; then
		ipod_stop
		timers=$(timers_csv)
		ipod_start "${C_TAKE[$cell]}" || {
			echo "# ipodump restart: $(cat "$TMP/ipod.err")"
			return 1
		}
	fi
	send "delay 0" "count 0" "duration $TPUT_MS" || return 1
	sleep "$DRAIN"	# what R still had queued
	rx=$(rx_value rx_packets)
	usec=$(sed -n 's/^OK: \([0-9]*\)(.*/\1/p' "$TMP/result")
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[ -n "$usec" ] && [ "$usec" -gt 0 ] || { echo "# $cell: Result $(cat "$TMP/result")"; return 1; }
	echo "$pass,$cell,$p50,$avg,$lost,$rx,$usec,$((rx * 1000000 / usec)),$payload,$frame,$timers" \
		>>"$OUTDIR/runs.csv"
	[ "$timers" = ",,,,,," ] && timers="" || timers="; timers n,recvmsg,user,sendto $timers"
	echo "# pass $pass $cell/$payload ($frame-byte frames): latency p50 $p50 ns" \
		"avg $avg ns lost $lost; unpaced: $rx at K in $usec us$timers"
}

run_cell() {	# PASS CELL/PAYLOAD: classifier, ipodump, the runs; ipodump stopped after
	local cell=${2%/*} payload=${2#*/} rc=0
	_PG_NS=$R pg_set ipopt "${C_CLS[$cell]}" || return 1
	if [ -n "${C_TAKE[$cell]:-}" ] && ! ipod_start "${C_TAKE[$cell]}"; then
		echo "# ipodump ${C_TAKE[$cell]}: $(cat "$TMP/ipod.err")"
		rc=1
	else
		measure_cell "$1" "$cell" "$payload" || rc=1
	fi
	[ -n "${IPOD_PID:-}" ] && ipod_stop
	return "$rc"
}

ktap_header
ktap_plan 2
mkdir -p "$OUTDIR"
echo "pass,cell,lat_p50_ns,lat_avg_ns,lat_lost,tput_rx,tput_usec,tput_pps,payload,frame,$(
	)timer_n,recvmsg_mean_us,recvmsg_median_us,user_mean_us,user_median_us,$(
	)sendto_mean_us,sendto_median_us" >"$OUTDIR/runs.csv"
if ! setup >"$TMP/setup.log" 2>&1; then
	ktap_fail "setup" "$(cat "$TMP/setup.log")"
	ktap_finish
fi
ktap_pass "setup: S -> R -> K, pgrx on k0"
{
	echo "kernel=$(uname -r)"
	echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1) ($(nproc) vCPUs)"
	echo "module=$(cat /sys/module/pktgen/version 2>/dev/null)"
	echo "settings=$RUNS passes; UDP payloads of $SMALL and $LARGE bytes;" \
		"latency: $LAT_COUNT packets at $LAT_PPS pps; rate: unpaced for $TPUT_MS ms"
} >"$OUTDIR/meta.txt"
fails=0
for ((pass = 1; pass <= RUNS; pass++)); do
	n=${#RUN_CELLS[@]}
	for ((i = 0; i < n; i++)); do
		cell=${RUN_CELLS[(i + pass - 1) % n]}
		run_cell "$pass" "$cell" || { fails=$((fails + 1)); echo "# $cell failed"; }
	done
done
check "every cell ran in every pass ($fails failed)" test "$fails" -eq 0
python3 -S "$(dirname "$0")/ipopt-report.py" "$OUTDIR/runs.csv" "$OUTDIR/meta.txt" \
	>"$OUTDIR/report.md" && sed 's/^/# /' "$OUTDIR/report.md"
ktap_finish
