#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Receiver basics: the pgrx commands and their errors, exact counting of a
# 20000-packet run, consumption of pktgen packets only, other traffic
# untouched, packets to foreign MACs, rx_reset, a sender restart (after a
# long run and after a short one), rate_bps, statistics counter, display
# human, rx_disable.
#
#   netns TX                                netns RX
#   +---------------------------+           +----------------------------+
#   | pktgen device "veth0"     |   veth    | veth1  <-- pgrx "rx veth1" |
#   |   veth0 10.98.0.1/24      |<--------->|   veth1 10.98.0.2/24       |
#   +---------------------------+           +----------------------------+

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

N=20000 SIZE=60 IPA=10.98.0.1 IPB=10.98.0.2 FOREIGN=02:00:00:00:00:99

setup() {
	pg_load && rx_pair_setup "$IPA" "$IPB" "count $N" "pkt_size $SIZE"
}

rx_begin 40

# 1. the file and its errors
check "pgrx exists, Result Idle" grep -q '^Result: Idle$' <<<"$(in_ns "$RX" pg_read pgrx)"
check "rx nosuch: ENODEV" rx_errno "$RX" "rx nosuch" 19 '^ERROR: no interface nosuch'
check "rx lo: EINVAL (not Ethernet)" rx_errno "$RX" "rx lo" 22 '^ERROR: lo is not an Ethernet'
check "rx (no name): EINVAL" rx_errno "$RX" "rx" 22 '^ERROR: rx needs an interface'
check "rx_disable veth1 (not enabled): ENODEV" rx_errno "$RX" "rx_disable veth1" 19 \
	'^ERROR: not receiving on veth1'
check "statistics bogus: EINVAL" rx_errno "$RX" "statistics bogus" 22 \
	'^ERROR: statistics takes counter, basic or time'
check "display bogus: EINVAL" rx_errno "$RX" "display bogus" 22 '^ERROR: display takes'
check "rx_reset extra: EINVAL" rx_errno "$RX" "rx_reset now" 22 '^ERROR: rx_reset takes no argument'
check "unknown command: EINVAL" rx_errno "$RX" "frobnicate" 22 '^ERROR: unknown command "frobnicate"'
check "rx veth1: OK" rx_cmd "$RX" "rx veth1"
check "rx veth1 again: EBUSY" rx_errno "$RX" "rx veth1" 16 '^ERROR: already receiving on veth1'
check "display script: OK" rx_cmd "$RX" "display script"

# 2. other traffic passes: ARP, then a UDP datagram that is not pktgen's
# reaches RX's UDP layer (no socket there: counted in NoPorts)
# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
np0=$(udp_noports)
ip netns exec "$TX" bash -c "echo not-pktgen >/dev/udp/$IPB/7777" 2>/dev/null
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "a plain UDP datagram (and ARP) passes the receiver" \
	slowwait 5 eval '[ "$(udp_noports)" -gt "$np0" ]'

# 3. 20000 packets: all counted, none reaches the IP stack
in0=$(ip_in_receives "$RX")
check "run $N x $SIZE B" tx_run "$TX"
in1=$(ip_in_receives "$RX")
rx_snap "$RX"
check "one stream, no overflow" rx_expect streams 1 overflow_packets 0
check "rx_packets $N, rx_bytes $((N * SIZE)), lost/reordered/duplicates 0" \
	rx_expect rx_packets "$N" rx_bytes $((N * SIZE)) lost 0 reordered 0 duplicates 0 \
	late 0 restarts 0
check "stream: seq 1..$N, microsecond resolution" \
	rx_expect s0_first_seq 1 s0_last_seq "$N" s0_rx_packets "$N" \
	s0_latency_resolution_ns 1000
check "stream named after veth1, IPv4 and veth0's MAC" \
	rx_expect s0_stream "veth1-ipv4-$(mac_of "$TX" veth0)"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "latency: $N samples, 0 < min <= p50 <= p99 <= max < 10 s" eval '
	rx_expect latency_samples "$N" latency_negative 0 &&
	rx_between latency_min_ns 1 "$(rx_val latency_p50_ns)" &&
	rx_between latency_p50_ns "$(rx_val latency_min_ns)" "$(rx_val latency_p99_ns)" &&
	rx_between latency_p99_ns 0 "$(rx_val latency_max_ns)" &&
	rx_between latency_max_ns 0 9999999999'
