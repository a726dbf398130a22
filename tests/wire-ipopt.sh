#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ip_opt (ours): the option bytes of every named form exactly as
# sent (captured where the router receives them), IHL, total length and
# header checksum right, options inside pkt_size; the Params line and the
# write errors; then what a Linux router does with them: RR gets its
# address and the pointer moves on, TS gets a timestamp, LSRR is dropped
# until accept_source_route is on and then routed on to the listed hop,
# and malformed options are counted in the router's InHdrErrors.
#
#   netns A             netns R (ip_forward=1)              netns B
#   vethA 10.99.1.2 --> vethR0 10.99.1.1  vethR1 10.99.2.1 --> vethB 10.99.2.2
#   pktgen              tcpdump "r"                         tcpdump "b",
#                                                           ingress: drop all
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/wire.sh"

IPA=10.99.1.2 IPR0=10.99.1.1 IPR1=10.99.2.1 IPB=10.99.2.2 SIZE=100
EINVAL=22 E2BIG=7

TMP=$(mktemp -d /tmp/wire-ipopt.XXXXXX)
defer rm -rf "$TMP"

CHECKER='
import sys
sys.path.insert(0, sys.argv[1])
import pcap

def ts_stamped(rep, fr, r):
    # tsonly with 2 slots after one router: pointer 9, no overflow, the
    # first slot ms since midnight UT (standard: high bit clear), the
    # second still empty
    def ok(f):
        o = bytes.fromhex(f["ip"]["options"])
        ms = int.from_bytes(o[4:8], "big")
        return (o[:4] == bytes([0x44, 12, 9, 0]) and ms < 86400000 and
                o[8:12] == bytes(4))
    rep.each("TS pointer 5 -> 9, slot 1 stamped (ms < 86400000), slot 2 empty", fr, ok)

pcap.check_runs(sys.argv[2:], {"ts_stamped": ts_stamped})
'

zeros() { printf '%0*d' $((2 * $1)) 0; }	# N: N zero bytes in hex
snmp_ip() {	# NS FIELD: a field of the Ip: lines of /proc/net/snmp
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	ip netns exec "$1" awk -v k="$2" '
		$1 == "Ip:" && !h { for (i = 2; i <= NF; i++) c[$i] = i; h = 1; next }
		$1 == "Ip:" { print $c[k] }' /proc/net/snmp
}
rx_packets() { ns_cat "$NSB" /sys/class/net/vethB/statistics/rx_packets; }

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_load || return 1
	setup_ns NSA NSR NSB || return 1
	veth_create "$NSA" vethA "$NSR" vethR0 &&
		veth_create "$NSR" vethR1 "$NSB" vethB || return 1
	ip -n "$NSA" addr add "$IPA/24" dev vethA &&
		ip -n "$NSR" addr add "$IPR0/24" dev vethR0 &&
		ip -n "$NSR" addr add "$IPR1/24" dev vethR1 &&
		ip -n "$NSB" addr add "$IPB/24" dev vethB || return 1
	ip netns exec "$NSR" sysctl -qw net.ipv4.ip_forward=1 || return 1
	ip netns exec "$NSB" tc qdisc add dev vethB clsact &&
		ip netns exec "$NSB" tc filter add dev vethB ingress \
			matchall action drop || return 1
	MACR=$(ns_cat "$NSR" /sys/class/net/vethR0/address) || return 1
	MACB=$(ns_cat "$NSB" /sys/class/net/vethB/address) || return 1
	# B drops ARP too: the router gets B's address statically
	ip -n "$NSR" neigh add "$IPB" lladdr "$MACB" dev vethR1 nud permanent || return 1
	THR=$(pg_first_thread "$NSA") || return 1
	in_ns "$NSA" pg_write "$THR" "add_device vethA" || return 1
	WIRE_NS=$NSA WIRE_DEV=vethA
	configure "pkt_size $SIZE" "src_min $IPA" "src_max $IPA" "dst $IPB" \
		"dst_mac $MACR" || echo "$CONF_WHY"
}

