#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# On-the-wire check of what pktgen does with the payload and the transmit
# path: UDPCSUM (software and CHECKSUM_PARTIAL, accepted by the peer's
# stack), frags (same bytes as a linear frame), imix, flows/flowlen/
# FLOW_SEQ, queue_map (round robin, random, per CPU: seen in the peer's
# per-RX-queue counters), NS_TIMESTAMP, skb_priority and xmit_mode
# queue_xmit (through a prio qdisc), netif_receive, and dev@0/dev@1 on two
# threads.
#
#   netns A (NSA)                          netns B (NSB)
#   +---------------------------+          +---------------------------+
#   | pktgen "vethA" (4 TX q)   |   veth   | vethB (4 RX q, GRO on)    |
#   |   vethA 10.99.0.1/24      |<-------->|   vethB 10.99.0.2/24      |
#   |   root qdisc prio 1:      |          |   <-- tcpdump "b"         |
#   |   <-- tcpdump "a"         |          +---------------------------+
#   +---------------------------+
# IPv6 off, static neighbours.  GRO on vethB (and TSO off on vethA) make
# veth deliver through vethB's per-queue NAPI rings, so ethtool -S vethB
# rx_queue_N_xdp_packets count the frames per TX queue pktgen chose.
# skb->priority 0x10003 (1:3) selects band 3 of the prio qdisc, whose
# counters see queue_xmit packets and not start_xmit ones.  Every run has
# its own UDP destination port (tests/lib/wire.sh); nothing is dropped on
# vethB: its UDP MIBs tell whether the checksums were accepted.

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/wire.sh"

IPA=10.99.0.1 IPB=10.99.0.2 NQ=4

TMP=$(mktemp -d /tmp/wire-payload.XXXXXX)
defer rm -rf "$TMP"

CHECKER='
import sys
sys.path.insert(0, sys.argv[1])
import pcap
from collections import Counter

def same_bytes(rep, fr, r):
    # the IP id, IP checksum and UDP port differ between the two runs
    path, ref = pcap.RUN_FRAMES[r["ref"]]
    a, b = pcap.raw(path), pcap.raw(pcap.RUN_FRAMES[r["lab"]][0])
    def masked(x):
        return x[:18] + x[20:24] + x[26:36] + x[38:]
    why = None if len(fr) == len(ref) else "%d vs %d frames" % (len(fr), len(ref))
    for f, g in zip(fr, ref):
        if why is None and masked(b[f["n"] - 1]) != masked(a[g["n"] - 1]):
            why = "frame %d differs from linear frame %d" % (f["n"], g["n"])
    rep.check("bytes identical to the linear run (but IP id/csum, port)", why)

