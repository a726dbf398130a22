#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multiqueue: one pktgen device "$DEV@N" per thread N, each sending on the
# TX queue of its CPU (flag QUEUE_MAP_CPU), random UDP source port.
#   ./pktgen_sample02_multiqueue.sh -i eth1 -t 4 -m 00:11:22:33:44:55
# -n is per thread (default 100000).
. "$(dirname "$0")/functions.sh"
. "$(dirname "$0")/parameters.sh"

[ -z "${BURST:-}" ] || warn "burst (-b) is not used by this sample: ignored"
: "${CLONE_SKB:=0}"
: "${COUNT:=100000}"

config_dev() {
	pg_set "$1" "flag QUEUE_MAP_CPU"
	base_config "$1"
	udp_src_range "$1"
}
sample_run
