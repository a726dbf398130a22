#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# queue_xmit sends one built skb again and again (clone_skb): every copy
# must be an skb of the stack's own, which the stack may write whatever
# changed since the skb was built (Documentation/design.rst, "Who may
# write an skb").  Each case changes the device mid-run so that the
# stack rewrites copies that a check taken at build time saw otherwise:
#
#  - UDPCSUM on a device with checksum offload builds CHECKSUM_PARTIAL
#    frames with fragments; `ethtool -K d0 tx off` makes the stack sum
#    them itself, linearizing the fragments first;
#  - fragments, netem delaying every copy; `ethtool -K d0 sg off` while
#    copies wait, so that the stack linearizes them at dequeue;
#  - start_xmit with burst on macsec, which forwards what it sends while
#    it keeps IFF_TX_SKB_SHARING.
#
# Handed a shared skb, both end in pskb_expand_head()'s BUG (the stock
# module's queue_xmit shares its skb: it is not run here).  Each case
# checks that the run goes on and ends with Result OK, and that the
# frames the tap of d0 saw after the change are whole, with good
# checksums; tests/lib/run.sh fails the script on any splat.
#
#   netns $NS:  [ d0 (dummy) 10.71.0.1 ] -> pktgen queue_xmit, clone_skb 1000
. "$(dirname "$0")/lib/lib.sh"

ktap_header
ktap_plan 9

SIZE=1000	# pkt_size: the frame without FCS, as captured

pg_is_ours || ktap_skip_rest "skb ownership" "the stock module shares its skb in queue_xmit"
pg_load || { ktap_fail "module loads"; ktap_finish; }
TMP=$(lib_tmpdir)
setup_ns NS
dummy_create "$NS" d0
ip -n "$NS" addr add 10.71.0.1/24 dev d0
MAC=$(ip -n "$NS" -br link show d0 | awk '{ print $3 }')

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {	# EXTRA-COMMANDS...
	local c
	for c in "rem_device_all" "add_device d0"; do
		in_ns "$NS" pg_set kpktgend_0 "$c" || return 1
	done
	for c in "xmit_mode queue_xmit" "clone_skb 1000" "frags 2" "pkt_size $SIZE" \
		 "ratep 2000" "count 0" "dst 10.71.0.1" "src_min 10.71.0.2" \
		 "src_max 10.71.0.2" "dst_mac $MAC" "udp_dst_min 9" "udp_dst_max 9" "$@"; do
		in_ns "$NS" pg_set d0 "$c" || return 1
	done
}

sofar() {
	in_ns "$NS" pg_read d0 | sed -n 's/^     pkts-sofar: \([0-9]*\) .*/\1/p'
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
sending() { [ "$(sofar)" -gt "${1:-0}" ]; }

# toggled LABEL CHANGE...: a run of the device set up; once it sends,
# CHANGE (a command in $NS); the tap's frames of the next 1000 sends
toggled() {
	local label=$1 pid rc res n
	shift
	pg_start_ns "$NS" 60 &
	pid=$!
	slowwait 20 sending
	check "$label: the change" in_ns "$NS" "$@"
	cap_start "$NS" d0 "$TMP/$label.pcap" || ktap_diag "$label: no capture"
	n=$(sofar)
	slowwait 10 sending "$((n + 1000))"
	in_ns "$NS" pg_write pgctrl stop
	wait "$pid"
	rc=$?
	cap_stop
	res=$(in_ns "$NS" pg_result d0)
	ktap_diag "$label: Result: $res"
	check "$label: start returns, Result OK, sent on after the change" \
		test "$rc" -eq 0 -a "${res#OK: }" != "$res" -a "$(sofar)" -ge "$((n + 1000))"
	check "$label: the tap saw whole frames with good checksums after it" \
		python3 -S "$LIB_DIR/pcap_check.py" whole "$TMP/$label.pcap" "$SIZE" 500
}

check "configure d0: queue_xmit, clone_skb 1000, frags 2, UDPCSUM" setup "flag UDPCSUM"
in_ns "$NS" ethtool -K d0 tx on >/dev/null
toggled csum_off ethtool -K d0 tx off
in_ns "$NS" ethtool -K d0 tx on >/dev/null

check "configure d0: the same without UDPCSUM, netem delay 50ms" \
	setup "flag !UDPCSUM"
tc -n "$NS" qdisc add dev d0 root netem delay 50ms
toggled sg_off_queued ethtool -K d0 sg off
tc -n "$NS" qdisc del dev d0 root
in_ns "$NS" ethtool -K d0 sg on >/dev/null

# start_xmit shares its skb only with a driver that neither writes nor
# forwards it: macsec keeps ether_setup()'s IFF_TX_SKB_SHARING, yet with
# protect off sends the skb itself on through its lower device, here a
# veth whose peer queues it for its stack.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
macsec_case() {
	local c res
	veth_create "$NS" v0 "$NS" v1 || return 1
	ip -n "$NS" link add link v0 name ms0 type macsec protect off || return 1
	ip netns exec "$NS" sysctl -qw net.ipv6.conf.ms0.disable_ipv6=1 &&
		ip -n "$NS" link set ms0 up || return 1
	for c in "rem_device_all" "add_device ms0"; do
		in_ns "$NS" pg_set kpktgend_0 "$c" || return 1
	done
	for c in "burst 8" "count 800" "pkt_size $SIZE" "frags 2" "ratep 20000" \
		 "dst 10.71.0.1" "src_min 10.71.0.2" "src_max 10.71.0.2" \
		 "dst_mac $MAC" "udp_dst_min 9" "udp_dst_max 9"; do
		in_ns "$NS" pg_set ms0 "$c" || return 1
	done
	cap_start "$NS" v1 "$TMP/macsec.pcap" || return 1
	pg_start_ns "$NS" 60
	cap_stop
	res=$(in_ns "$NS" pg_result ms0)
	echo "Result: $res"
	[ "${res#OK: }" != "$res" ] && [[ $res == *" 800 ("* ]] &&
		python3 -S "$LIB_DIR/pcap_check.py" whole "$TMP/macsec.pcap" "$SIZE" 800
}
if ip -n "$NS" link add link d0 name mstry type macsec 2>/dev/null; then
	ip -n "$NS" link del mstry
	check "start_xmit, burst 8, on macsec (protect off) over veth: 800 whole frames on the peer" \
		macsec_case
else
	ktap_skip "start_xmit on macsec" "no macsec here"
fi

in_ns "$NS" pg_write pgctrl reset
pg_unload || ktap_fail "unload"
ktap_finish
