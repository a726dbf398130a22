#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# suite: slow
#
# Stamps at send: the sender's stamp is written as each copy is handed to
# the stack (xmit_mode queue_xmit, so the sender's own qdisc lies before
# the wire), only where the copy's data is pktgen's alone, and the
# receiver counts the samples whose stamp is not their send's
# (latency_build_stamped).  Checked in pgrx and in the captured bytes:
#
# - netem delay 20 ms on the sender's veth: latency min >= 20 ms and
#   p50 above it by no more than the stated error: 10 ms or twice the
#   path's own median without netem (measured first), whichever is
#   larger (a loaded TCG host delays the receive path); every frame's
#   extension flags SENT (1).
# - tbf at 1 Mbit/s, 200 frames unpaced: the last frame waits for the
#   backlog to drain, so the largest latency is the smallest plus the
#   receiver's span of arrivals (the rate the bucket really drained at,
#   within 10% + 10 ms, less the time the sender took to send them), and no less than 80% of the nominal
#   (200 x len - burst) x 8 / rate (a TCG host under load drains later,
#   never sooner).
# - UDPCSUM computed in software (tx off): the checksum stays right over
#   the stamp written after it.
# - clone_skb 5 (flag SHARED: clones, from a dummy, as veth refuses
#   clone_skb, whose egress tc mirred redirects to sa) paced 10 ms apart through netem
#   delay 2 ms: each clone has left the qdisc before the next is made, so
#   a copy of a sequence number gets a fresh stamp: stamps strictly
#   increasing within each group of 5 (where the host's load did not
#   bunch the slots: at least half of the copies), flags SENT|COPIES (3),
#   latency p50 within 10 ms of netem's.  With the stamp taken at build,
#   the copies of a group carry one stamp and the median latency is
#   ~40 ms more.
# - clone_skb 5 paced 5 ms apart through netem delay 50 ms: the first
#   copy still sits in netem when the next four go, so their data is
#   shared and is not written: they repeat an earlier copy's stamp (at
#   least half of them; never a stamp that decreases).
# In both, pgrx's latency_build_stamped equals the copies the capture
# shows repeating the stamp of the frame before.
# - a run on a dummy whose settings change under it, in every xmit_mode,
#   with clone_skb, burst, frags, SHARED, UDPCSUM and tx checksumming
#   switched on and off and netem holding copies: no warning, no oops.
#
#   netns TX                                  netns RX
#   +----------------------------------+      +---------------------+
#   | pktgen "sa" (queue_xmit)         | veth | sb <- pgrx          |
#   |   root qdisc: netem / tbf        |----->|    <- tcpdump       |
#   | pktgen "d0" (dummy, clone_skb):  |      |                     |
#   |   egress mirred redirect to sa   |      |                     |
#   | dummy "dz" (the mid-run changes) |      |                     |
#   +----------------------------------+      +---------------------+
#
# Seven captures (tcpdump starts slowly under TCG): over the default limit
# on a loaded host.
# test-timeout: 1200

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

TMP=$(lib_tmpdir)
LIB=$(cd "$(dirname "$0")/lib" && pwd)
CAP_SNAPLEN=128 CAP_BUFFER_KB=4096
SIZE=80

setup() {
	pg_load || return 1
	setup_ns TX RX || return 1
	veth_create "$TX" sa "$RX" sb || return 1
	dummy_create "$TX" dz && dummy_create "$TX" d0 || return 1
	tc -n "$TX" qdisc add dev d0 clsact &&
		tc -n "$TX" filter add dev d0 egress protocol all matchall \
			action mirred egress redirect dev sa || return 1
	rx_cmd "$RX" "rx sb" && rx_cmd "$RX" "display script" || return 1
	tx_setup "$TX" sa &&
		tx_set "$TX" sa "pkt_size $SIZE" "dst 10.96.0.2" "dst_mac $(mac_of "$RX" sb)" \
			"xmit_mode queue_xmit" "flag NS_TIMESTAMP"
}

