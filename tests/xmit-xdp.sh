#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xmit_mode xdp: xdp_frames through the device's ndo_xdp_xmit().
#
#   netns A (NSA)                          netns B (NSB)
#   +---------------------------+          +---------------------------+
#   | pktgen "vethA"            |   veth   | vethB  <-- tcpdump        |
#   |   10.96.0.1/24            |<-------->|   XDP_PASS (native)       |
#   | pktgen "d0" (dummy)       |          |   ingress: drop all       |
#   +---------------------------+          +---------------------------+
#
# veth takes frames when its peer has an XDP program (an XDP_PASS one,
# tests/lib/bpfprog.py, attached native); the peer makes skbs of them,
# which the capture sees.  Checked: the refusals (a dummy has no
# ndo_xdp_xmit; clone_skb; frags and flag IPSEC, at write time, either
# order); start_xmit and xdp runs of the same settings give the same
# bytes (wire_xdp_check.py), counted as sent; UDPCSUM is a complete sum;
# ratep paces; pgrx counts the frames; a burst of 1000 is not refused
# for want of the peer's NAPI; what devmap checks (a frame over the MTU
# refused at start, every frame over a lowered MTU ending the run, no
# program on the peer; with imix, its sizes are what the MTU is held to); the peer's program removed mid-run ends the run
# with an ERROR Result; vethA deleted mid-run ends it too.  A kernel without the interface refuses the mode:
# the rest is skipped there; one with it (the build's probe or its
# version says so) that refuses it fails.

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

IPA=10.96.0.1 IPB=10.96.0.2 N=300
BPFPROG=(python3 -S "$LIB_DIR/bpfprog.py")

ktap_header
ktap_plan 39

TMP=$(lib_tmpdir)

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_load || return 1
	setup_ns NSA NSB || return 1
	veth_create "$NSA" vethA "$NSB" vethB || return 1
	dummy_create "$NSA" d0 || return 1
	ip -n "$NSA" addr add "$IPA/24" dev vethA &&
		ip -n "$NSB" addr add "$IPB/24" dev vethB || return 1
	ip netns exec "$NSB" tc qdisc add dev vethB clsact &&
		ip netns exec "$NSB" tc filter add dev vethB ingress \
			matchall action drop || return 1
	# checksums as the software sums them: veth would leave them partial
	ip netns exec "$NSA" ethtool -K vethA tx off >/dev/null || return 1
	MACB=$(ns_cat "$NSB" /sys/class/net/vethB/address) || return 1
	THR=$(pg_first_thread "$NSA") || return 1
	in_ns "$NSA" pg_write "$THR" "add_device vethA" &&
		in_ns "$NSA" pg_write "$THR" "add_device d0"
}

ktap_setup setup

BPFDIR=$TMP/bpffs
mkdir -p "$BPFDIR"
have_prog=0
if mount -t bpf bpf "$BPFDIR" 2>/dev/null; then
	defer umount "$BPFDIR"
	"${BPFPROG[@]}" xdp-pass "$BPFDIR/xdp" && have_prog=1
fi
# shellcheck disable=SC2317 # run indirectly (check)
xdp_on() { ip -n "$NSB" link set dev vethB xdpdrv pinned "$BPFDIR/xdp"; }
# shellcheck disable=SC2317 # run indirectly (check)
xdp_off() { ip -n "$NSB" link set dev vethB xdpdrv off; }

# 1. refusals, before any run
check "xmit_mode xdp on a dummy (no ndo_xdp_xmit): EOPNOTSUPP" \
	pg_refuses "$NSA" d0 "xmit_mode xdp" 95 '^ERROR: .*(ndo_xdp_xmit|kernel)'
# whether the kernel has what the mode needs (xdp_frame.flags, v5.18):
# the build's probe says so, or the kernel is that new.  Only a kernel
# without it may refuse the mode; anywhere else a refusal is a failure
# (a probe that failed for another reason turned the mode off)
xdp_kernel() {
	local probes
	probes=$(dirname "${PKTGEN_KO:-/nonexistent}")/.probes/pktgen_probes.h
	grep -q '^#define HAVE_XDP_FRAME_FLAGS 1' "$probes" 2>/dev/null || kver_ge 5 18
}
if ! in_ns "$NSA" pg_write vethA "xmit_mode xdp"; then
	res=$(in_ns "$NSA" pg_result vethA)
	if xdp_kernel; then
		ktap_fail "xmit_mode xdp on vethA, a kernel with xdp_frame.flags" "$res"
		while [ "$_KT_N" -lt "$_KT_PLAN" ]; do
			ktap_fail "xmit_mode xdp ($((_KT_N + 1)))" "not reached: the mode was refused"
		done
		ktap_finish
	fi
	ktap_skip_rest "xmit_mode xdp" "refused on vethA: $res"
