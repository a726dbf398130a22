#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The receiver behind a router with netem, as in the paper's Figure 6:
# forwarding baseline, then netem loss, reorder, duplicate and delay on
# the router's egress.  The receiver's loss and duplicates must equal
# netem's own counters (tc -s qdisc) exactly.  pktgen bypasses its own
# device's qdisc, so netem sits on the router, where forwarded packets go
# through the qdisc layer.  The sender is paced (ratep) so that no queue
# but netem's builds up.
#
#   netns TX              netns FWD (ip_forward=1)          netns RX
#   +-----------------+   +------------------------------+   +---------------+
#   | pktgen "veth0"  |   | veth1 10.97.1.2   veth2      |   | veth3         |
#   | 10.97.1.1/24    |-->|   forward   --> 10.97.2.1    |-->| 10.97.2.2/24  |
#   | dst 10.97.2.2   |   |   qdisc: netem on veth2      |   | pgrx: rx veth3|
#   | dst_mac = veth1 |   |   static neigh 10.97.2.2     |   |               |
#   +-----------------+   +------------------------------+   +---------------+

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

setup() {
	pg_load || return 1
	fwd_path_create 10.97
}

# qdisc_stat FIELD: "sent" (packets) or "dropped" of veth2's root qdisc.
qdisc_stat() {
	local line
	line=$(ip netns exec "$FWD" tc -s qdisc show dev veth2 | grep -m1 ' Sent ')
	case $1 in
	sent) sed -n 's/.* bytes \([0-9]*\) pkt.*/\1/p' <<<"$line" ;;
	dropped) sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' <<<"$line" ;;
	esac
}
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
fwd_count() { ip netns exec "$FWD" awk '/^Ip: [0-9]/ { print $7 }' /proc/net/snmp; }

# run_case LABEL N PPS [NETEM...]: netem (or none) on veth2, rx_reset,
# send N packets at PPS, wait for netem to drain; RX_TEXT, SENT, DROPPED.
run_case() {
	local lab=$1 n=$2 pps=$3
	shift 3
	if [ $# -gt 0 ]; then
		# a new qdisc: its counters start at 0
		ip netns exec "$FWD" tc qdisc del dev veth2 root 2>/dev/null
		check "$lab: tc qdisc add dev veth2 root netem $*" \
			ip netns exec "$FWD" tc qdisc add dev veth2 root netem "$@"
	fi
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	check "$lab: rx_reset, count $n, ratep $pps" eval \
		'rx_cmd "$RX" rx_reset && tx_set "$TX" veth0 "count $n" "ratep $pps"'
	check "$lab: run" tx_run "$TX"
	slowwait 10 qdisc_empty
	rx_snap "$RX"
	SENT=$(qdisc_stat sent) DROPPED=$(qdisc_stat dropped)
	ktap_diag "$lab: netem sent $SENT dropped $DROPPED; receiver: $(rx_val rx_packets) packets, lost $(rx_val lost), reordered $(rx_val reordered), duplicates $(rx_val duplicates), p50 $(rx_val latency_p50_ns) ns"
}

# netem as a module, or built in (the debug kernel): ask tc, not modprobe

if ! netem_available; then
	ktap_header
	ktap_plan 1
	ktap_skip "netem" "sch_netem not available"
	ktap_finish
fi

rx_begin 28

# 1. forwarding, no netem: all forwarded packets counted, latency reported
N=5000
f0=$(fwd_count)
run_case "forward" "$N" 10000
f1=$(fwd_count)
check "forward: router forwarded $N (ForwDatagrams +$((f1 - f0)))" test $((f1 - f0)) -eq "$N"
check "forward: rx_packets $N, lost 0, reordered 0, duplicates 0, latency samples $N" \
	rx_expect rx_packets "$N" lost 0 reordered 0 duplicates 0 latency_samples "$N"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "forward: latency min > 0, p50 <= max" eval \
	'rx_between latency_min_ns 1 "$(rx_val latency_p50_ns)" &&
	 rx_between latency_p50_ns 1 "$(rx_val latency_max_ns)"'

# 2. loss 10%: lost == netem's drops, exactly -- but for the drops after
# the last packet received, which no receiver can see (seq N - last_seq)
run_case "loss 10%" "$N" 10000 loss 10%
TAIL=$((N - $(rx_val s0_last_seq)))
check "loss: netem dropped some" test "${DROPPED:-0}" -gt 0
check "loss: lost == netem dropped ($DROPPED) - dropped after the last received ($TAIL)" \
	rx_expect lost $((DROPPED - TAIL))
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "loss: rx_packets == netem sent, rx_packets + lost == $N" eval \
	'rx_expect rx_packets "$SENT" && test $((SENT + DROPPED)) -eq "$N"'
check "loss: no reordering, no duplicates" rx_expect reordered 0 duplicates 0 late 0

# 3. reorder: late packets counted as reordered, nothing lost
N=2000
run_case "reorder" "$N" 2000 delay 10ms reorder 25% 50%
check "reorder: rx_packets $N, lost 0, duplicates 0" \
	rx_expect rx_packets "$N" lost 0 duplicates 0 late 0
check "reorder: reordered > 0" rx_between reordered 1 "$N"

# 4. duplicate: duplicates == what netem added
N=5000
run_case "duplicate" "$N" 5000 duplicate 5%
check "duplicate: netem sent more than $N ($SENT)" test "${SENT:-0}" -gt "$N"
check "duplicate: duplicates == netem sent - $N, rx_packets == sent, lost 0" \
	rx_expect duplicates $((SENT - N)) rx_packets "$SENT" lost 0

# 5. delay 10 ms: nothing below 10 ms, and the median of the order of the
# delay (below twice it): a check of what is measured, not of how fast
# the host is (the debug kernel under TCG adds over 2 ms)
N=1000
run_case "delay" "$N" 1000 delay 10ms
check "delay: rx_packets $N, lost 0" rx_expect rx_packets "$N" lost 0
check "delay: latency_min >= 10 ms" rx_between latency_min_ns 10000000 99999999999
check "delay: latency_p50 in 10..20 ms" rx_between latency_p50_ns 10000000 19999999

ktap_finish
