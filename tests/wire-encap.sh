#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# On-the-wire check of the encapsulations: 802.1Q (vlan_id/p/cfi), QinQ
# (svlan_*), VID_RND/SVID_RND, vlan_id > 4095, MPLS stacks of 1, 2 and 16
# labels (S bit on the last only, EtherType 0x8847, IP right after),
# MPLS_RND, mpls 0, VLAN and MPLS excluding each other (the later command
# wins), tos and traffic_class.  Every frame is 200 bytes: tags and labels
# count inside pkt_size.
#
#   netns A (NSA)                          netns B (NSB)
#   +---------------------------+          +---------------------------+
#   | pktgen device "vethA"     |   veth   | vethB  <-- tcpdump        |
#   +---------------------------+          |   ingress: drop all       |
#                                          +---------------------------+
# IPv6 off; every run has its own UDP destination port (tests/lib/wire.sh).
# MPLS_RND differs on purpose: ours randomises the 20-bit label field of
# the marked words and keeps TC and TTL; the stock module replaces the low
# 20 bits of the word (label bits 7..0, TC, TTL), leaving label bits 19..8
# zero.  That is what is asserted for each.

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/wire.sh"

IPB=10.99.0.2 SIZE=200

TMP=$(mktemp -d /tmp/wire-encap.XXXXXX)
defer rm -rf "$TMP"

CHECKER='
import sys
sys.path.insert(0, sys.argv[1])
import pcap

def mpls_rnd(rep, fr, r):
    if r["ours"]:
        rep.each("ours: middle label random, tc 0, S 0, ttl 255 kept", fr,
                 lambda f: f["mpls"][1]["word"] & 0xfff == 0xff)
        rep.check("ours: middle label takes >= 20 values in 100 packets",
                  None if len(set(f["mpls"][1]["label"] for f in fr)) >= 20 else "too few")
    else:
        rep.each("stock: middle word: label bits 19..8 zero, S 0", fr,
                 lambda f: f["mpls"][1]["word"] & 0xfff00100 == 0)
        rep.check("stock: middle word takes >= 20 values in 100 packets",
                  None if len(set(f["mpls"][1]["word"] for f in fr)) >= 20 else "too few")

pcap.check_runs(sys.argv[2:], {"mpls_rnd": mpls_rnd})
'


# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_load || return 1
	setup_ns NSA NSB || return 1
	veth_create "$NSA" vethA "$NSB" vethB || return 1
	ip netns exec "$NSB" tc qdisc add dev vethB clsact &&
		ip netns exec "$NSB" tc filter add dev vethB ingress \
			matchall action drop || return 1
	MACB=$(ns_cat "$NSB" /sys/class/net/vethB/address) || return 1
	THR=$(pg_first_thread "$NSA") || return 1
	in_ns "$NSA" pg_write "$THR" "add_device vethA" || return 1
	WIRE_NS=$NSA WIRE_DEV=vethA
	configure "pkt_size $SIZE" "dst $IPB" "dst_mac $MACB" || echo "$CONF_WHY"
}

# tag N TPID_PCP_DEI_VID: JSON members for tag N of the frame.
tag() {
	local p=$2 d=$3 v=$4
	printf '"vlans.%d.tpid": 33024, "vlans.%d.pcp": %d, "vlans.%d.dei": %d, "vlans.%d.vid": %d' \
		"$1" "$1" "$p" "$1" "$d" "$1" "$v"
}

# ipv4 ETHERTYPE_AT_IP: the IPv4 header group every IPv4 run checks.
IP4='["frame '$SIZE' bytes, ipv4 ttl 32 proto 17 to '$IPB', tos 0",
  {"len": '$SIZE', "ip.version": 4, "ip.ttl": 32, "ip.proto": 17,
   "ip.dst": "'$IPB'", "ip.tos": 0}]'

