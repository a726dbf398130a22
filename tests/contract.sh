#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The write contract of our module, table driven: every device and thread
# command (the classic ones and the later ones: IPv6, VLAN, MPLS, tos,
# imix, xmit_mode, ...), each written as "name value\n", "name=value\n",
# "name = value\n", "name value\0" and "name value" (no newline), limits,
# garbage values, every prefix of an unknown word, the kselftest cases
# (proc_net_pktgen.c, v6.15) with our documented differences, and the
# xmit_mode / clone_skb / burst restrictions in both orders.  For every
# write: the errno, and the Result that follows.  Before every write a
# different command ("sentinel") sets another Result, so a stale Result
# can never pass for a fresh one.
#
# Rows of commands that have not landed yet (the write answers `No such
# parameter "<name>"` or `Flag -:<name>:- unknown`) are skipped with that
# reason, as are rows that need such a command.  Stock pktgen has another
# parser: the test skips wholesale there (params-diff.sh compares the
# well-formed commands with stock), unless CONTRACT_STOCK=1, which runs
# the table against the stock module to list where it differs
# (Documentation/pktgen.rst: 269 of 601 rows on 7.3.4's v6.15+ parser).
#
#   netns $NS:  dum0 (dummy)   va <-> vb (veth)   lo
#               kpktgend_<first cpu> <- dum0, va, lo (+ dum0@N added here)
. "$(dirname "$0")/lib/lib.sh"

ktap_header
if ! pg_is_ours && [ "${CONTRACT_STOCK:-0}" != 1 ]; then
	ktap_plan 1
	ktap_skip "write contract of our module" "stock pktgen has another parser (CONTRACT_STOCK=1 lists the differences)"
	ktap_finish
fi

