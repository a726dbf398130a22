#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Several streams: two pktgen senders at once into one receiver (two
# devices), then hand-made frames (tests/lib/rx_inject.py) for what this
# release's sender does not build: the NS_TIMESTAMP extension and its
# stream id (several streams on one device and one MAC), IPv4 options,
# IPv6, 802.1Q and 802.1ad+802.1Q tags, NO_TIMESTAMP, a gap, reordering,
# a duplicate, a UDP packet that is not pktgen's (must pass), and 70
# streams of one frame each.
#
#   netns TX1                 netns RX                  netns TX2
#   +----------------+  veth  +-----------------------+  veth  +----------------+
#   | pktgen "veth0a"|------->| veth1a 10.96.1.2/24   |<-------| pktgen "veth0b"|
#   | rx_inject.py   |        | veth1b 10.96.2.2/24   |        |                |
#   +----------------+        | pgrx: rx veth1a,veth1b|        +----------------+
#                             +-----------------------+

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

N=5000
INJECT="$(dirname "$0")/lib/rx_inject.py"

setup() {
	pg_load || return 1
	setup_ns TX1 TX2 RX || return 1
	veth_create "$TX1" veth0a "$RX" veth1a && veth_create "$TX2" veth0b "$RX" veth1b ||
		return 1
	ip -n "$RX" addr add 10.96.1.2/24 dev veth1a &&
		ip -n "$RX" addr add 10.96.2.2/24 dev veth1b || return 1
	rx_cmd "$RX" "rx veth1a" && rx_cmd "$RX" "rx veth1b" &&
		rx_cmd "$RX" "display script" || return 1
	tx_setup "$TX1" veth0a && tx_setup "$TX2" veth0b &&
		tx_set "$TX1" veth0a "count $N" "dst 10.96.1.2" "dst_mac $(mac_of "$RX" veth1a)" &&
		tx_set "$TX2" veth0b "count $N" "dst 10.96.2.2" "dst_mac $(mac_of "$RX" veth1b)"
}

# stream_of NAME: the index N of the stream called NAME (sN_stream=NAME).
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
stream_of() { sed -n "s/^s\([0-9]*\)_stream=$1\$/\1/p" <<<"$RX_TEXT"; }