fi
check "Params show xmit_mode: xdp" \
	grep -q '^     xmit_mode: xdp$' <<<"$(in_ns "$NSA" pg_read vethA)"
check "clone_skb 1 in xdp mode: EOPNOTSUPP" \
	pg_refuses "$NSA" vethA "clone_skb 1" 95 '^ERROR: clone_skb > 0 is not supported in xdp mode'
check "burst 8 in xdp mode, without flag SHARED: OK" in_ns "$NSA" pg_set vethA "burst 8"
in_ns "$NSA" pg_write vethA "burst 1"
# frags and IPSEC refused as they are written (pktgen_rules.c), both ways
check "frags 2 in xdp mode: EOPNOTSUPP" \
	pg_refuses "$NSA" vethA "frags 2" 95 '^ERROR: frags > 0 is not supported in xdp mode'
check "flag IPSEC in xdp mode: EOPNOTSUPP" \
	pg_refuses "$NSA" vethA "flag IPSEC" 95 '^ERROR: flag IPSEC is not supported in xdp mode'
in_ns "$NSA" pg_write vethA "xmit_mode start_xmit"
in_ns "$NSA" pg_write vethA "frags 2"
check "xmit_mode xdp with frags 2: EOPNOTSUPP" \
	pg_refuses "$NSA" vethA "xmit_mode xdp" 95 '^ERROR: xdp mode needs frags 0'
in_ns "$NSA" pg_write vethA "frags 0"
in_ns "$NSA" pg_write vethA "flag IPSEC"
check "xmit_mode xdp with flag IPSEC: EOPNOTSUPP" \
	pg_refuses "$NSA" vethA "xmit_mode xdp" 95 '^ERROR: xdp mode needs flag !IPSEC'
in_ns "$NSA" pg_write vethA "flag !IPSEC"
# d0 off the thread: only vethA runs from here
in_ns "$NSA" pg_write "$THR" "rem_device_all" &&
	in_ns "$NSA" pg_write "$THR" "add_device vethA"

if [ "$have_prog" != 1 ] || ! xdp_on; then
	ktap_skip_rest "xdp runs" "no XDP program could be loaded or attached to vethB"
fi

# one_run LABEL MODE PAIR UDPCSUM N CMD...: vethA set to MODE and CMD...,
# one run of N packets (the capture running), its Result checked; the
# frames are checked at the end (wire_xdp_check.py)
RUNS=()
one_run() {
	local lab=$1 mode=$2 pair=$3 csum=$4 n=$5 c out="" rc=0
	shift 5
	for c in "xmit_mode $mode" "$@"; do
		out=$(in_ns "$NSA" pg_set vethA "$c") || break
	done
	[ -z "$out" ] && { pg_start_ns "$NSA" || rc=$?; }
	check "$lab: Result OK, $n sent, no errors" pg_run_ok "$NSA" vethA "$n" "$rc" "$out"
	RUNS+=("$(printf '{"lab": "%s", "n": %d, "pair": "%s", "udpcsum": %s}' \
		"$lab" "$n" "$pair" "$csum")")
}

# 2. the same settings through start_xmit and xdp, on the wire
if ! cap_start "$NSB" vethB "$TMP/wire.pcap"; then
	ktap_fail "capture on vethB"
	ktap_finish
fi
BASE=("count $N" "dst $IPB" "dst_mac $MACB")
one_run start60 start_xmit "" false "$N" "${BASE[@]}" "pkt_size 60"
one_run xdp60 xdp start60 false "$N" "pkt_size 60"
one_run start1000 start_xmit "" false "$N" "pkt_size 1000" "src_min 10.96.0.10" \
	"src_max 10.96.0.20" "udp_dst_min 9" "udp_dst_max 99" "flag NS_TIMESTAMP"