defs() {	# the constants (a function: in_ns passes functions along)
	declare -gA ERRNO=([0]=0 [EPERM]=1 [ENODEV]=19 [EBUSY]=16 [EINVAL]=22
		[E2BIG]=7 [EOPNOTSUPP]=95 [ENETDOWN]=100)
	declare -gA MISSING=() SEEN=()
	# Commands and flags of the foundation: their rows are never skipped.
	OLD_CMDS=" count clone_skb burst pkt_size min_pkt_size max_pkt_size delay
		rate ratep udp_src_min udp_src_max udp_dst_min udp_dst_max dst
		dst_min dst_max src_min src_max dst_mac src_mac src_mac_count
		dst_mac_count flag clear_counters debug add_device rem_device_all
		max_before_softirq "
	OLD_CMDS=${OLD_CMDS//$'\n'/ }
	OLD_CMDS=${OLD_CMDS//$'\t'/}
	OLD_FLAGS=" IPSRC_RND IPDST_RND TXSIZE_RND UDPSRC_RND UDPDST_RND NO_TIMESTAMP MACSRC_RND MACDST_RND SHARED "
}
defs

# ------------------------------------------------------------------ the table
# FILE | COMMAND | ERRNO | RESULT [| OPTIONS]
# FILE: dum0, va, lo or T (the thread file).  COMMAND: printf %b escapes
# allowed (\x20 = a trailing space).  ERRNO: 0 or a name, a/b = either.
# RESULT: a bash glob for the text after "Result: " (\n = newline),
# a||b = either.  OPTIONS: v=nl,eq,sp,nul,nonl (the forms written; default
# all five, or nl,nul,nonl for a command without value), needs=X,Y (skip
# unless the commands/flags X, Y landed).
FLAGS_ALL="IPV6, IPSRC_RND, IPDST_RND, TXSIZE_RND, UDPSRC_RND, UDPDST_RND, UDPCSUM, NO_TIMESTAMP, MPLS_RND, QUEUE_MAP_RND, QUEUE_MAP_CPU, FLOW_SEQ, IPSEC, MACSRC_RND, MACDST_RND, VID_RND, SVID_RND, NODE, SHARED"
NEW_FLAGS="flag IPV6,flag UDPCSUM,flag MPLS_RND,flag QUEUE_MAP_RND,flag QUEUE_MAP_CPU,flag FLOW_SEQ,flag IPSEC,flag VID_RND,flag SVID_RND,flag NODE"
XMODES="start_xmit, netif_receive, queue_xmit"
I20=$(for s in $(seq 100 100 2000); do printf '%s,1 ' "$s"; done)
I20=${I20% }
M16=$(printf '%x,' $(seq 1 16))
M16=${M16%,}
M16OK=$(printf '%08x,' $(seq 1 16))
M16OK=${M16OK%,}

table_main() {
	cat <<-EOF
	# --- sizes, timing, counts (limits are generated below)
	dum0 | count 1000 | 0 | OK: count=1000
	dum0 | count | 0 | OK: count=0
	dum0 | count 0000000007 | 0 | OK: count=7
	dum0 | count 12abc | EINVAL | ERROR: count *
	dum0 | count 0x10 | EINVAL | ERROR: count *
	dum0 | count +5 | EINVAL | ERROR: count *
	dum0 | count 1.5 | EINVAL | ERROR: count *
	dum0 | count 1000 | 0 | OK: count=1000
	dum0 | clone_skb 10 | 0 | OK: clone_skb=10
	dum0 | clone_skb 0 | 0 | OK: clone_skb=0
	dum0 | burst 8 | 0 | OK: burst=8
	dum0 | burst 0 | 0 | OK: burst=1
	dum0 | pkt_size 60 | 0 | OK: pkt_size=60
	dum0 | pkt_size 10 | 0 | OK: pkt_size=42
	dum0 | pkt_size abc | EINVAL | ERROR: pkt_size *
	dum0 | min_pkt_size | 0 | OK: min_pkt_size=42
	dum0 | min_pkt_size\x20 | 0 | OK: min_pkt_size=42 | v=nl,nul,nonl
	dum0 | min_pkt_size 0 | 0 | OK: min_pkt_size=42
	dum0 | min_pkt_size 1 | 0 | OK: min_pkt_size=42
	dum0 | min_pkt_size 100 | 0 | OK: min_pkt_size=100
	dum0 | min_pkt_size 1001 | 0 | OK: min_pkt_size=1001
	dum0 | min_pkt_size =2002 | 0 | OK: min_pkt_size=2002 | v=nl,nul,nonl
	dum0 | min_pkt_size= 3003 | 0 | OK: min_pkt_size=3003 | v=nl,nul,nonl
	dum0 | min_pkt_size\t=\t4004 | 0 | OK: min_pkt_size=4004 | v=nl,nul,nonl
	dum0 | "min_pkt_size" "5005" | 0 | OK: min_pkt_size=5005 | v=nl,nul,nonl
	dum0 | \x20\tmin_pkt_size   6006 | 0 | OK: min_pkt_size=6006 | v=nl,nul,nonl
	# never reads past the write: the server's buffer still holds "...12345"
	dum0 | min_pkt_size 12345 | 0 | OK: min_pkt_size=12345 | v=nl
	dum0 | min_pkt_size 123 | 0 | OK: min_pkt_size=123 | v=nonl
	dum0 | count 5\0 7 | 0 | OK: count=5 | v=nonl
	dum0 | max_pkt_size 200 | 0 | OK: max_pkt_size=200
	dum0 | pkt_size 300 | 0 | OK: pkt_size=300
	dum0 | pkt_size 60 | 0 | OK: pkt_size=60
	dum0 | delay 100 | 0 | OK: delay=100
	dum0 | delay 2147483647 | 0 | OK: delay=18446744073709551615
	dum0 | delay 0 | 0 | OK: delay=0
	dum0 | rate 0 | EINVAL | ERROR: rate must be 1 or more Mb/s
	dum0 | rate 100 | 0 | OK: rate=100
	dum0 | rate 300M | 0 | OK: rate=300
	dum0 | rate 300G | EINVAL | ERROR: rate *
	dum0 | ratep 0 | EINVAL | ERROR: ratep must be 1 or more packets/s
	dum0 | ratep 200 | 0 | OK: rate=200
	dum0 | delay 0 | 0 | OK: delay=0
	# --- addresses
	dum0 | dst 10.0.0.1 | 0 | OK: dst_min=10.0.0.1
	dum0 | dst_min 10.0.0.2 | 0 | OK: dst_min=10.0.0.2
	dum0 | dst_max 10.0.0.9 | 0 | OK: dst_max=10.0.0.9
	dum0 | src_min 10.1.0.1 | 0 | OK: src_min=10.1.0.1
	dum0 | src_max 10.1.0.5 | 0 | OK: src_max=10.1.0.5
	dum0 | dst | 0 | OK: dst_min=
	dum0 | dst_min | 0 | OK: dst_min=
	dum0 | dst_max | 0 | OK: dst_max=
	dum0 | src_min | 0 | OK: src_min=
	dum0 | src_max | 0 | OK: src_max=
	dum0 | dst 10.0.0 | EINVAL | ERROR: dst *
	dum0 | dst_min 10.0.0.256 | EINVAL | ERROR: dst_min *
	dum0 | dst_max 1.2.3.4.5 | EINVAL | ERROR: dst_max *
	dum0 | src_min abc | EINVAL | ERROR: src_min *
	dum0 | src_max 10.1.0.5x | EINVAL | ERROR: src_max *
	dum0 | dst 10.0.0.1 | 0 | OK: dst_min=10.0.0.1
	dum0 | dst_mac 00:11:22:33:44:55 | 0 | OK: dstmac 00:11:22:33:44:55
	dum0 | dst_mac 01:02:03:04:05:06 | 0 | OK: dstmac 01:02:03:04:05:06
	dum0 | dst_mac AA:BB:CC:DD:EE:FF | 0 | OK: dstmac aa:bb:cc:dd:ee:ff
	dum0 | src_mac 11:12:13:14:15:16 | 0 | OK: srcmac 11:12:13:14:15:16
	dum0 | src_mac 00:00:00:00:00:00 | 0 | OK: srcmac 00:00:00:00:00:00
	dum0 | dst_mac zz:zz | EINVAL | ERROR: dst_mac *
	dum0 | dst_mac zz | EINVAL | ERROR: dst_mac *
	dum0 | dst_mac 00:11:22:33:44 | EINVAL | ERROR: dst_mac *
	dum0 | dst_mac 00:11:22:33:44:55:66 | EINVAL | ERROR: dst_mac *
	dum0 | dst_mac 0:1:2:3:4:5 | EINVAL | ERROR: dst_mac *
	dum0 | dst_mac | EINVAL | ERROR: dst_mac *
	dum0 | src_mac 00-11-22-33-44-55 | EINVAL | ERROR: src_mac *
	dum0 | src_mac gg:11:22:33:44:55 | EINVAL | ERROR: src_mac *
	dum0 | src_mac_count 100 | 0 | OK: src_mac_count=100
	dum0 | dst_mac_count 100 | 0 | OK: dst_mac_count=100
	dum0 | src_mac_count 0 | 0 | OK: src_mac_count=0
	dum0 | dst_mac_count 0 | 0 | OK: dst_mac_count=0
	dum0 | udp_src_min 1 | 0 | OK: udp_src_min=1
	dum0 | udp_dst_min 2 | 0 | OK: udp_dst_min=2
	dum0 | udp_src_max 3 | 0 | OK: udp_src_max=3
	dum0 | udp_dst_max 4 | 0 | OK: udp_dst_max=4
	dum0 | udp_src_min 70000 | EINVAL | ERROR: udp_src_min *
	dum0 | debug 1 | 0 | OK: debug=1
	dum0 | debug 0 | 0 | OK: debug=0
	dum0 | clear_counters | 0 | OK: Clearing counters.\n
	# --- unknown and overlong command names
	dum0 | min_pkt_siz 5 | EINVAL | No such parameter "min_pkt_siz"
	dum0 | COUNT 5 | EINVAL | No such parameter "COUNT"
	dum0 | clear_counterss | EINVAL | No such parameter "clear_counterss"
	dum0 | min_pkt_size_xx 5 | EINVAL | No such parameter "min_pkt_size_xx"
	dum0 | min_pkt_size_xxx 5 | EINVAL | No such parameter "min_pkt_size_xx"
	dum0 | \n | EINVAL | No such parameter "" | v=nonl
	dum0 | \0count 5 | EINVAL | No such parameter "" | v=nonl
	EOF
}

table_new() {
	cat <<-EOF
	# --- IPv6 (flag IPV6 is set by these; cleared at the end)
	dum0 | dst6 fd00::1 | 0 | OK: dst6=fd00::1
	dum0 | dst6 FD00:0000:0::0001 | 0 | OK: dst6=fd00::1
	dum0 | dst6 ::ffff:1.2.3.4 | 0 | OK: dst6=::ffff:1.2.3.4
	dum0 | dst6 2001:db8:0:0:1:0:0:1 | 0 | OK: dst6=2001:db8::1:0:0:1
	dum0 | dst6 fd00::g | EINVAL | ERROR: *
	dum0 | dst6 fd00:::1 | EINVAL | ERROR: *
	dum0 | dst6 1:2:3:4:5:6:7:8:9 | EINVAL | ERROR: *
	dum0 | dst6 fd00::1/64 | EINVAL | ERROR: *
	dum0 | dst6 fd00::1x | EINVAL | ERROR: *
	dum0 | dst6_min fd00::10 | 0 | OK: dst6_min=fd00::10
	dum0 | dst6_max fd00::20 | 0 | OK: dst6_max=fd00::20
	dum0 | src6 fd01::1 | 0 | OK: src6=fd01::1
	dum0 | src6_min fd01::10 | 0 | OK: src6_min=fd01::10
	dum0 | src6_max fd01::20 | 0 | OK: src6_max=fd01::20
	dum0 | dst6_min zz | EINVAL | ERROR: *
	dum0 | dst6_max fd00::1::2 | EINVAL | ERROR: *
	dum0 | src6 10.0.0.1x | EINVAL | ERROR: *
	dum0 | src6_min fd01::g | EINVAL | ERROR: *
	dum0 | src6_max : | EINVAL | ERROR: *
	dum0 | flag !IPV6 | 0 | OK: flags=0x40000 | needs=flag IPV6
	# --- tos, traffic_class, skb_priority
	dum0 | tos 0 | 0 | OK: tos=0x00
	dum0 | tos 0f | 0 | OK: tos=0x0f
	dum0 | tos a | 0 | OK: tos=0x0a
	dum0 | tos FF | 0 | OK: tos=0xff
	dum0 | tos 0ff | EINVAL | ERROR: tos must be 00-ff
	dum0 | tos 100 | EINVAL | ERROR: tos must be 00-ff
	dum0 | tos g | EINVAL | ERROR: tos must be 00-ff
	dum0 | tos 0x1 | EINVAL | ERROR: tos must be 00-ff
	dum0 | tos -1 | EINVAL | ERROR: tos must be 00-ff
	dum0 | tos | EINVAL | ERROR: tos must be 00-ff
	dum0 | tos 00 | 0 | OK: tos=0x00
	dum0 | traffic_class f0 | 0 | OK: traffic_class=0xf0
	dum0 | traffic_class 0 | 0 | OK: traffic_class=0x00
	dum0 | traffic_class Ab | 0 | OK: traffic_class=0xab
	dum0 | traffic_class 0ff | EINVAL | ERROR: traffic_class must be 00-ff
	dum0 | traffic_class x | EINVAL | ERROR: traffic_class must be 00-ff
	dum0 | traffic_class | EINVAL | ERROR: traffic_class must be 00-ff
	dum0 | traffic_class 00 | 0 | OK: traffic_class=0x00
	dum0 | skb_priority 999 | 0 | OK: skb_priority=999
	# --- VLAN / QinQ
	dum0 | vlan_p 1 | EINVAL | ERROR: vlan_p must be 0-7
	dum0 | vlan_cfi 1 | EINVAL | ERROR: vlan_cfi must be 0-1
	dum0 | svlan_id 5 | EINVAL | ERROR: *
	dum0 | vlan_id 1 | 0 | OK: vlan_id=1
	dum0 | vlan_id 4095 | 0 | OK: vlan_id=4095
	dum0 | vlan_id 0 | 0 | OK: vlan_id=0
	dum0 | vlan_p 1 | 0 | OK: vlan_p=1
	dum0 | vlan_p 7 | 0 | OK: vlan_p=7
	dum0 | vlan_p 8 | EINVAL | ERROR: vlan_p must be 0-7
	dum0 | vlan_p 10 | EINVAL | ERROR: vlan_p must be 0-7
	dum0 | vlan_p x | EINVAL | ERROR: *
	dum0 | vlan_cfi 1 | 0 | OK: vlan_cfi=1
	dum0 | vlan_cfi 0 | 0 | OK: vlan_cfi=0
	dum0 | vlan_cfi 2 | EINVAL | ERROR: vlan_cfi must be 0-1
	dum0 | svlan_p 1 | EINVAL | ERROR: svlan_p must be 0-7
	dum0 | svlan_cfi 1 | EINVAL | ERROR: svlan_cfi must be 0-1
	dum0 | svlan_id 1 | 0 | OK: svlan_id=1
	dum0 | svlan_id 4095 | 0 | OK: svlan_id=4095
	dum0 | svlan_p 1 | 0 | OK: svlan_p=1
	dum0 | svlan_p 7 | 0 | OK: svlan_p=7
	dum0 | svlan_p 8 | EINVAL | ERROR: svlan_p must be 0-7
	dum0 | svlan_cfi 1 | 0 | OK: svlan_cfi=1
	dum0 | svlan_cfi 2 | EINVAL | ERROR: svlan_cfi must be 0-1
	dum0 | svlan_id 4096 | 0 | OK: svlan_id=4096
	dum0 | vlan_p 1 | EINVAL | ERROR: vlan_p must be 0-7
	dum0 | svlan_p 1 | EINVAL | ERROR: svlan_p must be 0-7
	dum0 | vlan_id 10 | 0 | OK: vlan_id=10
	dum0 | svlan_id 20 | 0 | OK: svlan_id=20
	dum0 | vlan_id 4096 | 0 | OK: vlan_id=4096
	dum0 | vlan_p 1 | EINVAL | ERROR: vlan_p must be 0-7
	dum0 | svlan_p 1 | EINVAL | ERROR: svlan_p must be 0-7
	dum0 | vlan_id 65536 | EINVAL | ERROR: *
	dum0 | svlan_id 65536 | EINVAL | ERROR: *
	# --- MPLS (a stack turns VLAN off)
	dum0 | vlan_id 10 | 0 | OK: vlan_id=10
	dum0 | mpls 0000000a,00000014 | 0 | OK: mpls=0000000a,00000014
	dum0 | vlan_p 1 | EINVAL | ERROR: vlan_p must be 0-7 | needs=vlan_p,mpls
	dum0 | mpls 00000001 | 0 | OK: mpls=00000001
	dum0 | mpls a | 0 | OK: mpls=0000000a
	dum0 | mpls ABCDEF01 | 0 | OK: mpls=abcdef01
	dum0 | mpls 1,2 | 0 | OK: mpls=00000001,00000002
	dum0 | mpls $M16 | 0 | OK: mpls=$M16OK
	dum0 | mpls $M16,11 | E2BIG | ERROR: *
	dum0 | mpls 0 | 0 | OK: mpls=
	dum0 | mpls | EINVAL | ERROR: *
	dum0 | mpls 1,,2 | EINVAL | ERROR: *
	dum0 | mpls 1, | EINVAL | ERROR: *
	dum0 | mpls ,1 | EINVAL | ERROR: *
	dum0 | mpls xyz | EINVAL | ERROR: *
	dum0 | mpls 123456789 | EINVAL | ERROR: *
	dum0 | mpls 0 | 0 | OK: mpls=
	# --- frags, node, queue mapping, flows, spi
	dum0 | frags 100 | 0 | OK: frags=100
	dum0 | frags 0 | 0 | OK: frags=0
	dum0 | node 100 | 0 | OK: node=100
	dum0 | node 0 | 0 | OK: node=0
	dum0 | queue_map_min 1 | 0 | OK: queue_map_min=1
	dum0 | queue_map_max 2 | 0 | OK: queue_map_max=2
	dum0 | queue_map_min 0 | 0 | OK: queue_map_min=0
	dum0 | queue_map_max 0 | 0 | OK: queue_map_max=0
	dum0 | flows 100 | 0 | OK: flows=100
	dum0 | flowlen 100 | 0 | OK: flowlen=100
	dum0 | flowlen 4294967295 | 0 | OK: flowlen=4294967295
	dum0 | flowlen 4294967296 | EINVAL/0 | ERROR: *||OK: flowlen=4294967296
	dum0 | flowlen x | EINVAL | ERROR: *
	dum0 | flows 0 | 0 | OK: flows=0
	dum0 | flowlen 0 | 0 | OK: flowlen=0
	dum0 | spi 100 | 0 | OK: spi=100
	dum0 | spi 4294967295 | 0 | OK: spi=4294967295
	dum0 | spi 4294967296 | EINVAL/0 | ERROR: *||OK: spi=4294967296
	dum0 | spi x | EINVAL | ERROR: *
	dum0 | spi 0 | 0 | OK: spi=0
	# --- imix
	dum0 | imix_weights 0,7 576,4 1500,1 | 0 | OK: imix_weights=42,7 576,4 1500,1
	dum0 | imix_weights $I20 | 0 | OK: imix_weights=$I20
	dum0 | imix_weights $I20 2100,1 | E2BIG | ERROR: *
	dum0 | imix_weights | EINVAL | ERROR: *
	dum0 | imix_weights\x20 | EINVAL | ERROR: * | v=nl,nul,nonl
	dum0 | imix_weights 0 | EINVAL | ERROR: *
	dum0 | imix_weights 0, | EINVAL | ERROR: *
	dum0 | imix_weights 100,0 | EINVAL | ERROR: *
	dum0 | imix_weights 100,x | EINVAL | ERROR: *
	dum0 | imix_weights 100 200,1 | EINVAL | ERROR: *
	dum0 | imix_weights 65536,1 | EINVAL | ERROR: *
	dum0 | imix_weights 65535,4294967295 | 0 | OK: imix_weights=65535,4294967295
	dum0 | imix_weights 100,4294967296 | EINVAL | ERROR: *
	dum0 | clone_skb 1 | EINVAL | ERROR: * | needs=imix_weights
	dum0 | clone_skb 0 | 0 | OK: clone_skb=0
	dum0 | imix_weights off | 0 | OK: imix_weights*
	dum0 | clone_skb 1 | 0 | OK: clone_skb=1
	dum0 | imix_weights 100,1 | EINVAL | ERROR: *
	dum0 | clone_skb 0 | 0 | OK: clone_skb=0
	# --- xmit_mode and its restrictions, both orders (dum0 shares skbs)
	dum0 | xmit_mode start_xmit | 0 | OK: xmit_mode=start_xmit
	dum0 | xmit_mode netif_receive | 0 | OK: xmit_mode=netif_receive
	dum0 | clone_skb 1 | EOPNOTSUPP | ERROR: * | needs=xmit_mode
	dum0 | burst 2 | 0 | OK: burst=2 | needs=xmit_mode
	dum0 | xmit_mode queue_xmit | EOPNOTSUPP | ERROR: *
	dum0 | burst 1 | 0 | OK: burst=1
	dum0 | xmit_mode queue_xmit | 0 | OK: xmit_mode=queue_xmit
	dum0 | burst 2 | EOPNOTSUPP | ERROR: * | needs=xmit_mode
	dum0 | clone_skb 1 | 0 | OK: clone_skb=1
	dum0 | xmit_mode netif_receive | EOPNOTSUPP | ERROR: *
	dum0 | xmit_mode start_xmit | 0 | OK: xmit_mode=start_xmit
	dum0 | xmit_mode netif_receive | EOPNOTSUPP | ERROR: *
	dum0 | clone_skb 0 | 0 | OK: clone_skb=0
	dum0 | burst 2 | 0 | OK: burst=2
	dum0 | xmit_mode queue_xmit | EOPNOTSUPP | ERROR: *
	dum0 | burst 1 | 0 | OK: burst=1
	dum0 | xmit_mode nonsense | EINVAL | xmit_mode -:nonsense:- unknown\nAvailable modes: $XMODES
	dum0 | xmit_mode START_XMIT | EINVAL | xmit_mode -:START_XMIT:- unknown\nAvailable modes: $XMODES
	dum0 | xmit_mode | EINVAL | xmit_mode -::- unknown\nAvailable modes: $XMODES||ERROR: *
	# veth: no IFF_TX_SKB_SHARING
	va | clone_skb 1 | EOPNOTSUPP | ERROR: *
	va | burst 2 | EOPNOTSUPP | ERROR: *
	va | clone_skb 0 | 0 | OK: clone_skb=0
	va | burst 1 | 0 | OK: burst=1
	va | xmit_mode netif_receive | 0 | OK: xmit_mode=netif_receive
	va | burst 10000 | 0 | OK: burst=10000 | needs=xmit_mode
	va | clone_skb 1 | EOPNOTSUPP | ERROR: *
	va | xmit_mode start_xmit | EOPNOTSUPP | ERROR: *
	va | xmit_mode queue_xmit | EOPNOTSUPP | ERROR: *
	va | burst 1 | 0 | OK: burst=1
	va | xmit_mode queue_xmit | 0 | OK: xmit_mode=queue_xmit
	va | clone_skb 1 | EOPNOTSUPP | ERROR: *
	va | burst 2 | EOPNOTSUPP | ERROR: *
	va | xmit_mode start_xmit | 0 | OK: xmit_mode=start_xmit
	# loopback (the kselftest's device)
	lo | clone_skb 1 | EOPNOTSUPP | ERROR: *
	lo | clone_skb 0 | 0 | OK: clone_skb=0
	lo | burst 2 | EOPNOTSUPP | ERROR: *
	lo | burst 0 | 0 | OK: burst=1
	# --- aliases (the old spellings)
	dum0 | dstmac 00:11:22:33:44:56 | 0 | OK: dstmac 00:11:22:33:44:56
	dum0 | srcmac 02:00:00:00:00:01 | 0 | OK: srcmac 02:00:00:00:00:01
	dum0 | dstmac zz | EINVAL | ERROR: *
	dum0 | ipg 100 | 0 | OK: delay=100
	dum0 | ipg x | EINVAL | ERROR: *
	dum0 | ipg 0 | 0 | OK: delay=0
	EOF
}

# the kselftest (proc_net_pktgen.c, v6.15) device cases on lo@0, in its
# order; ours differs where the comment says so (Documentation/pktgen.rst, "Differences").
table_kselftest() {
	cat <<-EOF
	lo@0 | min_pkt_size | 0 | OK: min_pkt_size=42
	lo@0 | max_pkt_size 200 | 0 | OK: max_pkt_size=200
	lo@0 | pkt_size 300 | 0 | OK: pkt_size=300
	lo@0 | imix_weights 0,7 576,4 1500,1 | 0 | OK: imix_weights=42,7 576,4 1500,1
	lo@0 | imix_weights $I20 2100,1 | E2BIG | ERROR: *
	lo@0 | imix_weights 0 | EINVAL | ERROR: *
	lo@0 | debug 1 | 0 | OK: debug=1
	lo@0 | debug 0 | 0 | OK: debug=0
	lo@0 | frags 100 | 0 | OK: frags=100
	lo@0 | delay 100 | 0 | OK: delay=100
	lo@0 | delay 2147483647 | 0 | OK: delay=18446744073709551615
	lo@0 | rate 0 | EINVAL | ERROR: rate *
	lo@0 | rate 100 | 0 | OK: rate=100
	lo@0 | ratep 0 | EINVAL | ERROR: ratep *
	lo@0 | ratep 200 | 0 | OK: rate=200
	lo@0 | udp_src_min 1 | 0 | OK: udp_src_min=1
	lo@0 | udp_dst_min 2 | 0 | OK: udp_dst_min=2
	lo@0 | udp_src_max 3 | 0 | OK: udp_src_max=3
	lo@0 | udp_dst_max 4 | 0 | OK: udp_dst_max=4
	lo@0 | clone_skb 1 | EOPNOTSUPP | ERROR: *
	lo@0 | clone_skb 0 | 0 | OK: clone_skb=0
	lo@0 | count 100 | 0 | OK: count=100
	lo@0 | src_mac_count 100 | 0 | OK: src_mac_count=100
	lo@0 | dst_mac_count 100 | 0 | OK: dst_mac_count=100
	lo@0 | burst 0 | 0 | OK: burst=1
	lo@0 | node 100 | 0 | OK: node=100
	lo@0 | xmit_mode start_xmit | 0 | OK: xmit_mode=start_xmit
	lo@0 | xmit_mode netif_receive | 0 | OK: xmit_mode=netif_receive
	lo@0 | xmit_mode queue_xmit | 0 | OK: xmit_mode=queue_xmit
	# ours: an unknown mode is refused (upstream: success + the message)
	lo@0 | xmit_mode nonsense | EINVAL | xmit_mode -:nonsense:- unknown\n*
	lo@0 | flag UDPCSUM | 0 | OK: flags=0x40040
	lo@0 | flag !UDPCSUM | 0 | OK: flags=0x40000
	# ours: an unknown flag is refused (upstream: success + the message)
	lo@0 | flag nonsense | EINVAL | Flag -:nonsense:- unknown\n*
	lo@0 | dst_min | 0 | OK: dst_min=
	lo@0 | dst | 0 | OK: dst_min=
	lo@0 | dst_max | 0 | OK: dst_max=
	# bare IPv6 commands: upstream stores ::, ours may refuse an empty address
	lo@0 | dst6 | 0/EINVAL | OK: dst6=::||ERROR: *
	lo@0 | dst6_min | 0/EINVAL | OK: dst6_min=::||ERROR: *
	lo@0 | dst6_max | 0/EINVAL | OK: dst6_max=::||ERROR: *
	lo@0 | src6 | 0/EINVAL | OK: src6=::||ERROR: *
	lo@0 | src_min | 0 | OK: src_min=
	lo@0 | src_max | 0 | OK: src_max=
	lo@0 | dst_mac 01:02:03:04:05:06 | 0 | OK: dstmac 01:02:03:04:05:06
	lo@0 | src_mac 11:12:13:14:15:16 | 0 | OK: srcmac 11:12:13:14:15:16
	lo@0 | clear_counters | 0 | OK: Clearing counters.\n
	lo@0 | flows 100 | 0 | OK: flows=100
	lo@0 | spi 100 | 0 | OK: spi=100
	lo@0 | flowlen 100 | 0 | OK: flowlen=100
	lo@0 | queue_map_min 1 | 0 | OK: queue_map_min=1
	lo@0 | queue_map_max 2 | 0 | OK: queue_map_max=2
	lo@0 | mpls 00000001 | 0 | OK: mpls=00000001
	lo@0 | mpls 00000001,000000f0 | 0 | OK: mpls=00000001,000000f0
	lo@0 | mpls $M16 | 0 | OK: mpls=$M16OK
	lo@0 | mpls $M16,11 | E2BIG | ERROR: *
	lo@0 | vlan_id 1 | 0 | OK: vlan_id=1
	lo@0 | vlan_p 1 | 0 | OK: vlan_p=1
	lo@0 | vlan_cfi 1 | 0 | OK: vlan_cfi=1
	lo@0 | vlan_id 4096 | 0 | OK: vlan_id=4096
	# ours: svlan_* need the inner VLAN (upstream: turns both off / ERROR Result with success)
	lo@0 | svlan_id 1 | EINVAL | ERROR: *
	lo@0 | svlan_p 1 | EINVAL | ERROR: svlan_p must be 0-7
	lo@0 | svlan_cfi 1 | EINVAL | ERROR: svlan_cfi must be 0-1
	lo@0 | svlan_id 4096 | 0 | OK: svlan_id=4096
	# ours: tos 0 is 0x00 (upstream: ERROR Result), tos 0ff refused (upstream: 0x0f)
	lo@0 | tos 0 | 0 | OK: tos=0x00
	lo@0 | tos 0f | 0 | OK: tos=0x0f
	lo@0 | tos 0ff | EINVAL | ERROR: tos must be 00-ff
	lo@0 | traffic_class f0 | 0 | OK: traffic_class=0xf0
	lo@0 | skb_priority 999 | 0 | OK: skb_priority=999
	EOF
}

table_thread() {
	local lw=forsureawrongcommandforsureawrongcommand	# 40 chars
	cat <<-EOF
	T | add_device nosuch0 | ENODEV | ERROR: can not add device nosuch0
	T | add_device nosuch0@1 | ENODEV | ERROR: can not add device nosuch0@1
	T | add_device dum0 | EBUSY | ERROR: can not add device dum0
	T | add_device lo@0 | EBUSY | ERROR: can not add device lo@0
	T | add_device dum0@1 | 0 | OK: add_device=dum0@1 | v=nl
	T | add_device dum0@2 | 0 | OK: add_device=dum0@2 | v=eq
	T | add_device dum0@3 | 0 | OK: add_device=dum0@3 | v=sp
	T | add_device dum0@4 | 0 | OK: add_device=dum0@4 | v=nul
	T | add_device dum0@5 | 0 | OK: add_device=dum0@5 | v=nonl
	T | add_device dum0@one@two | 0 | OK: add_device=dum0@one@two | v=nl
	T | add_device dum0@1 | EBUSY | ERROR: can not add device dum0@1
	T | add_device dum0@5 | EBUSY | ERROR: can not add device dum0@5
	T | add_device @1 | EINVAL/ENODEV | ERROR: can not add device @1
	T | add_device dum0@01234567890123456789012345 | 0 | OK: add_device=dum0@01234567890123456789012345 | v=nl
	T | add_device dum0@012345678901234567890123456 | E2BIG/EINVAL | ERROR: can not add device dum0@01234567890123456789012*
	T | add_device abcdefghijklmnopq@1 | EINVAL/ENODEV | ERROR: can not add device abcdefghijklmnopq@1
	T | add_device | EINVAL | ERROR: can not add device*
	T | max_before_softirq | 0 | OK: Note! max_before_softirq is obsoleted -- Do not use
	T | max_before_softirq 10 | 0 | OK: Note! max_before_softirq is obsoleted -- Do not use
	T | MAX_BEFORE_SOFTIRQ | EINVAL | No such parameter "MAX_BEFORE_SOFTIRQ"
	T | $lw | EINVAL | No such parameter "${lw:0:39}"
	T | ${lw:0:39} | EINVAL | No such parameter "${lw:0:39}"
	EOF
	prefix_rows T max_before_softir
	prefix_rows T forsureawrongcommand
	echo "T | rem_device_all | 0 | OK: rem_device_all"
}

# prefix_rows FILE WORD: every prefix of WORD is an unknown command.
prefix_rows() {
	local i max=15
	[ "$1" = T ] && max=39
	for ((i = 1; i <= ${#2}; i++)); do
		p=${2:0:i}
		echo "$1 | $p | EINVAL | No such parameter \"${p:0:max}\""
	done
}

# limit_rows NAME MAX RESTORE [SHOWN_NAME]: max accepted, max+1, 11 digits,
# garbage and a sign refused, then RESTORE.
limit_rows() {
	local n=$1 max=$2 s=${4:-$1} e="ERROR: *"
	case "$OLD_CMDS" in *" $n "*) e="ERROR: $n *" ;; esac
	cat <<-EOF
	dum0 | $n $max | 0 | OK: $s=$max
	dum0 | $n $((max + 1)) | EINVAL | $e
	dum0 | $n 00000000001 | EINVAL | $e
	dum0 | $n 1x | EINVAL | $e
	dum0 | $n -1 | EINVAL | $e
	dum0 | $n $3 | 0 | OK: $s=$3
	EOF
}

table_limits() {
	limit_rows count 9999999999 1000
	limit_rows clone_skb 2147483647 0
	limit_rows burst 1000000 1
	limit_rows pkt_size 65535 60
	limit_rows min_pkt_size 65535 60
	limit_rows max_pkt_size 65535 60
	limit_rows delay 9999999999 0
	limit_rows rate 9999999999 1000
	limit_rows ratep 9999999999 1000 rate
	limit_rows udp_src_min 65535 9
	limit_rows udp_src_max 65535 9
	limit_rows udp_dst_min 65535 9
	limit_rows udp_dst_max 65535 9
	limit_rows src_mac_count 2147483647 0
	limit_rows dst_mac_count 2147483647 0
	echo "dum0 | delay 0 | 0 | OK: delay=0"
	limit_rows skb_priority 999999999 0
	limit_rows frags 2147483647 0
	limit_rows node 65535 0
	limit_rows queue_map_min 65535 0
	limit_rows queue_map_max 65535 0
	limit_rows flows 65536 0
	limit_rows vlan_id 65535 65535
}

# flag rows: NAME VALUE (set: SHARED|VALUE; clear: SHARED alone)
table_flags() {
	local f v
	while read -r f v; do
		printf 'dum0 | flag %s | 0 | OK: flags=0x%x\n' "$f" $((0x40000 | v))
		printf 'dum0 | flag !%s | 0 | OK: flags=0x40000\n' "$f"
	done <<-EOF
	IPSRC_RND 0x2
	IPDST_RND 0x4
	TXSIZE_RND 0x8
	UDPSRC_RND 0x10
	UDPDST_RND 0x20
	NO_TIMESTAMP 0x80
	MACSRC_RND 0x2000
	MACDST_RND 0x4000
	IPV6 0x1
	UDPCSUM 0x40
	MPLS_RND 0x100
	QUEUE_MAP_RND 0x200
	QUEUE_MAP_CPU 0x400
	FLOW_SEQ 0x800
	IPSEC 0x1000
	VID_RND 0x8000
	SVID_RND 0x10000
	NODE 0x20000
	NODE_ALLOC 0x20000
	UDPDEST_RND 0x20
	EOF
	cat <<-EOF
	dum0 | flag NS_TIMESTAMP | 0 | OK: flags=0x*
	dum0 | flag !NS_TIMESTAMP | 0 | OK: flags=0x40000
	dum0 | flag !FLOW_RND | 0 | OK: flags=0x40800
	dum0 | flag FLOW_RND | 0 | OK: flags=0x40000
	dum0 | flag !SHARED | 0 | OK: flags=0x0
	dum0 | clone_skb 1 | EINVAL | ERROR: clone_skb *
	dum0 | burst 2 | EINVAL | ERROR: burst *
	dum0 | flag SHARED | 0 | OK: flags=0x40000
	dum0 | clone_skb 1 | 0 | OK: clone_skb=1
	dum0 | flag !SHARED | EINVAL | ERROR: *
	dum0 | clone_skb 0 | 0 | OK: clone_skb=0
	dum0 | burst 2 | 0 | OK: burst=2
	dum0 | flag !SHARED | EINVAL | ERROR: *
	dum0 | burst 1 | 0 | OK: burst=1
	dum0 | flag ipsrc_rnd | EINVAL | Flag -:ipsrc_rnd:- unknown\nAvailable flags, (prepend ! to un-set flag):\n*
	dum0 | flag !NOSUCH | EINVAL | Flag -:!NOSUCH:- unknown\nAvailable flags, (prepend ! to un-set flag):\n*
	dum0 | flag | EINVAL | Flag -::- unknown\nAvailable flags, (prepend ! to un-set flag):\n*
	dum0 | flag NOSUCH | EINVAL | Flag -:NOSUCH:- unknown\nAvailable flags, (prepend ! to un-set flag):\n$FLAGS_ALL* | needs=$NEW_FLAGS
	EOF
}

# a run started by the device command "inject"
table_inject() {
	cat <<-EOF
	dum0 | count 10 | 0 | OK: count=10
	dum0 | inject | 0 | OK: *usec, 10 (60byte,*frags)\n*pps*
	EOF
}

build_table() {
	{
		table_main
		table_limits
		table_flags
		prefix_rows dum0 forsurewrongcommand
		table_new
		table_inject
		table_kselftest
		table_thread
	} | sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d'
}

# ------------------------------------------------------------------ the runner
# Runs in the netns (in_ns): reads go straight to /proc (builtins, no
# fork), writes go through lib's resident write helper.

# w_bytes FILE DATA: one write(2) of DATA (printf %b; \0 allowed) to FILE;
# returns its errno.  Sent to lib's helper server (a fork costs ~0.2 s
# under TCG: pg_write_raw per write would not fit in the time budget);
# the one-shot pg_write_raw where no server runs.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
w_bytes() {
	local LC_ALL=C n t err len
	if [ -z "${_PGS_TOK:-}" ] || [ "$_PGS_TOK" = - ]; then
		pg_write_raw "$1" "$2"
		return
	fi
	printf -v n '%b' "${2//\\0/X}"
	read -r -N 1 -t 60 -u "$_PGS_TOK" t || return 110
	printf 'W /proc/%s/ns/net %s %d\n' "$BASHPID" "$PG_PROC/$1" "${#n}" >&"$_PGS_W"
	printf '%b' "$2" >&"$_PGS_W"
	read -r -t 60 -u "$_PGS_R" err len || return 110
	printf t >&"$_PGS_TOK"
	return "$err"
}

RES=""
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
res_of() {	# FILE: its Result text into RES (builtins only: bash is slow on TCG)
	local l t head
	RES=""
	mapfile l <"$PG_PROC/$1" || return 1
	printf -v t '%s' "${l[@]}"
	[[ "$t" == *$'\n'"Result: "* ]] || return 1
	# from the end (lib.sh's _pg_result_var says why not ${t#*\nResult: })
	head=${t%$'\n'Result: *}
	RES=${t:${#head}+9}
	RES=${RES%$'\n'}
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
res_ok() {	# PATTERNS: RES matches one of the ||-separated globs
	local p rest=$1
	while :; do
		p=${rest%%||*}
		# shellcheck disable=SC2053 # a glob on purpose
		[[ "$RES" == $p ]] && return 0
		[ "$p" = "$rest" ] && return 1
		rest=${rest#*||}
	done
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
errno_ok() {	# GOT WANTS (a/b)
	local w
	for w in ${2//\// }; do
		[ "$1" = "${ERRNO[$w]}" ] && return 0
	done
	return 1
}

# fresh FILE PATTERN: make sure the Result does not match PATTERN before
# the row's write (so the write has to replace it): if it does, write a
# command with another Result (the sentinel) and check that it took.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
fresh() {
	local c
	res_of "$1"
	res_ok "$2" || return 0
	if [ "$1" = "$T0" ]; then
		set -- "$1" "$2" "max_before_softirq" "add_device nosuch0"
	else
		set -- "$1" "$2" "clear_counters" "debug 0"
	fi
	for c in "$3" "$4"; do
		w_bytes "$1" "$c\n"
		res_of "$1" || return 1
		res_ok "$2" || return 0
	done
	return 1
}

# form V CMD: BYTES = CMD written in form V (printf %b notation)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
form() {
	local name=${2%% *} val=${2#* }
	case $1 in
	nl) BYTES="$2\n" ;;
	eq) BYTES="$name=$val\n" ;;
	sp) BYTES="$name = $val\n" ;;
	nul) BYTES="$2\0" ;;
	nonl) BYTES=$2 ;;
	esac
}

# landed NAME: false once a row of NAME was skipped as not implemented
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
landed() { [ -z "${MISSING[$1]:-}" ]; }

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
key_of() {	# CMD: KEY = "flag NAME" for flags, else the command name
	local c
	printf -v c '%b' "$1"
	c=${c#"${c%%[!\"=$' \t\n']*}"}	# the write's leading separators
	KEY=${c%%[\"=$' \t\n\r']*}
	if [ "$KEY" = flag ] && [ "$1" != flag ]; then
		KEY=${1#flag }
		KEY="flag ${KEY#!}"
	fi
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
is_new() {	# KEY
	case $1 in
	"flag "*) [[ "$OLD_FLAGS" != *" ${1#flag } "* ]] ;;
	*) [[ "$OLD_CMDS" != *" $1 "* ]] ;;
	esac
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
not_landed_res() {	# KEY: RES says the command or flag does not exist
	case $1 in
	"flag "*) [[ "$RES" == "Flag -:"*":- unknown"* ]] ;;
	*) [[ "$RES" == "No such parameter \"$1\"" ]] ;;
	esac
}

# run_row FILE CMD ERRNO RESULT OPTS: prints PASS/FAIL/SKIP.  Rows are
# written in every form until one with a value was (the first of each
# command, normally); later rows as "CMD\n" and "CMD\0" (time budget).
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
run_row() {
	local f=$1 cmd=$2 want_e=$3 want_r=$4 opts=$5
	local forms need KEY name v rc BYTES why="" first=1
	printf -v want_r '%b' "$want_r"
	[ "$f" = T ] && f=$T0
	name="$1: $cmd -> $want_e"
	key_of "$cmd"
	if [[ "$opts" == *needs=* ]]; then
		need=${opts#*needs=}
		IFS=, read -ra need <<<"$need"
		for v in "${need[@]}"; do
			landed "$v" || { echo "SKIP $name|needs '$v' (not landed)"; return; }
		done
	fi
	forms="nl eq sp nul nonl"
	[[ "$cmd" == *" "* ]] || forms="nl nul nonl"
	[ -n "$KEY" ] && [ -n "${SEEN[$KEY]:-}" ] && forms="nl nul"
	[[ "$opts" == *v=* ]] && { forms=${opts#*v=}; forms=${forms%% *}; forms=${forms//,/ }; }
	for v in $forms; do
		fresh "$f" "$want_r" || { why+="[$v] no sentinel, Result '$RES'; "; continue; }
		form "$v" "$cmd"
		rc=0
		w_bytes "$f" "$BYTES" || rc=$?
		res_of "$f"
		if [ "$first" = 1 ] && is_new "$KEY" && not_landed_res "$KEY" &&
		   ! res_ok "$want_r"; then
			MISSING[$KEY]=1
			echo "SKIP $name|not landed: ${RES%%$'\n'*}"
			return
		fi
		first=0
		if ! errno_ok "$rc" "$want_e" || ! res_ok "$want_r"; then
			why+="[$v '$BYTES'] errno $rc, Result '${RES//$'\n'/\\n}'; "
		fi
	done
	[ -n "$KEY" ] && [[ " $forms " == *" eq "* ]] && SEEN[$KEY]=1
	if [ -z "$why" ]; then
		echo "PASS $name"
	else
		echo "FAIL $name|${why}want errno $want_e, Result '${4}'"
	fi
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
run_table() {	# ROWSFILE
	local line f c e r o
	defs
	while IFS= read -r line; do
		IFS='|' read -r f c e r o <<<"${line//||/$'\x01'}"
		read -r f <<<"$f"	# trims the blanks around each field
		read -r c <<<"$c"
		read -r e <<<"$e"
		read -r r <<<"${r//$'\x01'/||}"
		read -r o <<<"$o"
		run_row "$f" "$c" "$e" "$r" "$o"
	done <"$1"
}

# ------------------------------------------------------------------ main
report() {
	local line rest
	while IFS= read -r line; do
		rest=${line#* }
		case $line in
		"PASS "*) ktap_pass "$rest" ;;
		"FAIL "*) ktap_fail "${rest%%|*}" "${rest#*|}" ;;
		"SKIP "*) ktap_skip "${rest%%|*}" "${rest#*|}" ;;
		*) [ -n "$line" ] && echo "# $line" ;;
		esac
	done
}

TMP=$(lib_tmpdir)
build_table >"$TMP/rows"
ktap_plan $(($(wc -l <"$TMP/rows") + 1))

if ! pg_load; then
	ktap_fail "module loads and devices are added"
	ktap_finish
fi
T0=kpktgend_$(cut -d, -f1 </sys/devices/system/cpu/online | cut -d- -f1)
setup_ns NS
dummy_create "$NS" dum0
veth_create "$NS" va "$NS" vb
in_ns "$NS" pg_read pgctrl >/dev/null	# starts lib's write helper
setup_ok() {
	local d
	for d in dum0 va lo lo@0; do
		in_ns "$NS" pg_set "$T0" "add_device $d" || return 1
	done
}
if ! setup_ok; then
	ktap_fail "module loads and devices are added"
	ktap_finish
fi
ktap_pass "module loads and devices are added"
export T0
in_ns "$NS" run_table "$TMP/rows" >"$TMP/out"
report <"$TMP/out"
in_ns "$NS" pg_write pgctrl reset
pg_unload
ktap_finish