# stream_expect NAME KEY VALUE...: rx_expect on the sN_ keys of stream NAME.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
stream_expect() {
	local name=$1 i args=()
	shift
	i=$(stream_of "$name")
	[ -n "$i" ] || { echo "no stream $name"; printf '%s\n' "$RX_TEXT"; return 1; }
	while [ $# -ge 2 ]; do
		args+=("s${i}_$1" "$2")
		shift 2
	done
	rx_expect "${args[@]}"
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
inject() { ip netns exec "$TX1" python3 -S "$INJECT" veth0a "$(mac_of "$RX" veth1a)" "$1"; }

rx_begin 18

# 1. two pktgen senders at once
pg_start_ns "$TX1" &
p1=$!
pg_start_ns "$TX2" &
p2=$!
defer kill -INT "$p1" "$p2"
rc1=0 rc2=0
wait "$p1" || rc1=$?
wait "$p2" || rc2=$?
check "two senders ran (start returned 0 and 0)" test "$rc1$rc2" = 00
rx_snap "$RX"
S1="veth1a-ipv4-$(mac_of "$TX1" veth0a)" S2="veth1b-ipv4-$(mac_of "$TX2" veth0b)"
check "two streams, totals $((2 * N)) packets, nothing lost" \
	rx_expect streams 2 rx_packets $((2 * N)) lost 0 duplicates 0 reordered 0
check "stream $S1: $N packets, seq 1..$N, lost 0" \
	stream_expect "$S1" rx_packets "$N" first_seq 1 last_seq "$N" lost 0 latency_samples "$N"
check "stream $S2: $N packets, seq 1..$N, lost 0" \
	stream_expect "$S2" rx_packets "$N" first_seq 1 last_seq "$N" lost 0 latency_samples "$N"

# 2. hand-made frames: one device, one source MAC, several streams
A=2711724449 B=2998055602 C=3284386755	# 0xa1a1a1a1 0xb2b2b2b2 0xc3c3c3c3
gap=$(seq -s, 3 49),$(seq -s, 51 100)	# 1, 2 and 50 lost
reord=$(seq -s, 1 50),$(seq -s, 60 100),$(seq -s, 51 59)
dup=$(seq -s, 1 10),10,$(seq -s, 11 100)
check "rx_reset" rx_cmd "$RX" "rx_reset"
# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
np0=$(udp_noports)
check "inject 5 streams with rx_inject.py" inject "[
 {\"id\": $A, \"opts\": 8, \"seqs\": [$gap]},
 {\"id\": $B, \"ip\": 6, \"vlan\": 1, \"seqs\": [$(seq -s, 1 100)]},
 {\"id\": $C, \"vlan\": 2, \"seqs\": [$reord]},
 {\"id\": null, \"stamp\": false, \"seqs\": [$dup]},
 {\"id\": null, \"magic\": 305419896, \"seqs\": [1, 2, 3]}]"
rx_snap "$RX"
check "4 streams, no overflow" rx_expect streams 4 overflow_packets 0
check "id a1a1a1a1 (IPv4 + 8 option bytes): 97 packets, lost 3 (1, 2, 50), ns resolution" \
	stream_expect id-a1a1a1a1 rx_packets 97 lost 3 first_seq 1 last_seq 100 \
	latency_samples 97 latency_resolution_ns 1
check "id b2b2b2b2 (IPv6, 802.1Q): 100 packets, lost 0, 98-byte frames" \
	stream_expect id-b2b2b2b2 rx_packets 100 lost 0 rx_bytes 9800 latency_samples 100
check "id c3c3c3c3 (802.1ad + 802.1Q): 100 packets, reordered 9, lost 0" \
	stream_expect id-c3c3c3c3 rx_packets 100 reordered 9 lost 0 duplicates 0
check "no extension, NO_TIMESTAMP: 101 packets, duplicates 1, no latency samples" \
	stream_expect "veth1a-ipv4-$(mac_of "$TX1" veth0a)" rx_packets 101 duplicates 1 \
	lost 0 latency_samples 0 latency_resolution_ns 1000
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "latency of stamped frames: 0 < min <= max < 10 s" eval \
	'rx_between latency_min_ns 1 "$(rx_val latency_max_ns)" &&
	 rx_between latency_max_ns 1 9999999999 && rx_expect latency_negative 0'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "the 3 frames with another magic passed to UDP (NoPorts +3)" \
	slowwait 5 eval '[ "$(udp_noports)" -ge $((np0 + 3)) ]'

# 3. 70 ids, one frame each: 70 streams (the limit: rx-streams.sh)
check "rx_reset" rx_cmd "$RX" "rx_reset"
many=$(for i in $(seq 1 70); do printf '{"id": %d, "seqs": [1]},' "$i"; done)
check "inject 70 one-frame streams" inject "[${many%,}]"
rx_snap "$RX"
check "70 streams, no overflow, rx_packets 70" \
	rx_expect streams 70 streams_max 4096 overflow_packets 0 rx_packets 70

# 4. statistics basic: latency without percentiles
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "statistics basic + rx_reset + inject" eval \
	'rx_cmd "$RX" "statistics basic" && rx_cmd "$RX" rx_reset &&
	 inject "[{\"id\": 1, \"seqs\": [1, 2, 3, 4]}]" >/dev/null'
rx_snap "$RX"
check "basic: 4 latency samples, no percentiles" \
	eval 'rx_expect latency_samples 4 latency_p50_ns 0 && rx_between latency_avg_ns 1 9999999999'

ktap_finish
