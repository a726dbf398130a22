#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke test: the module loads, /proc/net/pktgen looks right, and a run of
# 1000 packets on a dummy device sends exactly 1000 packets.
#
#   netns $NS:  [ dum0 (dummy) ] <- pktgen kpktgend_0
. "$(dirname "$0")/lib/lib.sh"

ktap_header
ktap_plan 7

if ! pg_load; then
	ktap_fail "module loads"
	ktap_finish
fi
ktap_pass "module loads"

# one kpktgend_<cpu> per online CPU, plus pgctrl (and ours' own files)
cpus() {	# expand /sys/devices/system/cpu/online ("0-1,3") into a list
	local r a b
	for r in $(tr ',' ' ' </sys/devices/system/cpu/online); do
		a=${r%-*} b=${r#*-}
		seq "$a" "$b"
	done
}
want=$( { echo pgctrl; cpus | sed 's/^/kpktgend_/'; pg_own_files; } | sort)
# shellcheck disable=SC2012 # the names of /proc/net/pktgen: no odd characters
have=$(ls "$PG_PROC" | sort)
check "proc dir has pgctrl and kpktgend_<cpu> per online cpu (+ ours)" \
	test "$want" = "$have"
[ "$want" = "$have" ] || echo "# want: ${want//$'\n'/ } have: ${have//$'\n'/ }"

check "pgctrl banner" \
	test "$(cat "$PG_PROC/pgctrl")" = \
	"Packet Generator for packet performance testing. Version: 2.75"

setup_ns NS
dummy_create "$NS" dum0
tx0=$(in_ns "$NS" cat /sys/class/net/dum0/statistics/tx_packets)

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_set kpktgend_0 "rem_device_all" &&
	pg_set kpktgend_0 "add_device dum0" &&
	pg_set dum0 "count 1000" &&
	pg_set dum0 "pkt_size 60" &&
	pg_set dum0 "dst 198.18.0.1" &&
	pg_set dum0 "dst_mac 02:00:00:00:00:01"
}
check "configure dum0 in a netns" in_ns "$NS" setup

rc=0
in_ns "$NS" pg_write pgctrl start || rc=$?
check "pgctrl start returns 0" test "$rc" -eq 0

res=$(in_ns "$NS" pg_result dum0)
ktap_diag "Result: $res"
check "Result starts with OK:" test "${res#OK: }" != "$res"

sofar=$(in_ns "$NS" pg_read dum0 |
	sed -n 's/^     pkts-sofar: \([0-9]*\)  errors: .*/\1/p')
tx1=$(in_ns "$NS" cat /sys/class/net/dum0/statistics/tx_packets)
echo "# pkts-sofar: $sofar, dum0 tx_packets: $tx0 -> $tx1"
check "pkts-sofar is 1000 and dum0 sent exactly 1000" \
	test "$sofar" = 1000 -a "$((tx1 - tx0))" = 1000

in_ns "$NS" pg_write pgctrl reset
pg_unload || ktap_fail "unload"
ktap_finish
