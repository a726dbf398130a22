#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Simplest run: one device on one thread, random UDP source port 9-109.
#   ./pktgen_sample01_simple.sh -i eth1 -m 00:11:22:33:44:55 -d 198.18.0.42
# -m is required; -n defaults to 100000 packets; the whole device file is
# printed at the end.
. "$(dirname "$0")/functions.sh"
. "$(dirname "$0")/parameters.sh"

[ -n "${DST_MAC:-}" ] || usage
[ -z "${BURST:-}" ] || warn "burst (-b) is not used by this sample: ignored"
default_dest 198.18.0.42 FD00::1
: "${CLONE_SKB:=0}"
: "${COUNT:=100000}"
setup_dest

reset_threads
pg_thread "$F_THREAD" "add_device $DEV"
base_config "$DEV"
udp_src_range "$DEV"

run_devs
if [ -z "${APPEND:-}" ]; then
	echo "Device: $DEV"
	cat "$PROC_DIR/$DEV"
fi
