#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Receiver lifecycle: the counted device is deleted or moved to another
# namespace while packets arrive; the receiving namespace is deleted while
# packets arrive; rx_reset / statistics / reads race with the packet path;
# rmmod with the receiver enabled while frames arrive.  Every case must end
# without a splat (the runner scans dmesg), with the hook and the device
# reference gone (a leaked reference hangs `ip link del` / netns cleanup:
# "unregister_netdevice: waiting", caught by the runner).
#
#   netns TX                         netns RX
#   +------------------------+ veth  +--------------------------+
#   | pktgen "veth0", count 0|------>| veth1  pgrx: rx veth1    |
#   | pktgen "vethx" (case 3)|---+   +--------------------------+
#   +------------------------+   |   netns NSX (case 3, deleted)
#                                +-->| vethy  pgrx: rx vethy    |
#   netns MV: where veth1 is moved   +--------------------------+

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

INJECT="$(dirname "$0")/lib/rx_inject.py"

rx_count() { rx_snap "$RX"; rx_val rx_packets; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
counting() { [ "$(rx_count)" -gt "${1:-0}" ] 2>/dev/null; }

# start_bg NS: `start` in NS in the background (bounded); START_PID.
start_bg() {
	pg_start_ns "$1" &
	START_PID=$!
	defer kill -INT "$START_PID"
}

# start_returned LABEL: the background start exits within 20 s.
start_returned() {
	if slowwait 20 pid_gone "$START_PID"; then
		wait "$START_PID"
		ktap_pass "$1"
	else
		ktap_fail "$1" "start still running 20 s later"
	fi
}

# pair NAME_TX NAME_RX: veth TX/NAME_TX <-> RX/NAME_RX, sender on NAME_TX.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
pair() {
	veth_create "$TX" "$1" "$RX" "$2" && tx_setup "$TX" "$1" &&
		tx_set "$TX" "$1" "count 0" "dst 10.95.0.2" "dst_mac $(mac_of "$RX" "$2")" &&
		rx_cmd "$RX" "rx $2"
}

setup() {
	pg_load || return 1
	setup_ns TX RX MV || return 1
	rx_cmd "$RX" "display script"
}

rx_begin 23

# 1. the counted device moves to another namespace while packets arrive
check "veth0 -> veth1, rx veth1" pair veth0 veth1
start_bg "$TX"
check "move: counting" slowwait 30 counting
check "move: ip link set veth1 netns MV" ip -n "$RX" link set veth1 netns "$MV"
rx_snap "$RX"
check "move: receiver off veth1 (devices= empty), counts kept" eval \
	'rx_expect devices "" && rx_between rx_packets 1 999999999'
c0=$(rx_val rx_packets)
sleep 0.5
check "move: counts no longer grow" test "$(rx_count)" = "$c0"
check "move: stop" in_ns "$TX" pg_write pgctrl stop
start_returned "move: start returned"

# 2. the counted device is deleted while packets arrive
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "rx_reset; veth2 -> veth3, rx veth3" eval 'rx_cmd "$RX" rx_reset && pair veth2 veth3'
start_bg "$TX"
check "delete: counting" slowwait 30 counting
check "delete: ip link del veth3 (and its peer)" ip -n "$RX" link del veth3
start_returned "delete: start returned (its device went away)"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "delete: devices= empty, rx veth3 now ENODEV" eval \
	'rx_snap "$RX" && rx_expect devices "" && rx_errno "$RX" "rx veth3" 19 "no interface"'

# 3. the receiving namespace is deleted while packets arrive
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "netns NSX with rx vethy, sender vethx" eval '
	ip netns add "pgt-x$$" && defer ip netns del "pgt-x$$" &&
	veth_create "$TX" vethx "pgt-x$$" vethy && tx_setup "$TX" vethx &&
	tx_set "$TX" vethx "count 0" "dst 10.95.0.2" \
		"dst_mac $(mac_of "pgt-x$$" vethy)" &&
	in_ns "pgt-x$$" pg_set pgrx "rx vethy"'
start_bg "$TX"
check "netns del: counting" slowwait 30 eval \
	'in_ns "pgt-x$$" pg_read pgrx | grep -q "^all *[1-9]"'
check "netns del: ip netns del" ip netns del "pgt-x$$"
# the peer in TX disappears once the namespace's cleanup (ours first) ran
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "netns del: namespace cleaned up (vethx gone)" \
	slowwait 30 eval '! ip -n "$TX" link show vethx'
start_returned "netns del: start returned"

# 4. rx_reset, statistics and reads race with the packet path
check "veth4 -> veth5, rx veth5" pair veth4 veth5
start_bg "$TX"
check "race: counting" slowwait 30 counting
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "race: 10 x (rx_reset, statistics, read)" eval '
	for m in counter basic time counter basic time counter basic time time; do
		rx_cmd "$RX" rx_reset && rx_cmd "$RX" "statistics $m" &&
			in_ns "$RX" pg_read pgrx >/dev/null || exit 1
	done'
in_ns "$TX" pg_write pgctrl stop
start_returned "race: start returned"

# 5. rmmod with the receiver enabled while frames arrive
frames=$(seq -s, 1 3000)
ip netns exec "$TX" python3 -S "$INJECT" veth4 "$(mac_of "$RX" veth5)" \
	"[{\"id\": 7, \"seqs\": [$frames]}]" >/dev/null 2>&1 &
inj=$!
defer kill "$inj"
slowwait 20 counting
check "rmmod pktgen with rx enabled, frames arriving" rmmod pktgen
wait "$inj"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "module gone, veth5 still up" eval \
	'[ ! -e /sys/module/pktgen ] && ip -n "$RX" link show veth5 | grep -q "state UP"'

ktap_finish
