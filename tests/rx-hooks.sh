#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# suite: slow
#
# netif_receive (burst 8, and 1) into a device whose receive path has a
# hook that takes an skb as its own: generic XDP, a tc ingress BPF
# program that grows the head (a qdisc's filter, and from 6.6 a tcx
# link, which needs no qdisc), a macvlan (an rx_handler); RPS, which
# queues the skb; then hooks attached and removed while a run goes on
# (for HOOK_SECONDS, 8), linear, with fragments, and with a tap.  Such a
# hook may reallocate the skb (generic XDP does for a cloned or
# nonlinear one, or one with less than 256 bytes of headroom), which
# BUG()s on a shared one (pskb_expand_head; the stock module dies so):
# every injection must be an skb of the stack's own.  Every case checks the
# frames as the device's tap saw them (tcpdump on d0 sees the injected
# frames before tc and the rx_handler), the Result, and where the stack
# keeps the frame, UDP's counters; tests/lib/run.sh fails the script on
# any splat.
#
#   netns $NS:  [ d0 (dummy) 10.71.0.1 ] <- pktgen netif_receive, burst 8
#               keep0 (dummy): XDP and clsact, so the static keys stay on
. "$(dirname "$0")/lib/lib.sh"

ktap_header
ktap_plan 32

BPFPROG=(python3 -S "$LIB_DIR/bpfprog.py")
N=64
HOOK_SECONDS=${HOOK_SECONDS:-8}	# how long hooks come and go during a run

if ! pg_load; then
	ktap_fail "module loads"
	ktap_finish
fi
TMP=$(lib_tmpdir)
setup_ns NS
dummy_create "$NS" d0
dummy_create "$NS" keep0
ip -n "$NS" addr add 10.71.0.1/24 dev d0
MAC=$(ip -n "$NS" -br link show d0 | awk '{ print $3 }')
# a bpffs of this test's own, outside /sys: `ip -n` mounts a new sysfs
BPFDIR=$TMP/bpffs
mkdir "$BPFDIR"
if mount -t bpf bpf "$BPFDIR" 2>/dev/null; then
	defer umount "$BPFDIR"
else
	BPFDIR=""
fi

# which programs this kernel takes (exit 4: no BPF syscall or refused)
have_xdp=0 have_tc=0 have_tcx=0 have_macvlan=0
no_xdp="no BPF_PROG_TYPE_XDP here" no_tc="no BPF_PROG_TYPE_SCHED_CLS here"
no_tcx="no tcx links here (before 6.6)" no_macvlan="no macvlan here"
if ! pg_is_ours; then
	# its shared skb in a hook is the bug this test is about
	no_xdp="the stock module BUG()s here" no_tc=$no_xdp no_tcx=$no_xdp no_macvlan=$no_xdp
	BPFDIR=""
else
	ip -n "$NS" link add mv0 link keep0 type macvlan 2>/dev/null && have_macvlan=1
fi
[ -n "$BPFDIR" ] && "${BPFPROG[@]}" xdp-pass "$BPFDIR/xdp" 2>"$TMP/bpf.log" && have_xdp=1
[ -n "$BPFDIR" ] && "${BPFPROG[@]}" tc-grow "$BPFDIR/tc" 2>>"$TMP/bpf.log" && have_tc=1
[ $have_tc = 1 ] && in_ns "$NS" "${BPFPROG[@]}" tcx-link "$BPFDIR/tc" keep0 "$BPFDIR/tcx" \
	2>>"$TMP/bpf.log" && in_ns "$NS" "${BPFPROG[@]}" link-detach "$BPFDIR/tcx" && have_tcx=1
ip -n "$NS" link del mv0 2>/dev/null
[ -s "$TMP/bpf.log" ] && sed 's/^/# /' "$TMP/bpf.log"

# the generic XDP, ingress and (6.12) software-filter static keys held on
# from keep0: under TCG patching one while the other vCPU runs through it
# can hang both or oops on its int3 (lib.sh, pin_static_keys)
[ $have_xdp = 1 ] && ip -n "$NS" link set dev keep0 xdpgeneric pinned "$BPFDIR/xdp"
tc -n "$NS" qdisc add dev keep0 clsact
[ $have_tc = 1 ] && tc -n "$NS" filter add dev keep0 ingress bpf direct-action \
	object-pinned "$BPFDIR/tc"

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	local c
	for c in "rem_device_all" "add_device d0"; do
		in_ns "$NS" pg_set kpktgend_0 "$c" || return 1
	done
	for c in "xmit_mode netif_receive" "burst 8" "pkt_size 100" "dst 10.71.0.1" \
		 "src_min 10.71.0.2" "src_max 10.71.0.2" "dst_mac $MAC" \
		 "udp_dst_min 9" "udp_dst_max 9"; do
		in_ns "$NS" pg_set d0 "$c" || return 1
	done
}
check "configure d0: netif_receive, burst 8, to d0's MAC $MAC" setup