def imix(rep, fr, r):
    want = dict((int(s), int(c)) for s, c in
                (e.split(",") for e in r["counts"].split()))
    seen = Counter(f["len"] for f in fr)
    rep.check("frame sizes seen = the configured set %s" % sorted(want),
              None if set(seen) == set(want) else "seen %s" % dict(seen))
    rep.check("imix_size_counts sum to %d and match the capture" % r["n"],
              None if sum(want.values()) == r["n"] and seen == Counter(want)
              else "counts %s, capture %s" % (want, dict(seen)))
    # weights 1:2:1, 200 draws: a count outside [n/12, 3n/4] is > 5 sd off
    odd = [s for s, c in want.items() if not r["n"] // 12 <= c <= r["n"] * 3 // 4]
    rep.check("proportions loosely follow the weights",
              None if not odd and want.get(300, 0) > min(want.values())
              else "counts %s" % want)

def flows(rep, fr, r):
    dst = [f["ip"]["dst"] for f in fr]
    k = r["flowlen"]
    runs = [dst[i:i + k] for i in range(0, len(dst), k)]
    why = None
    for i, run in enumerate(runs):
        if why is None and (len(set(run)) != 1 or (i and run[0] == runs[i - 1][0])):
            why = "destinations %s" % dst
    rep.check("runs of %d packets to one destination, the next run another" % k, why)
    ok = set("10.99.3.%d" % i for i in range(1, 9))
    rep.check("destinations in 10.99.3.1-8",
              None if set(dst) <= ok else "destinations %s" % sorted(set(dst)))

def ns_ts(rep, fr, r):
    rep.each("extension: magic be9be956, tv_nsec / 1000 = tv_usec, flags SENT (1)",
             fr, lambda f: f["pktgen"]["ext"]["zero"] == 1 and
             f["pktgen"]["ext"]["tv_nsec"] // 1000 == f["pktgen"]["tv_usec"] and
             f["pktgen"]["ext"]["tv_nsec"] < 10 ** 9 and f["pktgen"]["tv_sec"] > 0)
    ids = set(f["pktgen"]["ext"]["stream"] for f in fr if "ext" in f["pktgen"])
    rep.check("one stream id for the device", None if len(ids) == 1 else ids)

pcap.check_runs(sys.argv[2:], {"same_bytes": same_bytes,
                               "imix": imix, "flows": flows, "ns_ts": ns_ts})
'

ethtool_a() { ip netns exec "$NSA" ethtool "$@" >/dev/null; }

# Frames per RX queue of vethB: "q0 q1 q2 q3".
q_counts() {
	ip netns exec "$NSB" ethtool -S vethB |
		awk -F': ' '/rx_queue_[0-9]+_xdp_packets/ { printf "%s ", $2 }'
}
Q_BEFORE=""
q_mark() { Q_BEFORE=$(q_counts); }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
q_sum() { q_counts | awk '{ for (i = 1; i <= NF; i++) s += $i } END { print s + 0 }'; }

# vethB's frames must come through its per-queue NAPI rings for the
# rx_queue_N counters to see them: GRO alone does that from 5.13 ("veth:
# allow enabling NAPI even without XDP"); before, an XDP program on
# vethB (XDP_PASS, tests/lib/bpfprog.py) does.  Found by a datagram.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
veth_poke() {	# one UDP datagram from NSA to vethB, to port 9 (discard)
	ip netns exec "$NSA" bash -c "echo poke >/dev/udp/$IPB/9" 2>/dev/null
	sleep 0.2
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
veth_napi() {
	local n0 bpf=$TMP/bpffs
	n0=$(q_sum)
	veth_poke
	[ "$(q_sum)" -gt "$n0" ] && return 0
	mkdir -p "$bpf" && mount -t bpf bpf "$bpf" && defer umount "$bpf" &&
		python3 -S "$LIB_DIR/bpfprog.py" xdp-pass "$bpf/xdp" &&
		ip -n "$NSB" link set dev vethB xdpdrv pinned "$bpf/xdp" || return 1
	n0=$(q_sum)
	veth_poke
	[ "$(q_sum)" -gt "$n0" ] || { echo "vethB's RX queue counters do not move"; return 1; }
	VETH_XDP=1
}

# q_delta LABEL WHAT WANT: the per-queue growth since q_mark is WANT
# ("a b c d"; "+" stands for any number above 0).
q_delta() {
	wire_skip "$1" "vethB RX queues got $3 ($2)" ||
		check "$1: vethB RX queues got $3 ($2)" _q_is "$3"
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
_q_is() {
	local -a a b w
	local i got="" bad=0
	read -ra a <<<"$Q_BEFORE"
	read -ra b <<<"$(q_counts)"
	read -ra w <<<"$1"
	for i in "${!w[@]}"; do
		got+="$((b[i] - a[i])) "
		[ "${w[i]}" = + ] && [ $((b[i] - a[i])) -gt 0 ] && continue
		[ "${w[i]}" = $((b[i] - a[i])) ] || bad=1
	done
	[ "$bad" -eq 0 ] || { echo "per queue: $got"; return 1; }
}

# Packets through class 1:3 of vethA's prio qdisc.
prio_sent() {
	ip netns exec "$NSA" tc -s class show dev vethA |
		awk '/^class prio 1:3 / { c = 1; next } c && /Sent/ { print $4; exit }'
}
PRIO0=0
prio_delta() {	# LABEL N
	wire_skip "$1" "prio band 1:3 (skb_priority 0x10003) counted $2" ||
		check "$1: prio band 1:3 (skb_priority 0x10003) counted $2" \
			test "$(($(prio_sent) - PRIO0))" -eq "$2"
}

# cur_is LABEL WHAT REGEX: a line of the device file matches REGEX.
cur_is() {
	wire_skip "$1" "$2" || check "$1: $2" grep -Eq "$3" <<<"$DEVFILE"
}

T() { [ -n "${WIRE_TIMING:-}" ] && echo "# $* $SECONDS" >>"$TMP/timing"; return 0; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	local ns
	T start
	pg_load || return 1
	T loaded
	setup_ns NSA NSB || return 1
	ip -n "$NSA" link add vethA numtxqueues "$NQ" numrxqueues "$NQ" type veth \
		peer name vethB netns "$NSB" numtxqueues "$NQ" numrxqueues "$NQ" || return 1
	for ns in "$NSA vethA $IPA" "$NSB vethB $IPB"; do
		# shellcheck disable=SC2086 # split into its fields
		set -- $ns
		ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1" &&
			ip -n "$1" addr add "$3/24" dev "$2" &&
			ip -n "$1" link set "$2" up || return 1
	done
	MACA=$(ns_cat "$NSA" /sys/class/net/vethA/address) &&
		MACB=$(ns_cat "$NSB" /sys/class/net/vethB/address) || return 1
	ip -n "$NSA" neigh add "$IPB" lladdr "$MACB" dev vethA nud permanent &&
		ip -n "$NSB" neigh add "$IPA" lladdr "$MACA" dev vethB nud permanent &&
		ip netns exec "$NSB" ethtool -K vethB gro on >/dev/null &&
		ethtool_a -K vethA tso off && veth_napi || return 1
	T ethtool
	ip netns exec "$NSA" tc qdisc add dev vethA root handle 1: prio || return 1
	T tc
	mapfile -t THRS < <(ip netns exec "$NSA" ls /proc/net/pktgen |
		grep kpktgend_ | sort -V)
	[ ${#THRS[@]} -gt 0 ] || return 1
	in_ns "$NSA" pg_write "${THRS[0]}" "add_device vethA" || return 1
	WIRE_NS=$NSA WIRE_DEV=vethA
	configure "pkt_size 100" "dst $IPB" "dst_mac $MACB" || echo "$CONF_WHY"
}

ktap_header

ktap_setup setup quiet
[ -n "${VETH_XDP:-}" ] && ktap_diag "this kernel's veth needs XDP for NAPI: XDP_PASS on vethB"
if ! cap_start "$NSB" vethB "$TMP/b.pcap" || ! cap_start "$NSA" vethA "$TMP/a.pcap"; then
	ktap_fail "captures on vethB and vethA"
	ktap_finish
fi
T caps
cat "$TMP/timing" 2>/dev/null

# UDPCSUM: software checksum, then CHECKSUM_PARTIAL; vethB accepts both.
ethtool_a -K vethA tx off
udp_mark "$NSB" 4
one_run csum_sw 20 '"all": [["UDPCSUM, tx off: udp checksum valid",
 {"udp.csum_ok": true, "len": 100, "ip.dst": "'$IPB'"}]]' "flag UDPCSUM"
udp_delta csum_sw 20 0
ethtool_a -K vethA tx on
udp_mark "$NSB" 4
one_run csum_hw 20 '"case": "hw_csum"'
udp_delta csum_hw 20 0

# frags: the same bytes as a linear frame; Result counts the fragments.
one_run linear 10 '"all": [["no udp checksum, no timestamp",
 {"udp.csum": 0, "pktgen.tv_sec": 0, "len": 1000}]]' \
	"flag !UDPCSUM" "flag NO_TIMESTAMP" "pkt_size 1000"
cur_is linear "Result (1000byte,0frags)" '^Result: OK: .* \(1000byte,0frags\)$'
one_run frags 10 '"case": "same_bytes", "ref": "linear"' "frags 3"
cur_is frags "Result (1000byte,3frags)" '^Result: OK: .* \(1000byte,3frags\)$'
file_has frags "Params frags line" \
	"     frags: 3  delay: 0  clone_skb: 0  ifname: vethA"

# imix: sizes from the set; counts in Current match the capture.
one_run imix 200 '"case": "imix"' "frags 0" "imix_weights 100,1 300,2 600,1"
file_has imix "Params imix_weights line" "     imix_weights: 100,1 300,2 600,1 "
wire_skip imix "Current imix_size_counts right after pkts-sofar" ||
	check "imix: Current imix_size_counts right after pkts-sofar" grep -Eqx \
		'     imix_size_counts: 100,[0-9]+ 300,[0-9]+ 600,[0-9]+ ' \
		<<<"$(grep -A1 '^     pkts-sofar:' <<<"$DEVFILE")"
counts=$(sed -n 's/^     imix_size_counts: //p' <<<"$DEVFILE")
RUNS[-1]=${RUNS[-1]%\}}", \"counts\": \"$counts\"}"
if pg_is_ours; then
	in_ns "$NSA" pg_write vethA "imix_weights off"
