#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Route DoS: every packet is a new one (clone_skb 0) to a random
# destination in the -d range (default 198.18.0.0/15), from a random
# source in SRC_RANGE (default 198.18.0.0/15, IPv4 only) and random UDP
# source ports, so a router under test must look every packet up.  The
# modern form of pktgen.conf-1-1-rdos.
#   ./pktgen_sample07_range_dos.sh -i eth1 -d 10.0.0.0/8 -p 1024-65535 -t 2 -m 00:11:22:33:44:55
# Defaults: count 0 (until Ctrl-C); IPv6 (-6) randomises the destination.
. "$(dirname "$0")/functions.sh"
. "$(dirname "$0")/parameters.sh"

[ -z "${BURST:-}" ] || err 1 "burst (-b) resends the same packet: not a DoS"
default_dest 198.18.0.0/15 fd00::/64
: "${SRC_RANGE:=198.18.0.0/15}"
: "${CLONE_SKB:=0}"
: "${COUNT:=0}"
validate_addr "$SRC_RANGE"
src=$(parse_addr "$SRC_RANGE")

config_dev() {
	base_config "$1"
	pg_set "$1" "flag IPDST_RND"
	if [ -z "$IP6" ]; then
		pg_set "$1" "flag IPSRC_RND"
		pg_set "$1" "src_min ${src% *}"
		pg_set "$1" "src_max ${src#* }"
	fi
	udp_src_range "$1"
}
sample_run