# UDP datagrams IP handed to UDP (delivered or to a closed port)
udp_in() {
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	in_ns "$NS" awk '/^Udp: [0-9]/ { print $2 + $3; exit }' /proc/net/snmp
}

# one_case LABEL UDP: a run of $N into d0, captured on d0; UDP=1: every
# frame reaches UDP
one_case() {
	local label=$1 want_udp=$2 u0 u1 res sofar
	u0=$(udp_in)
	cap_start "$NS" d0 "$TMP/$label.pcap" || { ktap_fail "$label: capture"; return; }
	in_ns "$NS" pg_set d0 "count $N"
	pg_start_ns "$NS"
	cap_stop
	u1=$(udp_in)
	res=$(in_ns "$NS" pg_result d0)
	sofar=$(in_ns "$NS" pg_read d0 | sed -n 's/^     pkts-sofar: \([0-9]*\) .*/\1/p')
	ktap_diag "$label: Result: $res; UDP in: $((u1 - u0))"
	check "$label: Result OK, $N injected" test "${res#OK: }" != "$res" -a "$sofar" = "$N"
	check "$label: the tap saw $N pktgen frames 10.71.0.2 > 10.71.0.1:9, checksums good" \
		python3 -S "$LIB_DIR/pcap_check.py" tap "$TMP/$label.pcap" "$N"
	if [ "$want_udp" = 1 ]; then
		check "$label: UDP took all $N" test "$((u1 - u0))" -eq "$N"
	fi
}

one_case plain 1

if [ $have_xdp = 1 ]; then
	check "generic XDP on d0" ip -n "$NS" link set dev d0 xdpgeneric pinned "$BPFDIR/xdp"
	one_case xdp 1
	# burst 1, the default: the stock module shares its skb even then
	in_ns "$NS" pg_set d0 "burst 1"
	one_case xdp_burst1 1
	in_ns "$NS" pg_set d0 "burst 8"
	ip -n "$NS" link set dev d0 xdpgeneric off
else
	for i in 1 2 3 4 5 6 7; do ktap_skip "generic XDP ($i)" "$no_xdp"; done
fi

if [ $have_tc = 1 ]; then
	tc -n "$NS" qdisc add dev d0 clsact
	check "tc ingress BPF growing the head by 1024 on d0" \
		tc -n "$NS" filter add dev d0 ingress bpf direct-action object-pinned "$BPFDIR/tc"
	# the frame grown by 1024 zero bytes is no IPv4 for IP: no UDP check
	one_case tc_grow 0
	tc -n "$NS" qdisc del dev d0 clsact
else
	for i in 1 2 3; do ktap_skip "tc ingress BPF ($i)" "$no_tc"; done
fi

# the same program as a tcx link (6.6 and newer): tc's hook without a
# qdisc, and published at once
if [ $have_tcx = 1 ]; then
	check "tcx link growing the head by 1024 on d0" \
		in_ns "$NS" "${BPFPROG[@]}" tcx-link "$BPFDIR/tc" d0 "$BPFDIR/tcx"
	one_case tcx_grow 0
	check "tcx link detached" in_ns "$NS" "${BPFPROG[@]}" link-detach "$BPFDIR/tcx"
else
	for i in 1 2 3 4; do ktap_skip "tcx link ($i)" "$no_tcx"; done
fi

if [ $have_macvlan = 1 ]; then
	check "macvlan mv0 on d0 (an rx_handler)" ip -n "$NS" link add mv0 link d0 type macvlan
	one_case macvlan 1
	ip -n "$NS" link del mv0
else
	for i in 1 2 3 4; do ktap_skip "macvlan ($i)" "$no_macvlan"; done
fi

# No hook, but RPS: every injection is queued for a backlog, where the
# stack holds the skb after netif_receive_skb() returns: the burst must
# end there rather than inject an skb still queued.
rps=/sys/class/net/d0/queues/rx-0/rps_cpus
if in_ns "$NS" sh -c "echo $(printf '%x' $(( (1 << $(nproc)) - 1 ))) > $rps" 2>/dev/null; then
	one_case rps 1
	in_ns "$NS" sh -c "echo 0 > $rps"
	have_rps=1
else
	for i in 1 2 3; do ktap_skip "RPS ($i)" "no $rps"; done
fi