else	# stock: a failed write leaves no entries
	in_ns "$NSA" pg_write vethA "imix_weights 0"
fi

# flows: FLOW_SEQ, each flow keeps its destination for flowlen packets.
one_run flows 40 '"case": "flows", "flowlen": 5' "pkt_size 100" \
	"dst_min 10.99.3.1" "dst_max 10.99.3.8" "flows 4" "flowlen 5" "flag FLOW_SEQ"
file_has flows "Params flows line, FLOW_SEQ, Current flows: 8" \
	"     flows: 4 flowlen: 5" "     Flags: NO_TIMESTAMP  FLOW_SEQ  SHARED  " \
	"     flows: 8"

# queue_map: round robin over [1, 3] (max 9 clamped to 3 at start).
q_mark
one_run queue_rr 30 "" "flows 0" "dst_min $IPB" "dst_max $IPB" \
	"queue_map_min 1" "queue_map_max 9"
q_delta queue_rr "round robin over 1-3" "0 10 10 10"
file_has queue_rr "Params queue_map_max clamped to 3" \
	"     queue_map_min: 1  queue_map_max: 3"
cur_is queue_rr "Current cur_queue_map in 1-3" '^     cur_queue_map: [123]$'
q_mark
one_run queue_rnd 60 "" "flag QUEUE_MAP_RND"
q_delta queue_rnd "QUEUE_MAP_RND in 1-3" "0 + + +"
q_mark
one_run queue_cpu 20 "" "flag !QUEUE_MAP_RND" "flag QUEUE_MAP_CPU"
want=(0 0 0 0)
want[${THRS[0]#kpktgend_} % NQ]=20
q_delta queue_cpu "QUEUE_MAP_CPU: ${THRS[0]}'s CPU" "${want[*]}"

# NS_TIMESTAMP (ours): the 16-byte extension after the pktgen header.
one_run ns_timestamp 20 '"case": "ns_ts"' "flag !QUEUE_MAP_CPU" \
	"queue_map_max 0" "queue_map_min 0" "flag !NO_TIMESTAMP" "flag NS_TIMESTAMP"
in_ns "$NSA" pg_write vethA "flag !NS_TIMESTAMP"

# skb_priority: start_xmit bypasses the qdisc, queue_xmit goes through it.
PRIO0=$(prio_sent)
one_run prio_start 10 "" "skb_priority 65539"
file_has prio_start "Params skb_priority line" "     skb_priority: 65539"
prio_delta prio_start 0
PRIO0=$(prio_sent)
one_run queue_xmit 20 "" "xmit_mode queue_xmit"
file_has queue_xmit "Params xmit_mode line (sic)" "     xmit_mode: xmit_queue"
prio_delta queue_xmit 20
wire_also a queue_xmit_tap ""

# netif_receive: into vethA's own RX path, up to its UDP.
udp_mark "$NSA" 4
WIRE_CAP=a
one_run netif_receive 20 '"all": [["to '"$IPA"' from '"$IPB"', dst MAC vethA",
 {"ip.dst": "'$IPA'", "ip.src": "'$IPB'", "dst": "'"$MACA"'"}]]' \
	"xmit_mode netif_receive" "dst_min $IPA" "dst_max $IPA" "src_min $IPB" "src_max $IPB" \
	"dst_mac $MACA"