# mpls_words W...: the "mpls" JSON group for a stack: each word as
# given, S only on the last.
mpls_words() {
	local i=0 w s json=""
	for w in "$@"; do
		s=$((i == $# - 1 ? 0x100 : 0))
		json+="${json:+, }\"mpls.$i.word\": $(((0x$w & ~0x100) | s))"
		i=$((i + 1))
	done
	printf '["%d labels: the words as written, S bit only on the last, IP next",\n {"ethertype": 34887, %s, "mpls.%d": null, "vlans": null, "ip.version": 4}]' \
		"$#" "$json" "$#"
}

ktap_header

ktap_setup setup quiet
if ! cap_start "$NSB" vethB "$TMP/b.pcap"; then
	ktap_fail "capture on vethB"
	ktap_finish
fi

one_run vlan 20 '"all": ['"$IP4"',
 ["802.1Q tag vid 100 pcp 5 dei 1, inner type 0x0800",
  {'"$(tag 0 5 1 100)"', "vlans.1": null, "ethertype": 2048}]]' \
	"vlan_id 100" "vlan_p 5" "vlan_cfi 1"
file_has vlan "Params vlan line, no svlan line" \
	"     vlan_id: 100  vlan_p: 5  vlan_cfi: 1" "!     svlan_id:"

one_run qinq 20 '"all": ['"$IP4"',
 ["outer tag vid 200 pcp 3 dei 1, inner vid 100 pcp 5 dei 1, type 0x0800",
  {'"$(tag 0 3 1 200)"', '"$(tag 1 5 1 100)"', "vlans.2": null, "ethertype": 2048}]]' \
	"svlan_id 200" "svlan_p 3" "svlan_cfi 1"
file_has qinq "Params vlan and svlan lines (sic: vlan_p/vlan_cfi)" \
	"     vlan_id: 100  vlan_p: 5  vlan_cfi: 1" \
	"     svlan_id: 200  vlan_p: 3  vlan_cfi: 1"

one_run vid_rnd 100 '"all": ['"$IP4"',
 ["two tags, pcp/dei kept (3/1 outer, 5/1 inner)",
  {"vlans.0.pcp": 3, "vlans.0.dei": 1, "vlans.1.pcp": 5, "vlans.1.dei": 1,
   "vlans.2": null}]],
 "distinct": {"vlans.0.vid": 50, "vlans.1.vid": 50}' \
	"flag VID_RND" "flag SVID_RND"
file_has vid_rnd "Params Flags VID_RND SVID_RND" \
	"     Flags: VID_RND  SVID_RND  SHARED  "

# each flag alone varies its own tag only (the ids set again: the stock
# module keeps the last random id as the configured one)
one_run svid_rnd 100 '"all": ['"$IP4"',
 ["SVID_RND alone: inner vid 100 kept, pcp/dei kept (3/1 outer, 5/1 inner)",
  {"vlans.0.pcp": 3, "vlans.0.dei": 1, "vlans.1.vid": 100, "vlans.1.pcp": 5,
   "vlans.1.dei": 1, "vlans.2": null}]],
 "distinct": {"vlans.0.vid": 50}' \
	"flag !VID_RND" "vlan_id 100"
one_run vid_rnd_inner 100 '"all": ['"$IP4"',
 ["VID_RND alone: outer vid 200 kept, pcp/dei kept (3/1 outer, 5/1 inner)",
  {"vlans.0.vid": 200, "vlans.0.pcp": 3, "vlans.0.dei": 1, "vlans.1.pcp": 5,
   "vlans.1.dei": 1, "vlans.2": null}]],
 "distinct": {"vlans.1.vid": 50}' \
	"flag VID_RND" "flag !SVID_RND" "svlan_id 200"

# MPLS after the VLANs: the later command wins.
one_run mpls1 20 '"all": ['"$(mpls_words 0000a040)"',
 ["label 10 tc 0 ttl 64", {"mpls.0.label": 10, "mpls.0.tc": 0, "mpls.0.ttl": 64}],
 ["frame '$SIZE' bytes", {"len": '$SIZE'}]]' \
	"flag !VID_RND" "flag !SVID_RND" "mpls 0000a040"
file_has mpls1 "Params mpls line, no vlan lines" \
	"     mpls: 0000a040" "!     vlan_id:" "!     svlan_id:"

one_run mpls2 20 '"all": ['"$(mpls_words 0000a020 0001f0ff)"',
 ["frame '$SIZE' bytes", {"len": '$SIZE'}]]' "mpls 0000a020,0001f0ff"
