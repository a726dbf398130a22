#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# On-the-wire check of the per-packet variations: IPv4 src/dst ranges, UDP
# port ranges, MAC walks and packet-size ranges, sequential and random.
#
#   netns A (NSA)                          netns B (NSB)
#   +---------------------------+          +---------------------------+
#   | pktgen device "vethA"     |   veth   | vethB  <-- tcpdump        |
#   |   vethA 10.99.0.1/24      |<-------->|   vethB 10.99.0.2/24      |
#   +---------------------------+          |   ingress: drop all       |
#                                          +---------------------------+
# IPv6 off on both ends.  vethB's ingress drops everything (tc matchall,
# after the capture tap) so B never answers: the capture holds pktgen's
# frames only.  The MACs pktgen sends are arbitrary (veth does not filter).
#
# What the stock module does (asserted here, see spec section 3.6):
# sequential IPv4 and size ranges start at min+1 and include max; UDP
# ranges start at min+1 and exclude max; MAC walks start at offset 0, add
# the offset to the last 4 bytes with carry into byte 1 (byte 0 untouched);
# random values are drawn from [min, max-1] (MAC: offset in [0, count-1]).

. "$(dirname "$0")/lib/lib.sh"

IPA=10.99.0.1 IPB=10.99.0.2
NSEQ=40 NRND=200

# range checker: tests/lib/wire_ranges_check.py


RUNS=()	# JSON run descriptions for the checker

# one_run LABEL N CHECKS_JSON CMD...: configure vethA in NSA, start (the
# capture is running), check the Result; frames are checked at the end.
one_run() {
	local lab=$1 n=$2 checks=$3 c out="" rc=0
	shift 3
	for c in "$@"; do
		out=$(in_ns "$NSA" pg_set vethA "$c") || break
	done
	[ -z "$out" ] && { pg_start_ns "$NSA" || rc=$?; }
	check "$lab: start returned, Result OK: $n packets" \
		pg_run_ok "$NSA" vethA "$n" "$rc" "$out"
	RUNS+=("{\"lab\": \"$lab\", \"n\": $n, \"checks\": $checks}")
}

TMP=$(mktemp -d /tmp/wire-ranges.XXXXXX)
defer rm -rf "$TMP"

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_load || return 1
	setup_ns NSA NSB || return 1
	veth_create "$NSA" vethA "$NSB" vethB || return 1
	ip -n "$NSA" addr add "$IPA/24" dev vethA &&
		ip -n "$NSB" addr add "$IPB/24" dev vethB || return 1
	ip netns exec "$NSB" tc qdisc add dev vethB clsact &&
		ip netns exec "$NSB" tc filter add dev vethB ingress \
			matchall action drop || return 1
	THR=$(pg_first_thread "$NSA") || return 1
	in_ns "$NSA" pg_write "$THR" "add_device vethA"
}

# Ranges used by both runs (small, so that 200 random draws hit them all).
CONFIG=("dst_min 10.99.1.10" "dst_max 10.99.1.14"
	"src_min 10.99.2.20" "src_max 10.99.2.23"
	"udp_src_min 100" "udp_src_max 104"
	"udp_dst_min 200" "udp_dst_max 203"
	"src_mac 02:00:ff:ff:ff:fe" "src_mac_count 4"
	"dst_mac 06:ff:ff:ff:ff:ff" "dst_mac_count 3"
	"min_pkt_size 60" "max_pkt_size 64")
SMACS='"02:00:ff:ff:ff:fe", "02:00:ff:ff:ff:ff", "02:01:00:00:00:00", "02:01:00:00:00:01"'
DMACS='"06:ff:ff:ff:ff:ff", "06:00:00:00:00:00", "06:00:00:00:00:01"'

SEQ_CHECKS='[
 ["sequential dst_min 10.99.1.10 dst_max 10.99.1.14: .11 .12 .13 .14 .10 ...", "ip.dst", "seq",
  ["10.99.1.11", "10.99.1.12", "10.99.1.13", "10.99.1.14", "10.99.1.10"]],
 ["sequential src_min 10.99.2.20 src_max 10.99.2.23: .21 .22 .23 .20 ...", "ip.src", "seq",
  ["10.99.2.21", "10.99.2.22", "10.99.2.23", "10.99.2.20"]],
 ["sequential udp_src 100-104: 101 102 103 100 ... (max excluded)", "udp.sport", "seq",
  [101, 102, 103, 100]],
 ["sequential udp_dst 200-203: 201 202 200 ... (max excluded)", "udp.dport", "seq",
  [201, 202, 200]],
 ["src_mac_count 4 walk from 02:00:ff:ff:ff:fe (carry into byte 1)", "src", "seq",
  ['"$SMACS"']],
 ["dst_mac_count 3 walk from 06:ff:ff:ff:ff:ff (byte 0 untouched)", "dst", "seq",
  ['"$DMACS"']],
 ["sequential sizes 60-64: 61 62 63 64 60 ...", "len", "seq",
  [61, 62, 63, 64, 60]]
]'
RND_CHECKS='[
 ["IPDST_RND: dst in 10.99.1.10-.13, all seen", "ip.dst", "set",
  ["10.99.1.10", "10.99.1.11", "10.99.1.12", "10.99.1.13"]],
 ["IPSRC_RND: src in 10.99.2.20-.22, all seen", "ip.src", "set",
  ["10.99.2.20", "10.99.2.21", "10.99.2.22"]],
 ["UDPSRC_RND: sport in 100-103, all seen", "udp.sport", "set",
  [100, 101, 102, 103]],
 ["UDPDST_RND: dport in 200-202, all seen", "udp.dport", "set",
  [200, 201, 202]],
 ["MACSRC_RND: src MAC one of the 4 walk values, all seen", "src", "set",
  ['"$SMACS"']],
 ["MACDST_RND: dst MAC one of the 3 walk values, all seen", "dst", "set",
  ['"$DMACS"']],
 ["TXSIZE_RND: sizes in 60-63, all seen", "len", "set",
  [60, 61, 62, 63]]
]'

ktap_header
ktap_plan $((2 * (1 + 2 + 7)))

ktap_setup setup
if ! cap_start "$NSB" vethB "$TMP/ranges.pcap"; then
	ktap_fail "capture on vethB"
	ktap_finish
fi
one_run sequential "$NSEQ" "$SEQ_CHECKS" "count $NSEQ" "${CONFIG[@]}"
one_run random "$NRND" "$RND_CHECKS" "count $NRND" \
	"flag IPDST_RND" "flag IPSRC_RND" "flag UDPSRC_RND" "flag UDPDST_RND" \
	"flag MACSRC_RND" "flag MACDST_RND" "flag TXSIZE_RND"
cap_stop

runs=$(IFS=,; echo "[${RUNS[*]}]")
out=$("$PCAP_PY" "$TMP/ranges.pcap" | python3 -S "$LIB_DIR/wire_ranges_check.py" "$runs" 2>&1)
ktap_report <<<"$out"

ktap_finish
