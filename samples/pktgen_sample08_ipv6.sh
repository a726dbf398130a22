#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IPv6 with valid UDP checksums (a receiving stack drops IPv6/UDP with a
# zero checksum): destination -d (an address or a CIDR range, walked
# sequentially), source SRC6 (default: the device's link-local address).
# Same as -6 on the other samples, plus the checksum and the source.
#   ./pktgen_sample08_ipv6.sh -i eth1 -d fd00::1 -m 00:11:22:33:44:55
# Defaults: count 100000 per thread, clone_skb 0.
IP6=6
. "$(dirname "$0")/functions.sh"
. "$(dirname "$0")/parameters.sh"

UDP_CSUM=yes
default_dest 198.18.0.42 fd00::1
: "${CLONE_SKB:=0}"
: "${COUNT:=100000}"
[ -z "${SRC6:-}" ] || validate_addr6 "$SRC6"

config_dev() {
	base_config "$1"
	if [ -n "${SRC6:-}" ]; then
		pg_set "$1" "src6 $SRC6"
	fi
	udp_src_range "$1"
}
sample_run
