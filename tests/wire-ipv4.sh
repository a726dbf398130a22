#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# On-the-wire check of the IPv4/UDP packets pktgen builds: every captured
# frame is decoded (tests/lib/pcap.py) and every header field asserted.
#
#   netns A (NSA)                          netns B (NSB)
#   +---------------------------+          +---------------------------+
#   | pktgen device "vethA"     |   veth   | vethB  <-- tcpdump        |
#   |   vethA 10.99.0.1/24      |<-------->|   vethB 10.99.0.2/24      |
#   +---------------------------+          |   ingress: drop all       |
#                                          +---------------------------+
# IPv6 off on both ends; pktgen's dst_mac = vethB's MAC.  vethB's ingress
# drops everything (tc clsact/matchall, after the capture tap) so B never
# answers (no ARP, no ICMP): the capture holds pktgen's frames only.
#
# Runs on one pktgen device: 200 x 60 B, 200 x 1500 B, 200 x 333 B, then
# 50 with NO_TIMESTAMP, then 50 with an explicit src_mac.

. "$(dirname "$0")/lib/lib.sh"

IPA=10.99.0.1 IPB=10.99.0.2 COUNT=200 SRCMAC=02:12:34:56:78:9a

# frame checker: tests/lib/wire_ipv4_check.py
NCHECKS=11	# lines the checker prints per run

rx_packets() { ns_cat "$NSB" /sys/class/net/vethB/statistics/rx_packets; }

RUNS=()	# JSON run descriptions for the checker

# one_run LABEL N SIZE SRCMAC FIRST_ID TS_MODE CMD...: configure vethA in
# NSA, start (the capture is running), check Result and vethB's counter;
# the frames are checked at the end.
one_run() {
	local lab=$1 n=$2 size=$3 smac=$4 id0=$5 tsm=$6 c rx0 rx1 t0 t1 out rc=0
	shift 6
	for c in "$@"; do
		out=$(in_ns "$NSA" pg_set vethA "$c") || break
	done
	rx0=$(rx_packets)
	t0=$(date +%s)
	[ -z "$out" ] && { pg_start_ns "$NSA" || rc=$?; }
	t1=$(date +%s)
	rx1=$(rx_packets)
	check "$lab: start returned, Result OK: $n packets, pkts-sofar $n" \
		pg_run_ok "$NSA" vethA "$n" "$rc" "$out"
	check "$lab: vethB rx_packets grew by $n" test $((rx1 - rx0)) -eq "$n"
	RUNS+=("$(printf '{"lab": "%s", "n": %d, "size": %d, "smac": "%s", "id0": %d, "ts": "%s", "t0": %d, "t1": %d}' \
		"$lab" "$n" "$size" "$smac" "$id0" "$tsm" "$t0" "$t1")")
}

TMP=$(mktemp -d /tmp/wire-ipv4.XXXXXX)
defer rm -rf "$TMP"

ktap_header
ktap_plan $((5 * (NCHECKS + 2)))

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
	MACA=$(ns_cat "$NSA" /sys/class/net/vethA/address) &&
		MACB=$(ns_cat "$NSB" /sys/class/net/vethB/address) || return 1
	THR=$(pg_first_thread "$NSA") || return 1
	in_ns "$NSA" pg_write "$THR" "add_device vethA"
}

ktap_setup setup

if ! cap_start "$NSB" vethB "$TMP/wire.pcap"; then
	ktap_fail "capture on vethB"
	ktap_finish
fi
one_run size60 "$COUNT" 60 "$MACA" 0 now \
	"count $COUNT" "pkt_size 60" "dst $IPB" "dst_mac $MACB"
one_run size1500 "$COUNT" 1500 "$MACA" "$COUNT" now "pkt_size 1500"
one_run size333 "$COUNT" 333 "$MACA" $((2 * COUNT)) now "pkt_size 333"
one_run no_timestamp 50 60 "$MACA" $((3 * COUNT)) zero \
	"count 50" "pkt_size 60" "flag NO_TIMESTAMP"
one_run src_mac 50 60 "$SRCMAC" $((3 * COUNT + 50)) now \
	"flag !NO_TIMESTAMP" "src_mac $SRCMAC"
cap_stop

runs=$(IFS=,; echo "[${RUNS[*]}]")
t0=${EPOCHREALTIME/./}
out=$("$PCAP_PY" "$TMP/wire.pcap" |
	python3 -S "$LIB_DIR/wire_ipv4_check.py" "$runs" "$MACB" "$IPA" "$IPB" 2>&1)
echo "# frame analysis: $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
ktap_report <<<"$out"

ktap_finish
