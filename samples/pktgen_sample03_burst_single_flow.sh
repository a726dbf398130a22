#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Single flow, highest packet rate: every thread hands the same packet to
# the driver BURST times per call (burst, xmit_more), so the driver rings
# its doorbell once per burst.  Needs a device that accepts shared skbs
# (most Ethernet NICs, dummy; not veth).
#   ./pktgen_sample03_burst_single_flow.sh -i eth1 -t 2 -b 64 -m 00:11:22:33:44:55
# Defaults: burst 32, count 0 (until Ctrl-C); -b 0 leaves burst alone.
. "$(dirname "$0")/functions.sh"
. "$(dirname "$0")/parameters.sh"

: "${CLONE_SKB:=0}"
: "${BURST:=32}"
: "${COUNT:=0}"

config_dev() {
	pg_set "$1" "flag QUEUE_MAP_CPU"
	base_config "$1"
	if [ "$BURST" -gt 0 ]; then
		pg_set "$1" "burst $BURST"
	fi
}
sample_run
