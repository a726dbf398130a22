#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# On-the-wire check of the IPv4/UDP packets pktgen builds: every captured
# frame is decoded (tests/lib/pcap.py) and every header field asserted.
#
#   netns A (NSA)                          netns B (NSB)
#   +---------------------------+          +---------------------------+
#   | pktgen device "vethA"     |   veth   | vethB  <-- tcpdump        |
#   |   vethA 10.99.0.1/24      |<-------->|   vethB 10.99.0.2/24      |
#   +---------------------------+          |   ingress: drop all       |
#                                          +---------------------------+
# IPv6 off on both ends; pktgen's dst_mac = vethB's MAC.  vethB's ingress
# drops everything (tc clsact/matchall, after the capture tap) so B never
# answers (no ARP, no ICMP): the capture holds pktgen's frames only.
#
# Runs on one pktgen device: 200 x 60 B, 200 x 1500 B, 200 x 333 B, then
# 50 with NO_TIMESTAMP, then 50 with an explicit src_mac.

. "$(dirname "$0")/lib/lib.sh"

IPA=10.99.0.1 IPB=10.99.0.2 COUNT=200 SRCMAC=02:12:34:56:78:9a

# Frame checker: pcap.py's JSON lines on stdin, argv[1] = JSON list of runs
# {lab, n, size, smac, id0 (-1: any), ts ("now"|"zero"), t0, t1}, argv[2..4]
# = dst MAC, src IP, dst IP.  The capture is split into runs where the
# pktgen seq restarts at 1.  Prints "PASS name" / "FAIL name|why" for a
# fixed list of NCHECKS checks per run.
CHECKER='
import json, sys
runs, dmac, sip, dip = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
allf = [json.loads(l) for l in sys.stdin if l.strip()]
other = [f for f in allf if "pktgen" not in f]
parts = []
for f in allf:
    if "pktgen" in f:
        if f["pktgen"]["seq"] == 1 or not parts:
            parts.append([])
        parts[-1].append(f)

def bad(fr, pred, what):
    for f in fr:
        try:
            ok = pred(f)
        except (KeyError, TypeError) as e:
            ok, what = False, "%s (missing %s)" % (what, e)
        if not ok:
            return "frame %d: %s: %s" % (f["n"], what, json.dumps(f))
    return None

for i, r in enumerate(runs):
    lab, n, size, smac, id0 = r["lab"], r["n"], r["size"], r["smac"], r["id0"]
    t0, t1 = r["t0"], r["t1"]
    fr = parts[i] if i < len(parts) else []

    def check(name, why):
        print(("PASS %s: %s" % (lab, name)) if why is None else
              ("FAIL %s: %s|%s" % (lab, name, why)))

    why = None
    if len(fr) != n:
        why = "%d pktgen frames in this run" % len(fr)
    elif i == 0 and other:
        why = "%d non-pktgen frames, first: %s" % (len(other), json.dumps(other[0]))
    elif i == 0 and len(parts) != len(runs):
        why = "%d runs found in the capture" % len(parts)
    check("exactly %d frames captured" % n + (", nothing else" if i == 0 else ""), why)
    check("frame length %d" % size,
          bad(fr, lambda f: f["len"] == size and f["wire_len"] == size, "length"))
    check("ethernet dst %s src %s type 0x0800" % (dmac, smac),
          bad(fr, lambda f: f["dst"] == dmac and f["src"] == smac and
              f["ethertype"] == 0x0800 and "vlans" not in f, "ethernet"))
    check("ipv4 ver 4 ihl 5 tos 0 tot_len %d frag 0 ttl 32 proto 17" % (size - 14),
          bad(fr, lambda f: (f["ip"]["version"], f["ip"]["ihl"], f["ip"]["tos"],
                             f["ip"]["tot_len"], f["ip"]["frag"], f["ip"]["ttl"],
                             f["ip"]["proto"], f["ip"]["options"]) ==
              (4, 5, 0, size - 14, 0, 32, 17, ""), "ipv4 header"))
    check("ipv4 header checksum valid",
          bad(fr, lambda f: f["ip"]["csum_ok"] is True, "ipv4 checksum"))
    ids = [f.get("ip", {}).get("id") for f in fr]
    why = None
    if not ids:
        why = "no frames"
    elif id0 >= 0 and ids[0] != id0:
        why = "first id %s, expected %d" % (ids[0], id0)
    else:
        for k in range(1, len(ids)):
            if ids[k] != (ids[k - 1] + 1) % 65536:
                why = "frame %d: id %s after %s" % (fr[k]["n"], ids[k], ids[k - 1])
                break
    check("ipv4 id +1 per packet" + (" from %d" % id0 if id0 >= 0 else ""), why)
    check("ipv4 src %s dst %s" % (sip, dip),
          bad(fr, lambda f: f["ip"]["src"] == sip and f["ip"]["dst"] == dip,
              "addresses"))
    check("udp 9->9, len tot_len-20, csum 0",
          bad(fr, lambda f: (f["udp"]["sport"], f["udp"]["dport"], f["udp"]["len"],
                             f["udp"]["csum"]) == (9, 9, f["ip"]["tot_len"] - 20, 0),
              "udp header"))
    seqs = [f["pktgen"]["seq"] for f in fr]
    check("magic be9be955, seq 1..%d" % n,
          None if seqs == list(range(1, n + 1)) else "seqs %s" % seqs[:20])
    if r["ts"] == "zero":
        check("NO_TIMESTAMP: tv_sec 0, tv_usec 0",
              bad(fr, lambda f: f["pktgen"]["tv_sec"] == 0 and
                  f["pktgen"]["tv_usec"] == 0, "timestamp"))
    else:
        why = bad(fr, lambda f: t0 - 1 <= f["pktgen"]["tv_sec"] <= t1 + 1 and
                  0 < f["pktgen"]["tv_usec"] < 1000000,
                  "tv_sec/usec not in [%d, %d]/(0, 1e6)" % (t0 - 1, t1 + 1))
        ts = [(f["pktgen"]["tv_sec"], f["pktgen"]["tv_usec"]) for f in fr]
        for k in range(1, len(ts)):
            if why is None and ts[k] < ts[k - 1]:
                why = "frame %d: time %s before %s" % (fr[k]["n"], ts[k], ts[k - 1])
        check("timestamps non-zero, non-decreasing, near the guest date", why)
    check("padding %d zero bytes" % (size - 58),
          bad(fr, lambda f: f["pktgen"]["pad_zero"] is True and
              f["pktgen"]["pad_len"] == size - 58, "padding"))