one_run xdp1000 xdp start1000 false "$N" "burst 16"
one_run xdp_udpcsum xdp "" true "$N" "burst 1" "flag UDPCSUM"
cap_stop
runs=$(IFS=,; echo "[${RUNS[*]}]")
out=$(python3 -S "$LIB_DIR/wire_xdp_check.py" "$TMP/wire.pcap" "$runs" 2>&1)
ktap_report <<<"$out"
in_ns "$NSA" pg_write vethA "flag !UDPCSUM"
in_ns "$NSA" pg_write vethA "flag !NS_TIMESTAMP"

# 3. pacing: ratep 1000, 500 packets take about half a second
in_ns "$NSA" pg_write vethA "ratep 1000"
in_ns "$NSA" pg_write vethA "count 500"
pg_start_ns "$NSA"
res=$(in_ns "$NSA" pg_result vethA)
usec=$(sed -n 's/^OK: \([0-9]*\)(.*/\1/p' <<<"$res")
check "ratep 1000: 500 packets in 0.45-5 s ($res)" \
	test "${usec:-0}" -ge 450000 -a "${usec:-0}" -le 5000000
in_ns "$NSA" pg_write vethA "delay 0"

# 4. the receiver counts them (no tc drop: pgrx takes them first)
ip netns exec "$NSB" tc qdisc del dev vethB clsact
in_ns "$NSA" pg_write vethA "count 2000"
in_ns "$NSA" pg_write vethA "burst 32"
if rx_cmd "$NSB" "rx vethB" && rx_cmd "$NSB" "display script"; then
	pg_start_ns "$NSA"
	rx_snap "$NSB"
	check "pgrx on vethB: 2000 received, none lost" \
		rx_expect rx_packets 2000 lost 0 duplicates 0
	rx_cmd "$NSB" "rx_disable vethB"
else
	ktap_fail "pgrx on vethB: 2000 received, none lost" "rx vethB refused"
fi

# 5. a burst of 1000 a slot: BH is off for one call of 64 at a time, so
# the NAPI veth schedules for its peer empties the peer's ring (256)
# between calls; with BH off for the whole burst, 3/4 were refused
# (reckoned, not measured: some 14000 errors for 5000 sent).  How many
# go between calls depends on when softirqs run (a busy host's TCG guest
# defers them to ksoftirqd: 3240 errors for 5000 on 6.1), so the bound
# is fewer errors than packets sent, which BH off for a whole burst
# cannot meet.
in_ns "$NSA" pg_write vethA "burst 1000"
in_ns "$NSA" pg_write vethA "count 5000"
pg_start_ns "$NSA"
cur=$(in_ns "$NSA" pg_read vethA)
sofar=$(sed -n 's/.*pkts-sofar: \([0-9]*\)  errors: .*/\1/p' <<<"$cur")
errs=$(sed -n 's/.*pkts-sofar: [0-9]*  errors: \([0-9]*\).*/\1/p' <<<"$cur")
check "burst 1000: 5000 sent, errors ${errs:-?} fewer than that" \
	test "${sofar:-0}" -eq 5000 -a "${errs:-5000}" -lt 5000
in_ns "$NSA" pg_write vethA "burst 1"

# 6. what devmap checks before ndo_xdp_xmit() (xdp_ok_fwd_dev(),
# xdp_features): a frame over the MTU is refused at start; the MTU
# lowered mid-run refuses every frame, and the run (with a count it
# would never reach) ends instead of spinning
ip -n "$NSA" link set dev vethA mtu 1000
in_ns "$NSA" pg_write vethA "count 10"
in_ns "$NSA" pg_write vethA "pkt_size 1100"
pg_start_ns "$NSA"
check "pkt_size 1100, vethA's MTU 1000: refused at start (EMSGSIZE)" \
	grep -qE '^Result: ERROR: xmit_mode xdp: [0-9]+-byte frames over what vethA takes, 1018 \(MTU 1000 \+ header\) \(-90\)$' \
	<<<"$(in_ns "$NSA" pg_read vethA)"
