# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers shared by the receiver tests (tests/rx-*.sh).  Sourced after
# tests/lib/lib.sh.

# rx_cmd NS CMD: write CMD to pgrx in NS; must succeed with Result OK:.
rx_cmd() { in_ns "$1" pg_set pgrx "$2"; }

# rx_snap NS: pgrx of NS (display script) into RX_TEXT.
rx_snap() { RX_TEXT=$(in_ns "$1" pg_read pgrx); }

# rx_val KEY: the value of KEY in RX_TEXT.
rx_val() { sed -n "s/^$1=//p" <<<"$RX_TEXT"; }

# rx_expect KEY VALUE [KEY VALUE...]: each KEY has exactly VALUE.
rx_expect() { kv_expect "$RX_TEXT" "$@"; }

# rx_between KEY LO HI: LO <= value of KEY <= HI.
rx_between() {
	local got
	got=$(rx_val "$1")
	[ -n "$got" ] && [ "$got" -ge "$2" ] && [ "$got" -le "$3" ] && return 0
	echo "$1=$got, want $2..$3"
	printf '%s\n' "$RX_TEXT"
	return 1
}

# rx_errno NS CMD ERRNO PATTERN: the write fails with ERRNO and a Result
# matching PATTERN (grep -E).
rx_errno() { pg_refuses "$1" pgrx "$2" "$3" "$4"; }

# tx_setup NS DEV: the first kpktgend thread of NS drives DEV (only).
tx_setup() {
	local thr
	thr=$(ip netns exec "$1" ls /proc/net/pktgen | grep kpktgend_ | sort -V | head -n 1)
	[ -n "$thr" ] && in_ns "$1" pg_write "$thr" "rem_device_all" &&
		in_ns "$1" pg_write "$thr" "add_device $2"
}

# tx_set NS DEV CMD...: pg_set each command on pktgen device DEV.
tx_set() {
	local ns=$1 dev=$2 c
	shift 2
	for c in "$@"; do
		in_ns "$ns" pg_set "$dev" "$c" || return 1
	done
}

# rx_pair_setup IPA IPB CMD...: netns TX and RX joined by veth0 (IPA/24)
# and veth1 (IPB/24); veth0 the one device of TX's first thread, sending
# to IPB at veth1's MAC, with the pktgen commands CMD... too.
rx_pair_setup() {
	local ipa=$1 ipb=$2
	shift 2
	setup_ns TX RX || return 1
	veth_create "$TX" veth0 "$RX" veth1 || return 1
	ip -n "$TX" addr add "$ipa/24" dev veth0 &&
		ip -n "$RX" addr add "$ipb/24" dev veth1 || return 1
	tx_setup "$TX" veth0 &&
		tx_set "$TX" veth0 "dst $ipb" "dst_mac $(mac_of "$RX" veth1)" "$@"
}

# tx_run NS: start the configured devices of NS and wait for the end.
tx_run() { pg_start_ns "$1"; }

# mac_of NS DEV: DEV's MAC address.
mac_of() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }

# wire_paths_create NS MIRRORED ROUTED VETH NET DST MAC: how tests see
# on a wire what a dummy of NS sends or receives.  Every frame MIRRORED
# sends leaves by VETH as it is (tc mirred: clone_skb copies, queue_xmit);
# what is injected into ROUTED (netif_receive) is forwarded, from
# NET.3.1/24 through VETH (NET.1.1/24), to DST at MAC.
wire_paths_create() {
	local ns=$1 mirrored=$2 routed=$3 veth=$4 net=$5
	tc -n "$ns" qdisc add dev "$mirrored" clsact &&
		tc -n "$ns" filter add dev "$mirrored" egress protocol all u32 match u32 0 0 \
			action mirred egress redirect dev "$veth" || return 1
	ip -n "$ns" addr add "$net.3.1/24" dev "$routed" &&
		ip -n "$ns" addr add "$net.1.1/24" dev "$veth" &&
		ip -n "$ns" neigh add "$6" lladdr "$7" dev "$veth" nud permanent || return 1
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
		"net.ipv4.conf.$routed.rp_filter=0"
}