check "rate_pps > 0" rx_between rate_pps 1 999999999
# N packets make N - 1 intervals: rate_bps is the bits of N - 1 packets per
# second, so rate_bps = rate_pps x $SIZE x 8 up to the two floors (it was
# N / (N - 1) times that)
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "rate_bps = rate_pps x $((SIZE * 8)) (within $((SIZE * 8 + 2)) b/s)" eval '
	d=$(($(rx_val rate_bps) - $(rx_val rate_pps) * SIZE * 8)); d=${d#-}
	[ "$d" -lt $((SIZE * 8 + 2)) ] || { echo "# off by $d"; false; }'
# the gaps telescope to the time from the first arrival to the last, as the
# rate does: a consistency check, not a timing one
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "inter-arrival: $((N - 1)) gaps, min <= avg <= max, avg x rate_pps = 1 s (1%)" eval '
	rx_expect gap_samples $((N - 1)) &&
	rx_between gap_min_ns 0 "$(rx_val gap_avg_ns)" &&
	rx_between gap_avg_ns "$(rx_val gap_min_ns)" "$(rx_val gap_max_ns)" &&
	p=$(($(rx_val gap_avg_ns) * $(rx_val rate_pps))) &&
	[ "$p" -ge 990000000 ] && [ "$p" -le 1010000000 ] || { echo "# avg x pps = $p"; false; }'
check "IP stack of RX saw none of them (InReceives $in0 -> $in1)" test "$in1" -eq "$in0"

# 4. a sender restart (seq back to 1) starts a new epoch: nothing lost
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "run 1000 more without rx_reset" eval 'tx_set "$TX" veth0 "count 1000" && tx_run "$TX"'
rx_snap "$RX"
# the pause before the restart is not a gap: one fewer than the packets of
# each run
check "restart: rx_packets $((N + 1000)), restarts 1, lost 0, last_seq 1000, gaps $((N + 998))" \
	rx_expect rx_packets $((N + 1000)) restarts 1 lost 0 duplicates 0 reordered 0 \
	s0_first_seq 1 s0_last_seq 1000 gap_samples $((N + 998))

# 5. rx_reset; packets to a MAC that is not RX's are counted too
check "rx_reset: OK" rx_cmd "$RX" "rx_reset"
rx_snap "$RX"
check "rx_reset: no streams, rx_packets 0" rx_expect streams 0 rx_packets 0
check "sender: dst_mac $FOREIGN" tx_set "$TX" veth0 "dst_mac $FOREIGN"
check "run 1000 to $FOREIGN" tx_run "$TX"
rx_snap "$RX"
check "foreign MAC: rx_packets 1000, lost 0" rx_expect rx_packets 1000 lost 0
# a first run shorter than the window is a run too: the second is a restart
check "run 1000 again" tx_run "$TX"
rx_snap "$RX"
check "two runs of 1000: restarts 1, duplicates 0, lost 0, last_seq 1000" \
	rx_expect rx_packets 2000 restarts 1 duplicates 0 lost 0 late 0 s0_last_seq 1000

# 6. statistics counter: no latency samples
check "statistics counter: OK" rx_cmd "$RX" "statistics counter"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "rx_reset + run 1000" eval 'rx_cmd "$RX" rx_reset && tx_run "$TX"'
rx_snap "$RX"
check "counter mode: rx_packets 1000, latency_samples 0, gap_samples 0" \
	rx_expect rx_packets 1000 latency_samples 0 latency_p50_ns 0 gap_samples 0

# 7. display human
check "display human: OK" rx_cmd "$RX" "display human"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "display human: header, a stream row, totals, latency and inter-arrival tables" eval '
	t=$(in_ns "$RX" pg_read pgrx)
	grep -q "^Receiver on: veth1  statistics: counter  streams: 1/4096" <<<"$t" &&
	grep -qE "^0 +veth1-ipv4-[0-9a-f:]+ +1000 +60000 +0 +0 +0 +0 " <<<"$t" &&
	grep -qE "^all +1000 +60000 " <<<"$t" && grep -q "^Latency (ns):" <<<"$t" &&
	sed -n "/^Inter-arrival (ns):/,/^all/p" <<<"$t" | grep -qE "^all +0 +0 +0 +0 +0$" &&
	grep -q "^Result: OK: display=human" <<<"$t" || { echo "$t"; false; }'

# 8. rx_disable: pktgen packets reach the stack again
check "rx_disable veth1: OK" rx_cmd "$RX" "rx_disable veth1"
check "sender: count 100, dst_mac = veth1" tx_set "$TX" veth0 "count 100" \
	"dst_mac $(mac_of "$RX" veth1)"
in0=$(ip_in_receives "$RX")
tx_run "$TX"
in1=$(ip_in_receives "$RX")
check "after rx_disable the IP stack sees them (InReceives +$((in1 - in0)) >= 100)" \
	test $((in1 - in0)) -ge 100

ktap_finish