# A transmit queue is no receive queue: with RPS, an injected skb that
# kept queue_map 3 of a device with four transmit queues and two receive
# queues made get_rps_cpu() warn about a receive queue it does not have.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
mq_rps() {
	local res
	ip -n "$NS" link add mq0 numtxqueues 4 numrxqueues 2 type veth \
		peer name mq1 numtxqueues 1 numrxqueues 1 || return 1
	_dev_prep "$NS" mq0 && _dev_prep "$NS" mq1 || return 1
	in_ns "$NS" sh -c "echo 1 > /sys/class/net/mq0/queues/rx-0/rps_cpus" || return 1
	in_ns "$NS" pg_set kpktgend_0 "add_device mq0" || return 1
	for c in "xmit_mode netif_receive" "burst 8" "count $N" "queue_map_min 3" \
		 "queue_map_max 3" "dst 10.71.0.1" "dst_mac $MAC"; do
		in_ns "$NS" pg_set mq0 "$c" || return 1
	done
	pg_start_ns "$NS" || return 1
	res=$(in_ns "$NS" pg_result mq0)
	echo "Result: $res"
	setup && ip -n "$NS" link del mq0 && [ "${res#OK: }" != "$res" ]
}
if [ "${have_rps:-0}" = 1 ]; then
	check "netif_receive with queue_map 3 into a 4-TX/2-RX-queue veth with RPS: no warning" \
		mq_rps
else
	ktap_skip "netif_receive with queue_map 3, RPS" "no $rps"
fi

# Hooks come and go while a run injects bursts: nothing to check but that
# the kernel lives, and the run stops cleanly.  Each round attaches and
# detaches in batches (one ip or tc process for 20 changes), so that a
# change lands inside an injection often: the generic XDP program did in
# about a minute of single changes before the burst's skb had the
# headroom it wants.
flip_batch() {	# FILE: 20 rounds of the hooks this kernel takes, as tc and ip batches
	local i
	: >"$1.ip"
	: >"$1.tc"
	for i in $(seq 20); do
		[ $have_xdp = 1 ] && printf '%s\n' \
			"link set dev d0 xdpgeneric pinned $BPFDIR/xdp" \
			"link set dev d0 xdpgeneric off" >>"$1.ip"
		[ $have_macvlan = 1 ] && printf '%s\n' \
			"link add mv0 link d0 type macvlan" "link del mv0" >>"$1.ip"
		echo "qdisc add dev d0 clsact" >>"$1.tc"
		[ $have_tc = 1 ] && echo "filter add dev d0 ingress bpf direct-action" \
			"object-pinned $BPFDIR/tc" >>"$1.tc"
		echo "qdisc del dev d0 clsact" >>"$1.tc"
	done
}
flip_hooks() {
	local end=$((SECONDS + HOOK_SECONDS)) n=0
	flip_batch "$TMP/flip"
	while [ $SECONDS -lt $end ]; do
		[ -s "$TMP/flip.ip" ] && ip -force -n "$NS" -batch "$TMP/flip.ip"
		tc -force -n "$NS" -batch "$TMP/flip.tc"
		n=$((n + 20))
	done
	echo "$n"
}
flip_run() {	# LABEL: a run while hooks come and go
	local label=$1 start_pid rc res rounds
	in_ns "$NS" pg_set d0 "count 0"
	pg_start_ns "$NS" $((HOOK_SECONDS + 60)) &
	start_pid=$!
	sleep 2
	rounds=$(flip_hooks)
	in_ns "$NS" pg_write pgctrl stop
	wait "$start_pid"
	rc=$?
	res=$(in_ns "$NS" pg_result d0)
	ktap_diag "$label: hooks added and removed $rounds times during the run; Result: $res"
	check "$label: a run while hooks come and go: start returns, Result OK" \
		test "$rc" -eq 0 -a "${res#OK: }" != "$res"
	check "$label: ... and hooks came and went at least once" test "${rounds:-0}" -ge 1
}
flip_run linear

# The same with fragments (generic XDP linearizes a nonlinear skb), and
# then with a tap on d0 (tcpdump, whose clone leaves the burst's data
# cloned, which generic XDP reallocates too): every injection must be an
# skb of the stack's own.
in_ns "$NS" pg_set d0 "frags 2"
flip_run frags
in_ns "$NS" pg_set d0 "frags 0"
if CAP_SNAPLEN=64 cap_start "$NS" d0 "$TMP/flip-tap.pcap"; then
	flip_run tap
	cap_stop
else
	for i in 1 2; do ktap_skip "tap ($i)" "no capture"; done
fi

in_ns "$NS" pg_write pgctrl reset
if [ $have_xdp = 1 ]; then
	ip -n "$NS" link set dev keep0 xdpgeneric off
fi
pg_unload || ktap_fail "unload"
ktap_finish
