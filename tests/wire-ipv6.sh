#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# On-the-wire check of IPv6 packets: the 40-byte header field by field, the
# default 78-byte frame, the link-local source, src6/dst6, traffic_class,
# the UDP checksum (none, software, CHECKSUM_PARTIAL), and the dst6/src6
# ranges, sequential (with a wrap and carries across the 32- and 64-bit
# word boundaries) and random (inside [min, max] inclusive, every value).
#
#   netns A (NSA)                          netns B (NSB)
#   +---------------------------+          +-----------------------------+
#   | pktgen device "vethA"     |   veth   | vethB  <-- tcpdump          |
#   |   vethA fe80::.. (no DAD) |<-------->|   vethB 2001:db8:1::2/64    |
#   +---------------------------+          +-----------------------------+
# IPv6 on, DAD off.  Every run has its own UDP destination port, which the
# checker uses to tell the runs' frames apart (and to ignore the stack's
# own traffic: NDP, MLD, ICMPv6 errors).  Frames addressed to vethB go up
# its stack: the UDP6 counters of NSB say whether it accepted the checksum.
# Ranges are ours: the stock module has no src6_min/src6_max
# (those runs SKIP) and randomises dst6 bits: (random | min) & max per
# 32-bit word, which is what is asserted there instead.

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/wire.sh"

IPB=2001:db8:1::2 SRC6=2001:db8:1::1
DMIN=2001:db8::ffff:fffe DMAX=2001:db8::1:0:1
SMIN=2001:db8:0:1:ffff:ffff:ffff:fffe SMAX=2001:db8:0:2::1

TMP=$(mktemp -d /tmp/wire-ipv6.XXXXXX)
defer rm -rf "$TMP"

# Frame checker: tests/lib/pcap.py check_runs does the generic checks;
# the cases below are the ones that need code.
CHECKER='
import sys, ipaddress
sys.path.insert(0, sys.argv[1])
import pcap

def bitmask(rep, fr, r):
    # upstream: each 32-bit word of dst = (random | min) & max
    lo, hi = (int(ipaddress.IPv6Address(a)) for a in r["range"])
    def inside(f):
        d = int(ipaddress.IPv6Address(f["ip6"]["dst"]))
        return d & ~hi == 0 and d & (lo & hi) == lo & hi
    rep.each("stock: dst6 bits within (random | min) & max", fr, inside)
    rep.check("stock: dst6 varies",
              None if len(set(f["ip6"]["dst"] for f in fr)) > 1 else "one value")

pcap.check_runs(sys.argv[2:], {"bitmask": bitmask})
'


# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	local d
	pg_load || return 1
	setup_ns NSA NSB || return 1
	veth_create "$NSA" vethA "$NSB" vethB || return 1
	for d in "$NSA vethA" "$NSB vethB"; do
		# shellcheck disable=SC2086 # split into its fields
		set -- $d
		ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.accept_dad=0" \
			"net.ipv6.conf.$2.router_solicitations=0" \
			"net.ipv6.conf.$2.disable_ipv6=0" || return 1
	done
	ip -n "$NSB" addr add "$IPB/64" dev vethB nodad || return 1
	MACA=$(ns_cat "$NSA" /sys/class/net/vethA/address) &&
		MACB=$(ns_cat "$NSB" /sys/class/net/vethB/address) || return 1
	LL=$(ip -n "$NSA" -6 -o addr show dev vethA scope link |
		sed -n 's|.* inet6 \(fe80[^/]*\)/.*|\1|p')
	[ -n "$LL" ] || { echo "no link-local address on vethA"; return 1; }
	THR=$(pg_first_thread "$NSA") || return 1
	in_ns "$NSA" pg_write "$THR" "add_device vethA"
	WIRE_NS=$NSA WIRE_DEV=vethA
}

ktap_header

ktap_setup setup
if ! cap_start "$NSB" vethB "$TMP/b.pcap"; then
	ktap_fail "capture on vethB"
	ktap_finish
fi

# 1. Defaults: no pkt_size, no src6, no UDPCSUM.
udp_mark "$NSB" 6
one_run default 20 '"all": [
 ["frame 78 bytes, ethernet '"$MACA"' -> '"$MACB"' type 0x86dd",
  {"len": 78, "src": "'"$MACA"'", "dst": "'"$MACB"'", "ethertype": 34525}],
 ["ipv6 version 6, traffic class 0, flow label 0, payload length 24, next header 17, hop limit 32",
  {"ip6.version": 6, "ip6.tc": 0, "ip6.flow": 0, "ip6.plen": 24, "ip6.nh": 17, "ip6.hlim": 32}],
 ["ipv6 src = link-local '"$LL"', dst '"$IPB"'",
  {"ip6.src": "'"$LL"'", "ip6.dst": "'"$IPB"'"}],
 ["udp 9 -> port, length 24, checksum 0 (no UDPCSUM)",
  {"udp.sport": 9, "udp.len": 24, "udp.csum": 0}]]' \
	"dst6 2001:0db8:0001:0000:0000:0000:0000:0002" "dst_mac $MACB"