# qdisc KIND ARGS...: the root qdisc of sa, new (its counters at 0)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
qdisc() {
	tc -n "$TX" qdisc del dev sa root 2>/dev/null
	tc -n "$TX" qdisc add dev sa root "$@"
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
qdisc_empty() { ! tc -n "$TX" -s qdisc show dev sa | grep -q 'backlog [1-9]'; }

# run_case NAME CMD...: rx_reset, pktgen's CMDs on $PGDEV, a run captured
# on sb into $TMP/NAME.pcap; pgrx's figures in RX_TEXT.
PGDEV=sa
run_case() {
	local name=$1
	shift
	RX_TEXT=
	rx_cmd "$RX" rx_reset && tx_set "$TX" "$PGDEV" "$@" || return 1
	cap_start "$RX" sb "$TMP/$name.pcap" || return 1
	tx_run "$TX" || return 1
	slowwait 10 qdisc_empty
	cap_stop
	rx_snap "$RX"
	ktap_diag "$name: $(tc -n "$TX" -s qdisc show dev sa | tr '\n' ' ')"
	ktap_diag "$name: pgrx $(rx_val rx_packets) packets, latency min $(rx_val latency_min_ns) p50 $(rx_val latency_p50_ns) max $(rx_val latency_max_ns) ns, build-stamped $(rx_val latency_build_stamped)"
}

# wire NAME CHECK: the capture's frames checked by CHECK (stamps.py below)
# (fresh/held K: K copies per sequence number, and pgrx's
# latency_build_stamped, which must equal the copies that repeat the
# stamp of the frame before).
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
wire() { /usr/bin/python3 - "$LIB" "$TMP/$1.pcap" "$2" "${3:-0}" "$(rx_val latency_build_stamped)" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import pcap
fr = [f for f in pcap.frames(sys.argv[2]) if "pktgen" in f and "ext" in f["pktgen"]]
what, k = sys.argv[3], int(sys.argv[4])
def ns(f):
    return f["pktgen"]["tv_sec"] * 10**9 + f["pktgen"]["ext"]["tv_nsec"]
def fail(why):
    print(why)
    sys.exit(1)
if not fr:
    fail("no pktgen frames with the extension captured")
flags = set(f["pktgen"]["ext"]["zero"] for f in fr)
if what == "sent":
    if flags != {1}:
        fail("extension flags %s, want {1} (SENT)" % flags)
elif what == "csum":
    bad = [f["n"] for f in fr if f["udp"]["csum_ok"] is not True]
    if bad or flags != {1}:
        fail("flags %s; frames with a wrong UDP checksum: %s" % (flags, bad[:10]))
elif what in ("fresh", "held"):
    if flags != {3}:
        fail("extension flags %s, want {3} (SENT|COPIES)" % flags)
    groups = {}
    for f in fr:
        groups.setdefault(f["pktgen"]["seq"], []).append(f)
    if len(groups) * k != len(fr) or any(len(g) != k for g in groups.values()):
        fail("%d frames in %d groups, want %d per sequence number" % (len(fr), len(groups), k))
    fresh = repeats = 0
    for seq, g in sorted(groups.items()):
        t = [ns(f) for f in g]
        if any(b < a for a, b in zip(t, t[1:])):
            fail("seq %d: stamps %s decrease" % (seq, t))
        fresh += sum(b > a for a, b in zip(t, t[1:]))
        repeats += sum(b == a for a, b in zip(t, t[1:]))
    ts = [ns(g[0]) for s, g in sorted(groups.items())]
    if any(b <= a for a, b in zip(ts, ts[1:])):
        fail("first copies' stamps not increasing: %s" % ts[:10])
    later = len(fr) - len(groups)
    print("%d later copies: %d with a fresh stamp, %d repeating the one before"
          % (later, fresh, repeats))
    if str(repeats) != sys.argv[5]:
        fail("pgrx counted %s build-stamped, the capture %d repeats" % (sys.argv[5], repeats))
    if what == "fresh" and fresh * 2 < later:
        fail("fewer than half of the later copies stamped fresh")
    if what == "held" and repeats * 2 < later:
        fail("fewer than half of the later copies held (sent with an earlier stamp)")
print("%d frames, flags %s" % (len(fr), flags))
EOF
}

# the mid-run changes on dz: every write while it runs, then the log
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
churn() {
	local i c cmds=(
		"xmit_mode queue_xmit" "clone_skb 10" "flag SHARED" "burst 8" "frags 3"
		"flag UDPCSUM" "xmit_mode netif_receive" "clone_skb 0" "flag !SHARED"
		"xmit_mode start_xmit" "flag SHARED" "clone_skb 100" "burst 1" "frags 0"
		"flag !UDPCSUM" "burst 16" "flag !SHARED" "xmit_mode queue_xmit"
		"flag SHARED" "clone_skb 2" "flag !NS_TIMESTAMP" "flag NS_TIMESTAMP")
	for ((i = 0; i < 3; i++)); do
		for c in "${cmds[@]}"; do
			# a refusal (Result: ERROR) is an answer too: the run goes on
			in_ns "$TX" pg_write dz "$c"
			case $c in
			"frags 3") ip netns exec "$TX" ethtool -K dz tx off sg off >/dev/null ;;
			"frags 0") ip netns exec "$TX" ethtool -K dz tx on sg on >/dev/null ;;
			esac
		done
	done
}

if ! netem_available; then
	ktap_header
	ktap_plan 1
	ktap_skip "netem" "sch_netem not available"
	ktap_finish
fi

rx_begin 25

# 1. netem delay 20 ms: latency is netem's delay
check "baseline: pfifo on sa" qdisc pfifo
run_case base "count 200" "ratep 500"
BASE=$(rx_val latency_p50_ns)
ERR=$((2 * ${BASE:-0}))
[ "$ERR" -lt 10000000 ] && ERR=10000000
check "netem: tc qdisc add dev sa root netem delay 20ms" qdisc netem delay 20ms limit 10000
run_case netem "count 200" "ratep 500"
check "netem: 200 received, 200 latency samples, none build-stamped" \
	rx_expect rx_packets 200 latency_samples 200 latency_build_stamped 0
