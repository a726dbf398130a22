#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# suite: slow
#
# tools/pktgen-rfc2544 against devices under test whose answers are
# known: a router namespace whose egress is shaped by tbf (the NDR within
# a few percent of the tbf rate at every frame size), one with netem loss
# (no NDR, the PDR found), one with netem delay (the latency's p50 near
# the delay at four loads of --rate) and plain forwarding (no loss: NDR,
# the loss steps and the back-to-back burst all at the maximum tried,
# the latency at 10, 50, 90 and 100 % of it with pgrx's histograms, on
# IMIX frames).  Short trials (-D everywhere: the tool's default is
# RFC 2544's 60 s), coarse resolution and rates a TCG guest delivers: the
# method is what is checked here, tests/host/rfc2544.sh checks the
# searches and the progress lines exactly.
#
#   netns TX                netns FWD (ip_forward=1)              netns RX
#   pktgen-rfc2544 --------> veth1  forward  veth2 (tbf|netem) --> veth3 pgrx
#   veth0 10.98.1.1/24                                            10.98.2.2/24
#
# Two of the four runs draw a PNG (matplotlib: tens of seconds under TCG).
# test-timeout: 900

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

TOOLS=$(cd "$(dirname "$0")/.." && pwd)/tools
CHECK_PY=$LIB_DIR/rfc2544_check.py
DUR=0.5			# seconds per trial
TBF_BITS=3000000	# tbf rate 3 Mbit/s: 6250 frames/s of 64 bytes

setup() {
	pg_load || return 1
	fwd_path_create 10.98 || return 1
	# the tool sets up the sender and the receiver itself
	rx_cmd "$RX" "rx_disable" && MAC1=$(mac_of "$FWD" veth1) &&
		lib_tmpdir >/dev/null && T=$_LIB_TMP
}

# qdiscs: tbf and netem can be added (modules or built in); else the
# one that cannot in QDISC_MISSING
qdiscs() {
	local probe
	modprobe -q sch_tbf 2>/dev/null
	modprobe -q sch_netem 2>/dev/null
	setup_ns probe && ip -n "$probe" link add d0 type dummy || return 1
	QDISC_MISSING=tbf
	tc -n "$probe" qdisc add dev d0 root tbf rate 1mbit burst 2k limit 3k 2>/dev/null &&
		tc -n "$probe" qdisc del dev d0 root || return 1
	QDISC_MISSING=netem
	tc -n "$probe" qdisc add dev d0 root netem 2>/dev/null
}

dut() {	# QDISC...: veth2's root qdisc (none without arguments)
	ip netns exec "$FWD" tc qdisc del dev veth2 root 2>/dev/null
	[ $# -eq 0 ] || ip netns exec "$FWD" tc qdisc add dev veth2 root "$@"
}

# bench NAME WHAT TEST... -- OPTION...: pktgen-rfc2544 from TX through
# FWD to RX, outputs in $T/NAME.{csv,json} (and .png for tbf and fwd); its terminal output as
# diagnostics, then the subtest "WHAT: exit 0"
bench() {
	local name=$1 what=$2 tests=() rc=0 t0=$SECONDS png=()
	shift 2
	# the PNGs checked below only: matplotlib costs tens of seconds under TCG
	case $name in tbf | fwd) png=(--png "$T/$name.png") ;; esac
	while [ $# -gt 0 ] && [ "$1" != -- ]; do tests+=("$1"); shift; done
	shift
	ip netns exec "$TX" /usr/bin/python3 "$TOOLS/pktgen-rfc2544" -i veth0 -d 10.98.2.2 -m "$MAC1" \
		--rx-netns "$RX" --rx-dev veth3 -D "$DUR" --settle 0.1 \
		--csv "$T/$name.csv" --json "$T/$name.json" "${png[@]}" \
		"$@" "${tests[@]}" >"$T/$name.log" 2>&1 || rc=$?
	ktap_diag "$(cat "$T/$name.log")"
	check "$what: exit 0 ($((SECONDS - t0)) s)" test "$rc" -eq 0
}

# verdicts CHECK ARG... [-- CHECK ARG...]: tests/lib/rfc2544_check.py's
# subtests (all at the end: one Python start, seconds under TCG)
verdicts() { ktap_report < <(python3 -S "$CHECK_PY" "$@"); }

if ! qdiscs; then
	ktap_header
	ktap_plan 1
	ktap_skip "rfc2544" "sch_$QDISC_MISSING not available"
	ktap_finish
fi

rx_begin 26
ktap_diag "setup: $SECONDS s"

# 1. tbf rate R: the NDR is R / ((size - 4) x 8) frames/s (tbf counts
# frames without the FCS).  The bucket (2 full frames) and the queue (12)
# let a trial of 1 s pass 5.6% above R; the queue absorbs the bursts of a
# sender under TCG (with 8 frames of queue, 1518-byte frames lost some at
# 88% of R).  At most 1.3 R (L2, FCS in: 1.22 R at 64 bytes, 1.3 R at
# 1518) and a resolution of 3.2% of that: 6 trials a size, the NDR found
# at most 4.2% below R.  The smallest and the largest frame only, for
# time (Documentation/rfc2544.rst's run has 512 bytes too).
dut tbf rate "$TBF_BITS" burst 3000 limit 18000
bench tbf "tbf: pktgen-rfc2544 throughput at 64 and 1518" throughput -- \
	--frame-size 64,1518 -D 1 --max-rate $((TBF_BITS * 13 / 10))bit -r 3.2

# 2. netem loss 20%: every rate loses, so no NDR (5 trials, down to 312
# pps: 94 frames, none lost with probability 8e-10); the PDR at 30% is
# the maximum, its trial the NDR search's first
dut netem loss 20%
bench lossy "netem loss: throughput with --pdr 30 at 64" throughput -- \
	--frame-size 64 --max-rate 5000 -r 10 --pdr 30 -D 0.3

# 3. netem delay 10 ms: latency at 10, 50, 90 and 100 % of 2000 pps
dut netem delay 10ms
bench delay "netem delay: latency at four loads of 2000 pps, 64 bytes" latency -- \
	--frame-size 64 --rate 2000

# 4. plain forwarding: all four tests on IMIX frames, at most 3000 pps
dut
bench fwd "forwarding: all four tests, IMIX" all -- --frame-size imix --max-rate 3000

t0=$SECONDS
verdicts tbf "$T/tbf.csv" "$TBF_BITS" 8 -- png "$T/tbf.png" -- \
	lossy "$T/lossy.csv" 30 5000 20 -- delay "$T/delay.csv" 10000000 -- \
	forward "$T/fwd.csv" 3000 1500 -- json "$T/fwd.json" throughput,latency,loss,back-to-back -- \
	png "$T/fwd.png"
ktap_diag "checks: $((SECONDS - t0)) s, in all $SECONDS s"

ktap_finish
