#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Writes that stress-fuzz found crashing the kernel, one case each:
# 1. add_device with a '/' after the '@' (the name becomes a proc file
#    name: proc_create WARNs, a panic with panic_on_warn) must be EINVAL;
# 2. xmit_mode queue_xmit with frags on a
# VLAN or MPLS stream.  The dummy device has no scatter-gather for tagged
# packets, so validate_xmit_skb() linearizes the skb; a shared skb there is
# a BUG() in pskb_expand_head().  Each run must send COUNT frames of
# pkt_size bytes with the tag and the pktgen header intact, each built skb
# sent once (clone_skb 0) or 10 times (clone_skb 10).
#
#   netns $NS: [ d0 (dummy) ] <- pktgen, tcpdump on d0's egress
. "$(dirname "$0")/lib/lib.sh"

COUNT=100 SIZE=1000

ktap_header
ktap_plan 11

if ! pg_is_ours; then
	ktap_skip "fuzzer regressions" "ours only: stock has the same code paths; not run on it"
	ktap_finish
fi
if ! pg_load; then
	ktap_fail "module loads"
	ktap_finish
fi
ktap_pass "module loads"
_pgw_init
tmp=$(lib_tmpdir)
setup_ns NS
dummy_create "$NS" d0

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
slash_refused() {
	local rc=0 res
	_PG_NS=$NS pg_write kpktgend_0 "add_device d0@a/b" || rc=$?
	res=$(_PG_NS=$NS pg_result kpktgend_0)
	[ "$rc" -eq 22 ] && [ "$res" = "ERROR: can not add device d0@a/b" ] && return 0
	echo "errno $rc, Result '$res'"
	return 1
}
check "add_device d0@a/b: EINVAL, 'ERROR: can not add device d0@a/b'" slash_refused
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "no file d0@a/b or d0@a" eval '! ip netns exec "$NS" ls "$PG_PROC" | grep -q "^d0@"'

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
one_run() {	# LABEL CLONE ENCAP...: configure, capture, run, check
	local label=$1 clone=$2 res
	shift 2
	_PG_NS=$NS pg_write pgctrl reset
	_PG_NS=$NS pg_set kpktgend_0 "add_device d0" || return 1
	for c in "count $COUNT" "pkt_size $SIZE" "frags 3" "xmit_mode queue_xmit" \
		 "clone_skb $clone" "dst 10.0.0.9" "dst_mac 02:00:00:00:00:09" "$@"; do
		_PG_NS=$NS pg_set d0 "$c" || return 1
	done
	cap_start "$NS" d0 "$tmp/$label.pcap" || return 1
	_PG_NS=$NS pg_write pgctrl start || { echo "start: errno $?"; return 1; }
	cap_stop
	res=$(_PG_NS=$NS pg_result d0)
	[[ "$res" == "OK: "*", $COUNT ($SIZE"* ]] || { echo "Result: $res"; return 1; }
}
# the capture: COUNT frames of SIZE bytes, all with the tag; the pktgen
# seq is the same for the CLONE sends of one skb and rises from 1
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
frames_ok() {	# LABEL CLONE KIND
	python3 -S "$LIB_DIR/pcap_check.py" tags "$tmp/$1.pcap" "$2" "$3" "$COUNT" "$SIZE"
}

for clone in 0 10; do
	check "vlan, clone_skb $clone: run of $COUNT" one_run "vlan$clone" "$clone" "vlan_id 5"
	check "vlan, clone_skb $clone: $COUNT tagged frames of $SIZE bytes on the wire" \
		frames_ok "vlan$clone" "$clone" vlan
	check "mpls, clone_skb $clone: run of $COUNT" one_run "mpls$clone" "$clone" "mpls 00010000"
	check "mpls, clone_skb $clone: $COUNT labelled frames of $SIZE bytes on the wire" \
		frames_ok "mpls$clone" "$clone" mpls
done

ktap_finish