check "netem: latency_min >= 20 ms" rx_between latency_min_ns 20000000 99999999999
check "netem: latency_p50 in 20 ms .. 20 ms + $ERR ns (baseline p50 $BASE ns)" \
	rx_between latency_p50_ns 20000000 $((20000000 + ERR))
check "netem: on the wire, every frame's flags SENT" wire netem sent

# 2. tbf: the latency is the queue the bucket drains
RATE=1000000 BURST=1600 N=200
check "tbf: tc qdisc add dev sa root tbf rate 1mbit burst $BURST limit 100000" \
	qdisc tbf rate 1mbit burst "$BURST" limit 100000
run_case tbf "count $N" "delay 0"
EXP=$(( (N * SIZE - BURST) * 8 * 1000000000 / RATE ))
check "tbf: $N received, none build-stamped" \
	rx_expect rx_packets "$N" latency_build_stamped 0
SPAN=$(( $(rx_val gap_avg_ns) * $(rx_val gap_samples) ))
LMIN=$(rx_val latency_min_ns)
# the sender's own run (Result "OK: <usec>(..."): its frames left over that long
SEND=$(in_ns "$TX" pg_result sa | sed -n 's/^OK: \([0-9]*\)(.*/\1/p')
SEND=$(( ${SEND:-0} * 1000 ))
check "tbf: latency_max = latency_min + arrival span ($SPAN ns), within 10% + 10 ms" \
	rx_between latency_max_ns $((LMIN + SPAN * 9 / 10 - 10000000 - SEND)) \
		$((LMIN + SPAN * 11 / 10 + 10000000))
check "tbf: latency_max >= 80% of backlog / rate ($EXP ns)" \
	rx_between latency_max_ns $((EXP * 8 / 10)) 99999999999

# 3. a UDP checksum computed in software stays right under the late stamp
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "udpcsum: tx checksumming off on sa, no qdisc" eval \
	'ip netns exec "$TX" ethtool -K sa tx off >/dev/null && qdisc pfifo'
run_case udpcsum "count 50" "ratep 1000" "flag UDPCSUM"
check "udpcsum: 50 received" rx_expect rx_packets 50 latency_build_stamped 0
check "udpcsum: on the wire, flags SENT and every UDP checksum right" wire udpcsum csum
in_ns "$TX" pg_write sa "flag !UDPCSUM"

# 4. clone_skb copies, each out of netem before the next: fresh stamps
check "clones fresh: netem delay 2ms" qdisc netem delay 2ms limit 10000
PGDEV=d0
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "clones fresh: pktgen on d0, queue_xmit, NS_TIMESTAMP" eval \
	'tx_setup "$TX" d0 && tx_set "$TX" d0 "pkt_size $SIZE" "dst 10.96.0.2" \
		"dst_mac $(mac_of "$RX" sb)" "xmit_mode queue_xmit" "flag NS_TIMESTAMP"'
run_case fresh "count 100" "ratep 50" "flag SHARED" "clone_skb 5"
check "clones fresh: 100 received" rx_expect rx_packets 100
check "clones fresh: latency_p50 in 2..12 ms (netem's 2 + 10)" \
	rx_between latency_p50_ns 2000000 11999999
check "clones fresh: on the wire, 5 copies per seq, stamps fresh, flags 3, pgrx's count" \
	wire fresh fresh 5

# 5. clone_skb copies sent while the first is held in netem: not written
check "clones held: netem delay 50ms" qdisc netem delay 50ms limit 10000
run_case held "count 100" "ratep 200"
check "clones held: 100 received, some build-stamped" eval \
	'rx_expect rx_packets 100 && rx_between latency_build_stamped 1 80'
check "clones held: on the wire, held copies repeat a stamp, pgrx's count" wire held held 5

# 6. the crash doors: settings changed mid-run on a dummy, netem holding copies
dmesg -c >/dev/null 2>&1
check "churn: netem delay 5ms on dz" tc -n "$TX" qdisc add dev dz root netem delay 5ms limit 1000
tx_setup "$TX" dz && tx_set "$TX" dz "pkt_size 200" "dst 10.96.1.2" "flag NS_TIMESTAMP" \
	"count 0" "duration 15s"
timeout -s INT 60 ip netns exec "$TX" sh -c 'echo start > /proc/net/pktgen/pgctrl' &
RUN=$!
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
slowwait 10 eval 'in_ns "$TX" pg_read dz | grep -q "pkts-sofar: [1-9]"'
check "churn: 66 writes while dz runs" churn
wait "$RUN"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "churn: the run ended with Result OK" eval 'in_ns "$TX" pg_result dz | grep -q "^OK:"'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "churn: no warning or oops in the kernel log" eval \
	'! dmesg | grep -E "WARNING:|BUG:|Oops|refcount_t|skb_over_panic|general protection"'

ktap_finish
