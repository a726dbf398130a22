#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# With clone_skb 0 ours builds each packet into the skb it sent before
# when the stack has let go of it (pg_reuse_skb()).  Here a packet socket
# that is not read during the run holds a clone of every frame it sees,
# so the data of those skbs is still referenced when the next packet is
# built: each queued frame must still carry its own packet (pktgen seq,
# IP id, IP checksum), not one built later into the same memory.
#
#   start_xmit:     netns A [ vethA ] ---veth---> [ vethB ] netns B
#                                                  ^ packet socket
#   netif_receive:  netns A [ d0 (dummy), burst 32 ] <- packet socket
#
# The socket's queue is large enough for every frame of a run (checked).
# The same runs without a socket: the frames counted on the peer.

. "$(dirname "$0")/lib/lib.sh"

N_XMIT=3000 BURST=32 N_RECV=$((BURST * 64)) DST=10.97.0.2

# the holder (tests/lib/pktsock_hold.py) and its checker (wire_reuse_check.py)


ktap_header
ktap_plan 8

TMP=$(lib_tmpdir)

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_load || return 1
	setup_ns NSA NSB || return 1
	veth_create "$NSA" vethA "$NSB" vethB || return 1
	dummy_create "$NSA" d0 || return 1
	MACB=$(ip netns exec "$NSB" cat /sys/class/net/vethB/address) || return 1
	THR=$(pg_first_thread "$NSA")
}

ktap_setup setup

rx_packets() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/rx_packets"; }

# configure DEV CMD...: DEV alone on the thread, configured from scratch
configure() {
	local dev=$1 c
	shift
	in_ns "$NSA" pg_set "$THR" "rem_device_all" &&
		in_ns "$NSA" pg_set "$THR" "add_device $dev" || return 1
	for c in "$@"; do
		in_ns "$NSA" pg_set "$dev" "$c" || return 1
	done
}

# run LABEL DEV N BURST HOLD: run the configured DEV (vethA: start_xmit to
# vethB; d0: netif_receive), N packets; with HOLD=hold a packet socket on
# the receiving end holds what it sees.  Checks the Result, for vethA
# that vethB received N, and what the socket held.
run() {
	local lab=$1 dev=$2 n=$3 burst=$4 hold=$5 ns=$NSB rdev=vethB
	local res pid="" before after out
	[ "$dev" = d0 ] && ns=$NSA rdev=d0
	rm -f "$TMP/ready" "$TMP/go" "$TMP/out"
	if [ "$hold" = hold ]; then
		ip netns exec "$ns" python3 -S "$LIB_DIR/pktsock_hold.py" "$rdev" "$TMP/ready" \
			"$TMP/go" "$TMP/out" &
		pid=$!
		if ! slowwait 30 test -e "$TMP/ready"; then
			ktap_fail "$lab: packet socket on $rdev"
			kill "$pid"
			return
		fi
	fi
	before=$(rx_packets "$ns" "$rdev")
	pg_start_ns "$NSA" 120
	after=$(rx_packets "$ns" "$rdev")
	res=$(in_ns "$NSA" pg_result "$dev")
	ktap_diag "$lab: Result: $res; $rdev rx_packets +$((after - before))"
	# shellcheck disable=SC2015 # either failing is a failure
	case $dev:$res in
	vethA:"OK: "*" $n ("*) [ $((after - before)) -eq "$n" ] ;;
	d0:"OK: "*" $n ("*) true ;;	# netif_receive: no device counter
	*) false ;;
	esac && ktap_pass "$lab: $n sent" || ktap_fail "$lab: $n sent"
	[ -n "$pid" ] || return 0
	touch "$TMP/go"
	wait "$pid"
	out=$(python3 -S "$LIB_DIR/wire_reuse_check.py" "$n" "$burst" <"$TMP/out" 2>&1)
	if [ "$out" = ok ]; then
		ktap_pass "$lab: every held frame carries its own packet"
	else
		ktap_fail "$lab: every held frame carries its own packet" "$out"
	fi
}

XMIT=("count $N_XMIT" "pkt_size 60" "dst $DST")
RECV=("xmit_mode netif_receive" "burst $BURST" "count $N_RECV" "pkt_size 60"
	"dst $DST" "dst_mac 02:00:00:00:00:01")

for hold in hold free; do
	configure vethA "${XMIT[@]}" "dst_mac $MACB" &&
		run "start_xmit, $hold" vethA "$N_XMIT" 1 "$hold"
	configure d0 "${RECV[@]}" &&
		run "netif_receive burst $BURST, $hold" d0 "$N_RECV" "$BURST" "$hold"
done
# random sizes: a frame may not fit the head of the one before (1500
# after 60) or fit it (333 after 1500)
configure vethA "${XMIT[@]}" "dst_mac $MACB" "min_pkt_size 60" \
	"max_pkt_size 1500" "flag TXSIZE_RND" &&
	run "start_xmit, random sizes, hold" vethA "$N_XMIT" 1 hold

in_ns "$NSA" pg_write pgctrl reset
ktap_finish