# opt_run LABEL SPEC HEX [JSON]: 20 packets with ip_opt SPEC; at the
# router's ingress the options are HEX, the header IHL 5 + len/4, the
# frame SIZE bytes (pcap's layout check: lengths and header checksum).
opt_run() {
	local lab=$1 spec=$2 hex=$3 ihl=$((5 + ${#3} / 8))
	one_run "$lab" 20 '"all": [
 ["frame '"$SIZE"' bytes, ihl '"$ihl"', ttl 32, options '"$hex"'",
  {"len": '"$SIZE"', "ip.ihl": '"$ihl"', "ip.ttl": 32, "ip.options": "'"$hex"'",
   "ip.src": "'$IPA'"}]]'"${4:+, $4}" "ip_opt $spec"
	file_has "$lab" "Params ip_opt line" "     ip_opt: $spec ($((${#hex} / 2)) bytes)"
}

# w_err ERRNO RESULT CMD: writing CMD fails with ERRNO and Result RESULT.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
w_err() {
	local rc=0 res
	in_ns "$NSA" pg_write vethA "$3" || rc=$?
	res=$(in_ns "$NSA" pg_result vethA)
	[ "$rc" -eq "$1" ] && [ "$res" = "$2" ] && return 0
	echo "'$3': errno $rc (want $1), Result '$res' (want '$2')"
	return 1
}

ktap_header
if ! pg_is_ours; then
	ktap_plan 1
	ktap_skip "ip_opt" "ours only: the stock pktgen has no ip_opt"
	ktap_finish
fi

ktap_setup setup quiet

# --- the write side
FORM="ip_opt takes none, or a comma-separated list of ra[:v], rr:<n>, ts:tsonly:<n>, ts:tsandaddr:<n>, ts:prespec:<a>/..., lsrr:<a>/..., ssrr:<a>/..., sec, nop[:n], eol, hex:<bytes>"
TSF="ip_opt: ts:tsonly:<1-9>, ts:tsandaddr:<1-4> or ts:prespec:<a>/<b>... (1-4), once per packet"
ROUTEF="ip_opt: lsrr:<a>/<b>/... or ssrr:<a>/<b>/... (1-9 IPv4 hops), one source route per packet"
check "ip_opt ra,rr:2: OK, 16 bytes" w_err 0 "OK: ip_opt=ra,rr:2 (16 bytes)" "ip_opt ra,rr:2"
check "ip_opt rr:9,ra: E2BIG (43 bytes)" w_err $E2BIG \
	"ERROR: ip_opt: options take at most 40 bytes" "ip_opt rr:9,ra"
check "ip_opt bogus: EINVAL, the accepted forms" w_err $EINVAL "ERROR: $FORM" "ip_opt bogus"
check "ip_opt rr:10: EINVAL" w_err $EINVAL \
	"ERROR: ip_opt: rr:<slots 1-9>, once per packet" "ip_opt rr:10"
check "ip_opt rr:1,rr:1: EINVAL (one RR)" w_err $EINVAL \
	"ERROR: ip_opt: rr:<slots 1-9>, once per packet" "ip_opt rr:1,rr:1"
check "ip_opt ts:tsandaddr:5: EINVAL" w_err $EINVAL "ERROR: $TSF" "ip_opt ts:tsandaddr:5"
check "ip_opt lsrr:1.2.3: EINVAL" w_err $EINVAL "ERROR: $ROUTEF" "ip_opt lsrr:1.2.3"
check "ip_opt lsrr:1.2.3.4,ssrr:1.2.3.4: EINVAL (one route)" w_err $EINVAL \
	"ERROR: $ROUTEF" "ip_opt lsrr:1.2.3.4,ssrr:1.2.3.4"
check "ip_opt hex:123: EINVAL" w_err $EINVAL \
	"ERROR: ip_opt: hex:<an even number of hex digits>" "ip_opt hex:123"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "a refused ip_opt keeps the previous options" eval \
	'in_ns "$NSA" pg_read vethA | grep -qx "     ip_opt: ra,rr:2 (16 bytes)"'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "ip_opt with IPV6: EINVAL" eval '
	in_ns "$NSA" pg_set vethA "flag IPV6" >/dev/null &&
	w_err $EINVAL "ERROR: ip_opt: IPv4 options need IPv4 (flag !IPV6)" "ip_opt ra"; r=$?
	in_ns "$NSA" pg_set vethA "flag !IPV6" >/dev/null && exit $r'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "ip_opt none: OK, no Params line" eval '
	w_err 0 "OK: ip_opt=none (0 bytes)" "ip_opt none" &&
	! in_ns "$NSA" pg_read vethA | grep -q "^     ip_opt:"'

if ! cap_start "$NSR" vethR0 "$TMP/r.pcap" || ! cap_start "$NSB" vethB "$TMP/b.pcap"; then
	ktap_fail "captures on vethR0 and vethB"
	ktap_finish
fi

# --- exact bytes of every named form (at the router's ingress)
WIRE_CAP=r
opt_run ra "ra" 94040000
opt_run ra_value "ra:1" 94040001
opt_run rr3 "rr:3" "070f04$(zeros 13)"
opt_run ts_only "ts:tsonly:2" "440c0500$(zeros 8)"
opt_run ts_addr "ts:tsandaddr:1" "440c0501$(zeros 8)"
opt_run ts_prespec "ts:prespec:$IPR0/$IPR1" "441405030a630101$(zeros 4)0a630201$(zeros 4)"
opt_run ssrr "ssrr:$IPR1/$IPB" "890b040a6302010a63020200"
opt_run sec "sec" "820b$(zeros 10)"
opt_run nop_ra "nop:3,ra" "0101019404000000"
opt_run eol "eol" 00000000
opt_run pad "ra,rr:2" "94040000070b04$(zeros 9)"
opt_run raw "hex:9404abcd" 9404abcd

# --- through the router
# RR: the router writes its outgoing address and moves the pointer on.
f0=$(snmp_ip "$NSR" ForwDatagrams)
opt_run rr_fwd "rr:2" "070b04$(zeros 9)"
wire_also b rr_fwd_at_b '"all": [["forwarded: ttl 31, RR slot 1 = '$IPR1', pointer 8",
 {"ip.ttl": 31, "ip.options": "070b080a6302010000000000"}]]'