ip -n "$NSA" link set dev vethA mtu 1500
in_ns "$NSA" pg_write vethA "pkt_size 1000"
in_ns "$NSA" pg_write vethA "count 1000000000"
pg_start_ns "$NSA" 60 &
START_PID=$!
# shellcheck disable=SC2016 # expanded by eval
check "running at MTU 1500" slowwait 30 eval 'in_ns "$NSA" pg_read vethA | grep -q "^Result: Starting"'
check "vethA's MTU lowered to 500 mid-run" ip -n "$NSA" link set dev vethA mtu 500
check_start_returned "a run whose every frame is refused ends by itself"
check "Result: ERROR: vethA took none of the last N frames, counted as errors" \
	grep -qE '^Result: ERROR: vethA took none of the last [0-9]+ frames .*MTU 500\) after [0-9]+ packets, [1-9][0-9]* errors$' \
	<<<"$(in_ns "$NSA" pg_read vethA)"
ip -n "$NSA" link set dev vethA mtu 1500
# no program and no GRO on the peer: veth's xdp_features (6.3 and later)
# say vethA takes no frames, and the start is refused; before, the
# driver's ENXIO ends the run
in_ns "$NSA" pg_write vethA "count 100"
xdp_off
ip netns exec "$NSB" ethtool -K vethB gro off >/dev/null 2>&1
pg_start_ns "$NSA"
res=$(in_ns "$NSA" pg_read vethA)
if kver_ge 6 3; then
	check "no XDP program on vethB: start refused (no NDO_XMIT in xdp_features)" \
		grep -qE '^Result: ERROR: xmit_mode xdp: vethA takes no XDP frames now .*\(-95\)$' <<<"$res"
else
	check "no XDP program on vethB: the run ends (ndo_xdp_xmit: -6)" \
		grep -q '^Result: ERROR: vethA took no frame (ndo_xdp_xmit: -6)' <<<"$res"
fi
xdp_on

# 7. the peer's program removed mid-run: the run ends, Result says why
# (6.3 and later: the slot's xdp_features check or the driver's ENXIO,
# whichever comes first)
in_ns "$NSA" pg_write vethA "count 0"
pg_start_ns "$NSA" 60 &
START_PID=$!
# shellcheck disable=SC2016 # expanded by eval
check "running" slowwait 30 eval 'in_ns "$NSA" pg_read vethA | grep -q "^Result: Starting"'
sleep 1
check "XDP program removed from vethB" xdp_off
check_start_returned "start returned by itself"
NOFRAME='^Result: ERROR: vethA took no frame \(ndo_xdp_xmit: -6\)'
kver_ge 6 3 && NOFRAME+='|^Result: ERROR: xmit_mode xdp: vethA takes no XDP frames now .*\(-95\) after '
check "Result: ERROR: vethA took no frame (ndo_xdp_xmit: -6) or lost NDO_XMIT" \
	grep -qE "$NOFRAME" <<<"$(in_ns "$NSA" pg_read vethA)"

xdp_on

# 8. with imix and no size range, the imix sizes are the sizes: the start
# checks the largest of them against the MTU, not pkt_size
ip -n "$NSA" link set dev vethA mtu 1000
in_ns "$NSA" pg_write vethA "pkt_size 1100"
in_ns "$NSA" pg_write vethA "count 100"
in_ns "$NSA" pg_write vethA "imix_weights 64,7 900,1"
rc=0
pg_start_ns "$NSA" || rc=$?
check "imix 64,7 900,1, pkt_size 1100, vethA's MTU 1000: the run goes, 100 sent" \
	pg_run_ok "$NSA" vethA 100 "$rc" ""
ip -n "$NSA" link set dev vethA mtu 1500
in_ns "$NSA" pg_write vethA "count 0"

# 9. vethA deleted mid-run
pg_start_ns "$NSA" 60 &
START_PID=$!
# shellcheck disable=SC2016 # expanded by eval
check "running again" slowwait 30 eval 'in_ns "$NSA" pg_read vethA | grep -q "^Result: Starting"'
sleep 1
check "vethA deleted" ip -n "$NSA" link del vethA
check_start_returned "start returned after the delete"
# shellcheck disable=SC2016 # expanded by eval
check "vethA's file gone" slowwait 10 eval '! ip netns exec "$NSA" test -e /proc/net/pktgen/vethA'

in_ns "$NSA" pg_write pgctrl reset
ktap_finish
