#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One flow per thread: thread N sends from the fixed source 198.18.(N+1).1
# (IPv6: 2001:2:0:N+1::1), with burst, so a receiver with RSS sees one
# flow per sending CPU.
#   ./pktgen_sample05_flow_per_thread.sh -i eth1 -t 4 -b 32 -m 00:11:22:33:44:55
# Defaults: burst 32 (-b 0: none), count 0 (until Ctrl-C).
. "$(dirname "$0")/functions.sh"
. "$(dirname "$0")/parameters.sh"

: "${CLONE_SKB:=0}"
: "${BURST:=32}"
: "${COUNT:=0}"

config_dev() {	# DEV THREAD
	base_config "$1"
	if [ -n "$IP6" ]; then
		pg_set "$1" "src6 2001:2:0:$(($2 + 1))::1"
	else
		pg_set "$1" "src_min 198.18.$(($2 + 1)).1"
		pg_set "$1" "src_max 198.18.$(($2 + 1)).1"
	fi
	if [ "$BURST" -gt 0 ]; then
		pg_set "$1" "burst $BURST"
	fi
}
sample_run
