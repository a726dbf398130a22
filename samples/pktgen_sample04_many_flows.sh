#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Many flows: random IPv4 sources from 198.18.0.0/15, FLOWS concurrent
# flows of FLOWLEN packets each, used in turn (FLOW_SEQ).  Stresses the
# receiver's flow handling (route cache, conntrack, RSS).  With -6 the
# destinations are IPv6 (default FD00::1) and, as upstream's script does,
# the IPv4 source range is still written (IPv6 packets do not use it).
#   FLOWS=8000 FLOWLEN=10 ./pktgen_sample04_many_flows.sh -i eth1 -t 2 -m 00:11:22:33:44:55
# Defaults: count 0 (until Ctrl-C), clone_skb 0; burst is refused.
. "$(dirname "$0")/functions.sh"
. "$(dirname "$0")/parameters.sh"

[ -z "${BURST:-}" ] || err 1 "burst (-b) does not make sense with flows"
: "${CLONE_SKB:=0}"
: "${COUNT:=0}"
: "${FLOWS:=8000}"
: "${FLOWLEN:=10}"

config_dev() {
	pg_set "$1" "flag QUEUE_MAP_CPU"
	base_config "$1"
	pg_set "$1" "flag IPSRC_RND"
	pg_set "$1" "src_min 198.18.0.0"
	pg_set "$1" "src_max 198.19.255.255"
	pg_set "$1" "flows $FLOWS"
	pg_set "$1" "flowlen $FLOWLEN"
	pg_set "$1" "flag FLOW_SEQ"
}
sample_run
