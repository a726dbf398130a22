#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Internet mix: packet sizes drawn per packet from IMIX (SIZE,WEIGHT
# pairs, sizes without the 4-byte FCS as -s counts them; default the
# simple IMIX of Documentation/tools.rst: IP packets of 40, 576 and 1500
# bytes in the ratio 7:4:1, i.e. 64, 594 and 1518-byte frames with FCS,
# pkt_size 60,7 590,4 1514,1).
# The device file then shows imix_size_counts, and the Result's Mb/sec
# counts the real sizes.
#   IMIX="60,7 1500,1" ./pktgen_sample09_imix.sh -i eth1 -m 00:11:22:33:44:55
# Defaults: count 100000 per thread; clone_skb must stay 0.
. "$(dirname "$0")/functions.sh"
. "$(dirname "$0")/parameters.sh"

[ "${CLONE_SKB:-0}" -eq 0 ] || err 1 "imix needs clone_skb 0"
[ -z "${BURST:-}" ] || err 1 "burst (-b) would resend each size BURST times"
: "${COUNT:=100000}"
: "${IMIX:=60,7 590,4 1514,1}"

config_dev() {
	base_config "$1"
	pg_set "$1" "imix_weights $IMIX"
	udp_src_range "$1"
}
sample_run
