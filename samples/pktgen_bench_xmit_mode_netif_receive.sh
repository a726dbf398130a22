#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark of the receive path: packets are injected into the RX path of
# the device itself (xmit_mode netif_receive), BURST at a time.  The
# default destination MAC is not the device's, so the stack drops them
# early (ip_rcv: PACKET_OTHERHOST); give the device's MAC (-m) and a local
# -d to measure more of the stack.  Works on any device, veth included.
#   ./pktgen_bench_xmit_mode_netif_receive.sh -i eth1 -t 2 -b 1024
# Defaults: burst 1024, count 10000000 per thread; -c is ignored.
. "$(dirname "$0")/functions.sh"
. "$(dirname "$0")/parameters.sh"

# clone_skb does not work with netif_receive: -c is accepted and not used
[ -z "${CLONE_SKB:-}" ] || warn "clone_skb (-c) does not work with netif_receive: ignored"
CLONE_SKB=
: "${BURST:=1024}"
: "${COUNT:=10000000}"

config_dev() {
	pg_set "$1" "flag QUEUE_MAP_CPU"
	base_config "$1"
	pg_set "$1" "xmit_mode netif_receive"
	if [ "$BURST" -gt 0 ]; then
		pg_set "$1" "burst $BURST"
	fi
}
sample_run