f1=$(snmp_ip "$NSR" ForwDatagrams)
check "rr_fwd: router forwarded 20 (ForwDatagrams +$((f1 - f0)))" test $((f1 - f0)) -eq 20

# TS: stamped by the router.
opt_run ts_fwd "ts:tsonly:2" "440c0500$(zeros 8)"
wire_also b ts_fwd_at_b '"all": [["forwarded: ttl 31", {"ip.ttl": 31}]], "case": "ts_stamped"'

# LSRR to the router, on to B: dropped while accept_source_route is off.
configure "dst $IPR0" || echo "# dst $IPR0: $CONF_WHY"
ip netns exec "$NSR" sysctl -qw net.ipv4.conf.all.accept_source_route=0 \
	net.ipv4.conf.vethR0.accept_source_route=0
b0=$(rx_packets)
opt_run lsrr_off "lsrr:$IPB" 8307040a63020200
check "lsrr_off: accept_source_route 0: nothing reaches B (rx +$(($(rx_packets) - b0)))" \
	test "$(rx_packets)" -eq "$b0"
ip netns exec "$NSR" sysctl -qw net.ipv4.conf.all.accept_source_route=1 \
	net.ipv4.conf.vethR0.accept_source_route=1
opt_run lsrr_on "lsrr:$IPB" 8307040a63020200
wire_also b lsrr_on_at_b '"all": [["routed to the listed hop: dst '$IPB', slot = '$IPR1', pointer 8",
 {"ip.dst": "'$IPB'", "ip.ttl": 31, "ip.options": "8307080a63020100"}]]'
ip netns exec "$NSR" sysctl -qw net.ipv4.conf.all.accept_source_route=0
configure "dst $IPB" || echo "# dst $IPB: $CONF_WHY"

# Malformed (RR of length 2): the router counts and drops each.
h0=$(snmp_ip "$NSR" InHdrErrors) b0=$(rx_packets)
opt_run bad_rr "hex:07020400" 07020400
h1=$(snmp_ip "$NSR" InHdrErrors)
check "bad_rr: router InHdrErrors +20 (+$((h1 - h0))), nothing reaches B" \
	test "$((h1 - h0)) $(rx_packets)" = "20 $b0"

# Behind a VLAN tag and behind MPLS labels (both inside pkt_size).
WIRE_CAP=r
one_run vlan_ra 20 '"all": [["802.1Q vid 5, then IPv4 ihl 6 with RA, frame '$SIZE' bytes",
 {"len": '$SIZE', "vlans.0.vid": 5, "ethertype": 2048, "ip.ihl": 6,
  "ip.options": "94040000"}]]' "vlan_id 5" "ip_opt ra"
one_run mpls_ra 20 '"all": [["one MPLS label, then IPv4 ihl 6 with RA, frame '$SIZE' bytes",
 {"len": '$SIZE', "mpls.0.label": 20, "vlans": null, "ip.ihl": 6,
  "ip.options": "94040000"}]]' "mpls 00014040" "ip_opt ra"
configure "mpls 0" "ip_opt none" || echo "# mpls 0, ip_opt none: $CONF_WHY"
cap_stop

wire_check "{\"r\": \"$TMP/r.pcap\", \"b\": \"$TMP/b.pcap\"}" "$CHECKER"
ktap_finish