'
NCHECKS=11	# lines the checker prints per run

ns_cat() { ip netns exec "$1" cat "$2"; }
rx_packets() { ns_cat "$NSB" /sys/class/net/vethB/statistics/rx_packets; }

RUNS=()	# JSON run descriptions for the checker

# one_run LABEL N SIZE SRCMAC FIRST_ID TS_MODE CMD...: configure vethA in
# NSA, start (the capture is running), check Result and vethB's counter;
# the frames are checked at the end.
one_run() {
	local lab=$1 n=$2 size=$3 smac=$4 id0=$5 tsm=$6 c rx0 rx1 t0 t1 out rc=0
	shift 6
	for c in "$@"; do
		out=$(in_ns "$NSA" pg_set vethA "$c") || break
	done
	rx0=$(rx_packets)
	t0=$(date +%s)
	[ -z "$out" ] && { pg_start_ns "$NSA" || rc=$?; }
	t1=$(date +%s)
	rx1=$(rx_packets)
	check "$lab: start returned, Result OK: $n packets, pkts-sofar $n" \
		result_ok "$n" "$rc" "$out"
	check "$lab: vethB rx_packets grew by $n" test $((rx1 - rx0)) -eq "$n"
	RUNS+=("$(printf '{"lab": "%s", "n": %d, "size": %d, "smac": "%s", "id0": %d, "ts": "%s", "t0": %d, "t1": %d}' \
		"$lab" "$n" "$size" "$smac" "$id0" "$tsm" "$t0" "$t1")")
}

result_ok() {	# N START_RC CONFIG_ERROR
	local cur
	[ -z "$3" ] || { echo "$3"; return 1; }
	cur=$(in_ns "$NSA" pg_read vethA) || return 1
	[ "$2" -eq 0 ] && grep -q "^Result: OK: .*, $1 (" <<<"$cur" &&
		grep -q "pkts-sofar: $1  errors: 0" <<<"$cur" && return 0
	echo "start exit $2; device file:"
	echo "$cur"
	return 1
}

TMP=$(mktemp -d /tmp/wire-ipv4.XXXXXX)
cleanup_push "rm -rf $TMP"

ktap_header
ktap_plan $((5 * (NCHECKS + 2)))

setup() {
	pg_load || return 1
	ns_create NSA && ns_create NSB || return 1
	veth_create "$NSA" vethA "$NSB" vethB || return 1
	ip -n "$NSA" addr add "$IPA/24" dev vethA &&
		ip -n "$NSB" addr add "$IPB/24" dev vethB || return 1
	ip netns exec "$NSB" tc qdisc add dev vethB clsact &&
		ip netns exec "$NSB" tc filter add dev vethB ingress \
			matchall action drop || return 1
	MACA=$(ns_cat "$NSA" /sys/class/net/vethA/address) &&
		MACB=$(ns_cat "$NSB" /sys/class/net/vethB/address) || return 1
	THR=$(ip netns exec "$NSA" ls /proc/net/pktgen | grep kpktgend_ |
		sort -V | head -n 1)
	[ -n "$THR" ] || return 1
	in_ns "$NSA" pg_write "$THR" "add_device vethA"
}

if ! setup >"$TMP/setup.log" 2>&1; then
	ktap_fail "setup" "$(cat "$TMP/setup.log")"
	ktap_finish
fi

if ! cap_start "$NSB" vethB "$TMP/wire.pcap"; then
	ktap_fail "capture on vethB"
	ktap_finish
fi
one_run size60 "$COUNT" 60 "$MACA" 0 now \
	"count $COUNT" "pkt_size 60" "dst $IPB" "dst_mac $MACB"
one_run size1500 "$COUNT" 1500 "$MACA" "$COUNT" now "pkt_size 1500"
one_run size333 "$COUNT" 333 "$MACA" $((2 * COUNT)) now "pkt_size 333"
one_run no_timestamp 50 60 "$MACA" $((3 * COUNT)) zero \
	"count 50" "pkt_size 60" "flag NO_TIMESTAMP"
one_run src_mac 50 60 "$SRCMAC" $((3 * COUNT + 50)) now \
	"flag !NO_TIMESTAMP" "src_mac $SRCMAC"
cap_stop

runs=$(IFS=,; echo "[${RUNS[*]}]")
t0=${EPOCHREALTIME/./}
out=$("$PCAP_PY" "$TMP/wire.pcap" |
	python3 -c "$CHECKER" "$runs" "$MACB" "$IPA" "$IPB" 2>&1)
echo "# frame analysis: $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
ktap_report <<<"$out"

ktap_finish