WIRE_CAP=b
file_has netif_receive "Params xmit_mode line" "     xmit_mode: netif_receive"
udp_delta netif_receive 20 0

# dev@0 and dev@1: two pktgen devices on vethA, one per thread.
two_devices() {
	local i
	in_ns "$NSA" pg_write "${THRS[0]}" "rem_device_all" || return 1
	for i in 0 1; do
		in_ns "$NSA" pg_write "${THRS[i]}" "add_device vethA@$i" || return 1
		WIRE_DEV=vethA@$i
		configure "pkt_size 100" "dst $IPB" "dst_mac $MACB" \
			"udp_src_min 100$i" "udp_src_max 100$i" \
			"udp_dst_min $((PORT + 1))" "udp_dst_max $((PORT + 1))" \
			"count 20" || { echo "$CONF_WHY"; return 1; }
	done
}
if [ ${#THRS[@]} -lt 2 ]; then
	ktap_skip "dev@0/dev@1" "one CPU, one thread"
elif ! out=$(two_devices); then
	ktap_fail "dev@0/dev@1: add and configure" "$out"
else
	# vethA@1 runs along with vethA@0; its frames have the same port
	WIRE_DEV=vethA@0
	one_run dev_at 20 '"streams": 2'
	WIRE_DEV=vethA@1 dev_file
	check "dev_at: vethA@1 Result OK: 20 packets" _wire_result 20 0 0
	in_ns "$NSA" pg_write "${THRS[1]}" "rem_device_all"
fi
cap_stop

# Without a tap on vethA: netif_receive bursts; frames the stack drops.
WIRE_CAP=""
udp_mark "$NSA" 4
one_run netif_burst 40 "" "xmit_mode netif_receive" "burst 4" \
	"dst_min $IPA" "dst_max $IPA" \
	"src_min $IPB" "src_max $IPB" "dst_mac $MACA" "udp_src_min 9" "udp_src_max 9"
file_has netif_burst "Params burst line" "     burst: 4"
udp_delta netif_burst 40 0
WIRE_ERRORS=10 one_run netif_drop 10 "" "burst 1" "dst_mac 02:00:00:00:00:01"

wire_check "{\"a\": \"$TMP/a.pcap\", \"b\": \"$TMP/b.pcap\"}" "$CHECKER"

ktap_finish
