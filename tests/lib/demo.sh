#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run` inside the VM: load the module and drive it with a classic
# pgset script (as in the kernel HOWTO's pktgen.conf-1-1) on a dummy device
# and on a veth pair, printing each device file afterwards.
#
#   netns $A                                  netns $B
#   [ pgdummy0 (dummy) ] <- kpktgend_0
#   [ pgveth0 ] <- kpktgend_0 ------ veth ------ [ pgveth1 ]
. "$(dirname "$0")/lib.sh"

pg_load || exit 1
echo "# module: $(pg_is_ours && echo "ours ($PKTGEN_KO)" || echo stock)," \
	"$(cat "/sys/module/pktgen/version" 2>/dev/null || echo "no version")"
setup_ns A
setup_ns B
dummy_create "$A" pgdummy0
veth_create "$A" pgveth0 "$B" pgveth1
peer_mac=$(ip -n "$B" -o link show pgveth1 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')

pgset() {	# the HOWTO's pgset, with the command shown
	local res
	echo "pgset \"$1\"  > $PGDEV"
	pg_write "$PGDEV" "$1"
	res=$(pg_result "$PGDEV" 2>/dev/null)
	case $res in
	""|OK:*) ;;
	*) echo "  Result: $res" ;;
	esac
}

# one classic run: DEV CLONE_SKB DST_MAC
classic() {
	local dev=$1 clone=$2 mac=$3
	echo
	echo "=== $dev: pktgen.conf-1-1 style ==="
	PGDEV=kpktgend_0
	pgset "rem_device_all"
	pgset "add_device $dev"
	PGDEV=$dev
	pgset "count 100000"
	[ "$clone" -gt 0 ] && pgset "clone_skb $clone"
	pgset "pkt_size 60"
	pgset "delay 0"
	pgset "dst 198.18.0.2"
	pgset "dst_mac $mac"
	PGDEV=pgctrl
	echo "Running... ctrl^C to stop"
	pgset "start"
	echo "Done"
	echo "--- cat /proc/net/pktgen/$dev"
	pg_read "$dev"
}

demo() {
	classic pgdummy0 1000 00:04:23:08:91:dc	# dummy: clone_skb allowed
	classic pgveth0 0 "$1"			# veth: no IFF_TX_SKB_SHARING
}
in_ns "$A" demo "$peer_mac"

echo
echo "--- ip -s link show pgveth1 (the veth peer, netns $B)"
ip -n "$B" -s link show pgveth1
pg_unload