file_has mpls2 "Params mpls line" "     mpls: 0000a020, 0001f0ff"

W16=()
for i in $(seq 0 15); do
	W16+=("$(printf '%08x' $((((i + 1) << 12) | ((i % 8) << 9) | (0x10 + i))))")
done
one_run mpls16 20 '"all": ['"$(mpls_words "${W16[@]}")"',
 ["frame '$SIZE' bytes", {"len": '$SIZE'}]]' \
	"mpls $(IFS=,; echo "${W16[*]}")"
file_has mpls16 "Params mpls line with 16 labels" \
	"     mpls: $(printf '%s' "${W16[*]}" | sed 's/ /, /g')"

# MPLS_RND: the middle word is written with the S bit: it is random.
ours=false
pg_is_ours && ours=true
one_run mpls_rnd 100 '"all": [
 ["outer and inner words fixed", {"mpls.0.word": 41024, "mpls.2.word": 131456,
  "mpls.3": null}]], "case": "mpls_rnd", "ours": '$ours \
	"mpls 0000a040,0001f1ff,00020080"
file_has mpls_rnd "Params Flags MPLS_RND" "     Flags: MPLS_RND  SHARED  "

# VLANs after MPLS: the later command wins; vlan_p/cfi were kept.
one_run vlan_after 20 '"all": ['"$IP4"',
 ["no MPLS; outer vid 400 pcp 3 dei 1, inner vid 300 pcp 5 dei 1",
  {"mpls": null, '"$(tag 0 3 1 400)"', '"$(tag 1 5 1 300)"', "ethertype": 2048}]]' \
	"flag !MPLS_RND" "vlan_id 300" "svlan_id 400"
file_has vlan_after "Params vlan lines, no mpls line" \
	"     vlan_id: 300  vlan_p: 5  vlan_cfi: 1" \
	"     svlan_id: 400  vlan_p: 3  vlan_cfi: 1" "!     mpls:"

# vlan_id > 4095 removes both tags; tos.
one_run vlan_off 20 '"all": [
 ["no tags, type 0x0800, frame '$SIZE' bytes", {"vlans": null, "ethertype": 2048, "len": '$SIZE'}],
 ["ipv4 tos 0xb8 (header checksum: the layout check)", {"ip.tos": 184}]]' \
	"vlan_id 4096" "tos b8"
file_has vlan_off "Params tos line, no vlan lines" \
	"     tos: 0xb8" "!     vlan_id:" "!     svlan_id:"

# mpls 0 clears the stack (ours).  The stock module keeps one label of
# value 0 (get_labels() stores it; Params "mpls: 00000000").
if pg_is_ours; then
	want='["no labels, no tags", {"mpls": null, "vlans": null, "ethertype": 2048}]'
	gone="!     mpls:"
else
	want="$(mpls_words 00000000)"
	gone="     mpls: 00000000"
fi
one_run mpls_clear 20 '"all": ['"$IP4"', '"$want"']' "mpls 0000a040" "mpls 0" "tos 00"
file_has mpls_clear "mpls line (${gone#!}), no tos, vlan lines" \
	"$gone" "!     tos:" "!     vlan_id:"

# traffic_class with a VLAN on IPv6.
one_run ipv6_vlan 20 '"all": [
 ["tag vid 50 pcp 5 dei 1, inner type 0x86dd, frame '$SIZE' bytes",
  {'"$(tag 0 5 1 50)"', "vlans.1": null, "ethertype": 34525, "len": '$SIZE'}],
 ["ipv6 traffic class 0x3c, hop limit 32, 2001:db8::1 -> 2001:db8::2",
  {"ip6.tc": 60, "ip6.hlim": 32, "ip6.src": "2001:db8::1", "ip6.dst": "2001:db8::2"}]]' \
	"vlan_id 50" "traffic_class 3c" "src6 2001:db8::1" "dst6 2001:db8::2"
file_has ipv6_vlan "Params vlan and traffic_class lines" \
	"     vlan_id: 50  vlan_p: 5  vlan_cfi: 1" "     traffic_class: 0x3c"
cap_stop

wire_check "{\"b\": \"$TMP/b.pcap\"}" "$CHECKER"

ktap_finish
