#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark of the egress path: packets go through dev_queue_xmit (the
# qdisc layer, tc egress hooks, taps) instead of straight to the driver
# (xmit_mode queue_xmit).  Only packets the qdisc accepted count as sent.
#   ./pktgen_bench_xmit_mode_queue_xmit.sh -i eth1 -t 2 -m 00:11:22:33:44:55
# Defaults: count 10000000 per thread; burst refused (queue_xmit sends one
# packet per call).
. "$(dirname "$0")/functions.sh"
. "$(dirname "$0")/parameters.sh"

[ -z "${BURST:-}" ] || err 1 "burst (-b) does not work with queue_xmit"
: "${COUNT:=10000000}"

config_dev() {
	pg_set "$1" "flag QUEUE_MAP_CPU"
	base_config "$1"
	pg_set "$1" "xmit_mode queue_xmit"
}
sample_run