file_has default "Params/Current: addresses, Flags IPV6, size 78" \
	"     saddr: ::  min_saddr: ::  max_saddr: ::" \
	"     daddr: $IPB  min_daddr: ::  max_daddr: ::" \
	"     Flags: IPV6  SHARED  " \
	"     cur_saddr: $LL  cur_daddr: $IPB" \
	"Params: count 20  min_pkt_size: 78  max_pkt_size: 78"
udp_delta default 0 20	# RFC 8200: a zero UDP checksum is refused

# 2. Software checksum (the sender offers no checksum offload).
ip netns exec "$NSA" ethtool -K vethA tx off >/dev/null
udp_mark "$NSB" 6
one_run csum_sw 20 '"all": [
 ["frame 200 bytes, payload length 146, traffic class 0xb8, hop limit 32",
  {"len": 200, "ip6.plen": 146, "udp.len": 146, "ip6.tc": 184, "ip6.hlim": 32}],
 ["src6 '"$SRC6"' dst '"$IPB"'", {"ip6.src": "'"$SRC6"'", "ip6.dst": "'"$IPB"'"}],
 ["UDPCSUM, tx off: udp checksum valid (software)", {"udp.csum_ok": true}]]' \
	"pkt_size 200" "traffic_class b8" "src6 $SRC6" "flag UDPCSUM"
file_has csum_sw "Params/Current: traffic_class, src6, Flags" \
	"     traffic_class: 0xb8" \
	"     saddr: $SRC6  min_saddr: ::  max_saddr: ::" \
	"     Flags: IPV6  UDPCSUM  SHARED  " \
	"     cur_saddr: $SRC6  cur_daddr: $IPB"
udp_delta csum_sw 20 0

# 3. Checksum offload (veth's default): the peer gets CHECKSUM_PARTIAL.
ip netns exec "$NSA" ethtool -K vethA tx on >/dev/null
udp_mark "$NSB" 6
one_run csum_hw 20 '"case": "hw_csum"'
udp_delta csum_hw 20 0

# 4. dst6 range, sequential: min+1 first, carry into word 2, wrap to min.
DSEQ='"ip6.dst": ["2001:db8::ffff:ffff", "2001:db8::1:0:0", "2001:db8::1:0:1", "'"$DMIN"'"]'
if pg_is_ours; then
	want='"seq": {'"$DSEQ"'}'
else
	want='"case": "bitmask", "range": ["'"$DMIN"'", "'"$DMAX"'"]'
fi
one_run dst6_seq 10 "$want" "flag !UDPCSUM" "traffic_class 00" \
	"dst6_min $DMIN" "dst6_max $DMAX"
file_has dst6_seq "Params daddr line, no traffic_class line" \
	"     daddr: $IPB  min_daddr: $DMIN  max_daddr: $DMAX" \
	"     Flags: IPV6  SHARED  "
pg_is_ours && file_has dst6_seq "Current cur_daddr = 10th packet's" \
	"     cur_saddr: $SRC6  cur_daddr: 2001:db8::1:0:0"

# 5. dst6 range, random: inside [min, max] inclusive, each value seen.
if pg_is_ours; then
	want='"set": {"ip6.dst": ["'"$DMIN"'", "2001:db8::ffff:ffff", "2001:db8::1:0:0", "2001:db8::1:0:1"]}'
fi
one_run dst6_rnd 100 "$want" "flag IPDST_RND"

# 6. src6 range (ours only), sequential across the 64-bit boundary.
one_run src6_seq 10 '"seq": {'"$DSEQ"', "ip6.src":
 ["2001:db8:0:1:ffff:ffff:ffff:ffff", "2001:db8:0:2::", "2001:db8:0:2::1", "'"$SMIN"'"]}' \
	"flag !IPDST_RND" "src6_min $SMIN" "src6_max $SMAX"
file_has src6_seq "Params saddr line, Current" \
	"     saddr: $SRC6  min_saddr: $SMIN  max_saddr: $SMAX" \
	"     cur_saddr: 2001:db8:0:2::  cur_daddr: 2001:db8::1:0:0"

# 7. src6 range, random.
one_run src6_rnd 100 '"set": {"ip6.src": ["'"$SMIN"'",
 "2001:db8:0:1:ffff:ffff:ffff:ffff", "2001:db8:0:2::", "2001:db8:0:2::1"]}' \
	"src6_min $SMIN" "src6_max $SMAX" "flag IPSRC_RND"

# 8. flag !IPV6 goes back to IPv4; (ours) flag IPV6 to IPv6 again.
one_run to_ipv4 10 '"all": [["ethertype 0x0800, IPv4 to 10.99.0.2",
 {"ethertype": 2048, "ip.version": 4, "ip.dst": "10.99.0.2", "len": 200}]]' \
	"flag !IPSRC_RND" "flag !IPV6" "dst 10.99.0.2"
one_run to_ipv6 10 '"all": [["ethertype 0x86dd, IPv6 from '"$SRC6"'",
 {"ethertype": 34525, "ip6.version": 6, "ip6.src": "'"$SRC6"'", "len": 200}]]' \
	"flag IPV6" "src6_min ::"
cap_stop

wire_check "{\"b\": \"$TMP/b.pcap\"}" "$CHECKER"

ktap_finish
