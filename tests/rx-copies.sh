#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A real pktgen clone_skb stream and a real burst stream
# into the receiver with "copies 3".  The sender keeps the stock
# numbering (seq_num advances by every packet sent, the 3 copies of an
# skb carry the number of the first: 1, 1, 1, 4, 4, 4, ...; checked in
# the capture, copies byte-identical); with "copies 3" the receiver
# counts each copy as one of the numbers it stands for (lost 0,
# duplicates 0, last_seq 300), which the capture recomputes by
# Documentation/receiver.rst's definition (tests/lib/rx_capture.py
# --copies).  Without it (copies 1, and the module before it) the same
# stream reads as lost 198, duplicates 200.
#
# veth has no IFF_TX_SKB_SHARING, so neither clone_skb nor burst can be
# sent on it; both are sent on dummies, whose copies reach veth0 as real
# frames: clone_skb through queue_xmit and a tc mirred redirect on d0's
# egress, burst through netif_receive on d1 and IPv4 forwarding.
#
#   netns TX                                                   netns RX
#   +---------------------------------------------------+      +----------------+
#   | pktgen d0 (dummy, queue_xmit, clone_skb 3)        |      |                |
#   |   d0 egress: tc mirred redirect -> veth0 ---------+----->| veth1 <- pgrx  |
#   | pktgen d1 (dummy, netif_receive, burst 3)         |      | tcpdump -i     |
#   |   10.93.3.1/24 -> ip_forward -> veth0 10.93.1.1/24|      |   veth1        |
#   +---------------------------------------------------+      +----------------+

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

CHECK="$(dirname "$0")/lib/rx_capture.py"
TMP=$(lib_tmpdir)
K=3 N=300
CAP_SNAPLEN=96 CAP_BUFFER_KB=1024

setup() {
	pg_load || return 1
	setup_ns TX RX || return 1
	veth_create "$TX" veth0 "$RX" veth1 || return 1
	dummy_create "$TX" d0 && dummy_create "$TX" d1 || return 1
	RXMAC=$(mac_of "$RX" veth1)
	# clone_skb copies d0 sends leave by veth0 as they are; burst: d1
	# receives each copy and forwards it through veth0
	wire_paths_create "$TX" d0 d1 veth0 10.93 10.93.1.2 "$RXMAC" || return 1
	rx_cmd "$RX" "rx veth1" && rx_cmd "$RX" "display script"
}

# sender DEV CMD...: pktgen on DEV only, 60-byte frames to 10.93.1.2
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
sender() {
	local dev=$1
	shift
	tx_setup "$TX" "$dev" && tx_set "$TX" "$dev" "pkt_size 60" "dst 10.93.1.2" \
		"count $N" "$@"
}

# both: one capture on veth1 (tcpdump starts slowly under TCG) of the
# clone_skb run, then after an rx_reset the burst run; pgrx's text after
# each in $TMP/clone.txt and $TMP/burst.txt
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
both() {
	rx_cmd "$RX" rx_reset && cap_start "$RX" veth1 "$TMP/both.pcap" || return 1
	if ! sender d0 "xmit_mode queue_xmit" "clone_skb $K" "dst_mac $RXMAC" ||
	   ! tx_run "$TX" || ! in_ns "$RX" pg_read pgrx >"$TMP/clone.txt" ||
	   ! rx_cmd "$RX" rx_reset ||
	   ! sender d1 "xmit_mode netif_receive" "burst $K" "src_min 10.93.3.9" \
		"src_max 10.93.3.9" "dst_mac $(mac_of "$TX" d1)" ||
	   ! tx_run "$TX" || ! in_ns "$RX" pg_read pgrx >"$TMP/burst.txt"; then
		cap_stop
		return 1
	fi
	cap_stop
}

# stock_numbers SKIP: the capture's pktgen frames from the (SKIP+1)th, N
# of them, are numbered 1, 1, 1, 1 + K, ... (the stock numbering), each
# copy byte-identical to the one before it
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
stock_numbers() {
	python3 -S "$LIB_DIR/stock_numbers.py" "$TMP/both.pcap" "$1" "$K" "$N"
}

# compare LABEL SKIP: the receiver's counts against the capture's N
# frames from the (SKIP+1)th, by copies K
compare() {
	ktap_report < <(python3 -S "$CHECK" "$1" "$TMP/both.pcap" --skip "$2" --count "$N" \
		--copies "$K" rx_packets lost duplicates reordered <"$TMP/$1.txt" 2>&1)
}

rx_begin 19

check "copies 0: EINVAL" rx_errno "$RX" "copies 0" 22 '^ERROR: copies takes 1-256'
check "copies 257: EINVAL" rx_errno "$RX" "copies 257" 22 '^ERROR: copies takes 1-256'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "copies 256 (the maximum): OK, shown" eval '
	rx_cmd "$RX" "copies 256" && rx_snap "$RX" && rx_expect copies 256'
check "copies $K" rx_cmd "$RX" "copies $K"
check "clone_skb $K (queue_xmit on d0), then burst $K (netif_receive on d1), $N each, captured" \
	both

# 1. clone_skb: each skb sent K times through queue_xmit
RX_TEXT=$(cat "$TMP/clone.txt")
check "clone_skb: the stock numbering on the wire" stock_numbers 0
check "clone_skb, copies $K: lost 0, duplicates 0, last_seq $N" \
	rx_expect copies $K rx_packets $N lost 0 duplicates 0 reordered 0 late 0 restarts 0 \
	s0_first_seq 1 s0_last_seq $N
compare clone 0

# 2. burst: each skb injected K times into d1, then forwarded
RX_TEXT=$(cat "$TMP/burst.txt")
check "burst: the stock numbering on the wire" stock_numbers $N
check "burst, copies $K: lost 0, duplicates 0, last_seq $N" \
	rx_expect copies $K rx_packets $N lost 0 duplicates 0 reordered 0 late 0 restarts 0 \
	s0_first_seq 1 s0_last_seq $N
compare burst $N

# 3. the same burst with copies 1: what the receiver counted before
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "copies 1, burst again" eval \
	'rx_cmd "$RX" "copies 1" && rx_cmd "$RX" rx_reset && tx_run "$TX"'
rx_snap "$RX"
# shellcheck disable=SC2017 # whole rounds of K: integer division first
check "copies 1: lost $(((N / K - 1) * (K - 1))), duplicates $((N / K * (K - 1)))" \
	rx_expect rx_packets $N lost $(((N / K - 1) * (K - 1))) duplicates $((N / K * (K - 1))) \
	s0_last_seq $((N - K + 1))

ktap_finish