# router_create SIP R0IP R1IP KIP NET: netns S, R, K (names in $S $R $K):
# S's s0 -- r0 R r1 -- k0 K over veth, /24 addresses, R forwards NET (a
# /24 behind K) via KIP.  Every neighbour is static (no ARP during the
# runs) and S's default route is R.  MACs in MS MR0 MR1 MK.
router_create() {
	setup_ns S R K || return 1
	veth_create "$S" s0 "$R" r0 && veth_create "$R" r1 "$K" k0 || return 1
	ip -n "$S" addr add "$1/24" dev s0 && ip -n "$R" addr add "$2/24" dev r0 &&
		ip -n "$R" addr add "$3/24" dev r1 && ip -n "$K" addr add "$4/24" dev k0 ||
		return 1
	ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1 || return 1
	# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
	MR0=$(mac_of "$R" r0) MR1=$(mac_of "$R" r1) MK=$(mac_of "$K" k0) MS=$(mac_of "$S" s0)
	ip -n "$S" neigh add "$2" lladdr "$MR0" dev s0 nud permanent &&
		ip -n "$S" route add default via "$2" &&
		ip -n "$R" neigh add "$4" lladdr "$MK" dev r1 nud permanent &&
		ip -n "$R" neigh add "$1" lladdr "$MS" dev r0 nud permanent &&
		ip -n "$R" route add "$5" via "$4"
}

# fwd_path_create NET: netns TX, FWD, RX (names in $TX $FWD $RX): TX's
# veth0 (NET.1.1/24) -- veth1 FWD veth2 -- veth3 RX (NET.2.2/24), FWD
# forwarding with a static neighbour for RX; pgrx on veth3 (display
# script) and pktgen on veth0 sending 60-byte frames to NET.2.2.
fwd_path_create() {
	setup_ns TX FWD RX || return 1
	veth_create "$TX" veth0 "$FWD" veth1 && veth_create "$FWD" veth2 "$RX" veth3 || return 1
	ip -n "$TX" addr add "$1.1.1/24" dev veth0 &&
		ip -n "$FWD" addr add "$1.1.2/24" dev veth1 &&
		ip -n "$FWD" addr add "$1.2.1/24" dev veth2 &&
		ip -n "$RX" addr add "$1.2.2/24" dev veth3 || return 1
	ip netns exec "$FWD" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.veth1.rp_filter=0 || return 1
	ip -n "$FWD" neigh replace "$1.2.2" lladdr "$(mac_of "$RX" veth3)" dev veth2 \
		nud permanent || return 1
	rx_cmd "$RX" "rx veth3" && rx_cmd "$RX" "display script" || return 1
	tx_setup "$TX" veth0 &&
		tx_set "$TX" veth0 "pkt_size 60" "dst $1.2.2" "dst_mac $(mac_of "$FWD" veth1)"
}

# ip_in_receives NS: Ip InReceives of NS (packets the IPv4 stack saw).
ip_in_receives() {
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	ip netns exec "$1" awk '/^Ip: [0-9]/ { print $4 }' /proc/net/snmp
}

# rx_begin PLAN: how every receiver test starts: on the stock module (no
# pgrx) one skipped subtest; else the KTAP header and plan, then the
# test's setup(), whose output is shown only if it fails (and ends the
# test).  A test with more preconditions checks them before this.
rx_begin() {
	local log
	if ! pg_is_ours; then
		ktap_header
		ktap_plan 1
		ktap_skip "receiver" "the stock pktgen has no receiver (pgrx)"
		ktap_finish
	fi
	ktap_header
	ktap_plan "$1"
	log=$(lib_tmpdir)/setup.log
	if ! setup >"$log" 2>&1; then
		ktap_fail "setup" "$(cat "$log")"
		ktap_finish
	fi
}

# udp_noports: RX's count of UDP datagrams to no socket (/proc/net/snmp)
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
udp_noports() { ip netns exec "$RX" awk '/^Udp: [0-9]/ { print $3 }' /proc/net/snmp; }

# netem_available: the kernel has sch_netem (tried on a probe netns)
netem_available() {
	local probe
	modprobe -q sch_netem 2>/dev/null
	setup_ns probe && ip -n "$probe" link add d0 type dummy &&
		tc -n "$probe" qdisc add dev d0 root netem 2>/dev/null
}

# qdisc_empty: the forwarder's netem qdisc on veth2 holds nothing
qdisc_empty() {
	ip netns exec "$FWD" tc -s qdisc show dev veth2 | grep -q 'backlog 0b 0p'
}

# rxj_cmd NS CMD [ERRNO REGEX]: write CMD to pgrx in NS, whatever its
# display (json has no Result line: its "result"): must succeed with a
# Result OK: (or fail with ERRNO, the Result matching REGEX, grep -E).
rxj_cmd() {
	local rc=0 res
	in_ns "$1" pg_write pgrx "$2" || rc=$?
	res=$(ip netns exec "$1" /usr/bin/python3 "$LIB_DIR/rx_json_check.py" result \
		/proc/net/pktgen/pgrx)
	[ "$rc" -eq "${3:-0}" ] && grep -qE "${4:-^OK:}" <<<"$res" && return 0
	echo "'$2': errno $rc, Result: $res (want ${3:-0}, /${4:-^OK:}/)"
	return 1
}
