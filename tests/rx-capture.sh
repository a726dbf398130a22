#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The receiver's timing figures against the same frames captured on the
# receiving device (tests/lib/rx_capture.py recomputes them from the
# capture times and the stamps in the frames): latency avg, stddev and
# percentiles, RFC 3550 jitter, the gaps' stddev, and loss, reordering and duplicates,
# through netem's delay and jitter; then latencies of seconds (stamps 1-9 s old: squares beyond 2^32 ns and
# a mean beyond 4.29 s, which once made the stddev 919 ms or 0); then the
# rate after a sender restart that followed a pause (once diluted by it).
#
# The tap (tcpdump) runs just before the receiver's hook.  By default a
# frame arriving over veth is stamped when it is queued to the device,
# and under a loaded TCG host the queue is sometimes processed tens of
# ms later; with net.core.netdev_tstamp_prequeue=0 (for the test's
# duration) it is stamped in __netif_receive_skb_core(), a few
# microseconds before the hook reads the clock, unless the host stalls
# the vCPU in between (see the tolerances below).  Counts are exact.
# The rates' N / (N - 1) is rx-basic's to check (rate_bps against
# rate_pps, exactly).
#
#   netns TX            netns FWD (ip_forward=1)              netns RX
#   +--------------+    +-------------------------------+    +-----------------+
#   | pktgen veth0 |--->| veth1   forward   veth2       |--->| veth3 <- pgrx   |
#   | 10.95.1.1/24 |    | 10.95.1.2  netem  10.95.2.1   |    | 10.95.2.2/24    |
#   +--------------+    | rx_inject.py on veth2 (case 2)|    | tcpdump -i veth3|
#                       +-------------------------------+    +-----------------+

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

INJECT="$(dirname "$0")/lib/rx_inject.py"
CHECK="$(dirname "$0")/lib/rx_capture.py"
TMP=$(lib_tmpdir)
# nanosecond capture times
CAP_EXTRA=--time-stamp-precision=nano

setup() {
	local preq
	pg_load || return 1
	preq=$(sysctl -n net.core.netdev_tstamp_prequeue) &&
		sysctl -qw net.core.netdev_tstamp_prequeue=0 || return 1
	defer sysctl -qw "net.core.netdev_tstamp_prequeue=$preq"
	fwd_path_create 10.95
}

# netem as a module, or built in (the debug kernel): ask tc, not modprobe

# compare LABEL PCAP [--skip N] KEY[:ABS[:REL]]...: rx_capture.py's
# PASS/FAIL lines, one subtest per KEY
compare() {
	local lab=$1 pcap=$2
	shift 2
	ktap_report < <(python3 -S "$CHECK" "$lab" "$pcap" "$@" <<<"$RX_TEXT" 2>&1)
}

# capture LABEL CMD...: rx_reset, capture on veth3 while CMD runs (then
# rx_snap: check runs it in a subshell)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
capture() {
	local lab=$1
	shift
	rx_cmd "$RX" rx_reset && cap_start "$RX" veth3 "$TMP/$lab.pcap" || return 1
	"$@" || { cap_stop; return 1; }
	cap_stop
}

# Tolerances (ABS ns, REL).  A vCPU of a loaded TCG host may stall
# between the tap and the hook: milliseconds often, 123 ms once (load 20
# on two cores).  So only figures that one frame cannot move much are
# compared: avg, stddev, p50/p90/p99 and (through netem) jitter, not
# min, max or the gaps' endpoints, nor p99.9 but where the stamps set the
# latencies (1-9 s: a stall is under 2% of one); through netem 2 ms + 2%,
# the percentiles 5.5% (buckets 6.25% wide); the seconds 20 ms.  Case 3's
# rates, whose span is from one frame to another, within 10% (once 91%
# off).
TIMING_S="latency_avg_ns:20000000 latency_stddev_ns:20000000
	latency_p50_ns:20000000:0.035 latency_p90_ns:20000000:0.035
	latency_p99_ns:20000000:0.035 latency_p999_ns:20000000:0.035"
TIMING="latency_avg_ns:2000000:0.02 latency_stddev_ns:2000000:0.02
	latency_p50_ns:2000000:0.055 latency_p90_ns:2000000:0.055
	latency_p99_ns:2000000:0.055"
# The gaps' stddev (the pacing-accuracy figure) from the capture times:
# a frame delayed by d between tap and hook moves two of 999 gaps by d,
# the variance by about 2 d^2 / 999.  Through netem the stddev is about
# 1.3 ms (receiver 1414346 ns, capture 1269940 in a 6.12 run); 0.5 ms +
# 10% holds one stall of 30 ms, and fails a figure off by half.
GAP_SD="gap_stddev_ns:500000:0.1"
# a small ring starts faster under TCG; 1000 frames of 96 bytes fit
CAP_SNAPLEN=96 CAP_BUFFER_KB=1024

if ! netem_available; then
	ktap_header
	ktap_plan 1
	ktap_skip "netem" "sch_netem not available"
	ktap_finish
fi

rx_begin 32

# 1. 1000 packets at 1000 pps through netem delay 20 ms +- 5 ms: every
# figure from the capture (netem's jitter reorders them too)
N=1000
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
netem_run() { tx_run "$TX" && slowwait 10 qdisc_empty; }
check "netem delay 20ms 5ms on veth2" \
	ip netns exec "$FWD" tc qdisc add dev veth2 root netem delay 20ms 5ms
check "count $N, ratep 1000" tx_set "$TX" veth0 "count $N" "ratep 1000"
check "run $N through netem, captured" capture netem netem_run
rx_snap "$RX"
# shellcheck disable=SC2086
compare netem "$TMP/netem.pcap" rx_packets rx_bytes lost duplicates reordered \
	latency_samples $TIMING jitter_ns:2000000:0.02 gap_samples $GAP_SD

# 2. latencies of 1 to 9 s (hand-made stamps; no netem): the stddev's
# squares pass 2^32 ns and the mean 4.29 s
check "no netem" ip netns exec "$FWD" tc qdisc del dev veth2 root
js=$(for i in $(seq 1 200); do
	echo "{\"seqs\": [$i], \"sec_off\": -$((i * 7 % 9 + 1))}"
done | paste -sd,)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
inject() {
	ip netns exec "$FWD" python3 -S "$INJECT" veth2 "$(mac_of "$RX" veth3)" "[$js]" >/dev/null
}
check "200 frames stamped 1-9 s ago, captured" capture seconds inject
rx_snap "$RX"
# shellcheck disable=SC2086
compare seconds "$TMP/seconds.pcap" rx_packets latency_samples $TIMING_S

# 3. a run of 300, a pause, a run of 300 (a restart): the rate is the
# second run's, its 300 packets making 299 intervals
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
two_runs() { tx_run "$TX" && sleep 1 && tx_run "$TX"; }
check "count 300, ratep 1000" tx_set "$TX" veth0 "count 300" "ratep 1000"
check "300, a pause of 1 s, 300 again, captured" capture restart two_runs
rx_snap "$RX"
check "restart: restarts 1, rx_packets 600, last_seq 300" \
	rx_expect restarts 1 rx_packets 600 lost 0 s0_last_seq 300
compare restart "$TMP/restart.pcap" --skip 300 rate_pps:0:0.1 rate_bps:0:0.1


ktap_finish
