#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pktgen on a multiqueue NIC: the two virtio-net NICs with mq=on of a
# check VM (tests/lib/vm.sh wires them through two multi_queue taps of a
# bridge; MACs 52:54:00:00:03:01 and :02), 4 TX queues each.  Absent
# (VM_NICS=0, or a host that could not wire them): every subtest skips.
#
#   netns A (NSA)                          netns B (NSB)
#   +-------------------------------+      +-------------------------------+
#   | pktgen "$DA", "$DA@0", "$DA@1"| taps | "$DB"  <-- tcpdump, pgrx      |
#   |   virtio_net, tx-0..tx-3      |----->|   no address: B never sends   |
#   +-------------------------------+bridge+-------------------------------+
# IPv6 off on both ends; pktgen's dst_mac = DB's MAC.
#
# The per-queue TX packet counters of DA (tests/lib/qstats.py: netdev
# netlink qstats, or ethtool -S on 6.1) before and after each run show
# which queues the run used:
# - queue_map_min/max 0-3, 1-2, 3-3 in order (COUNT packets, a multiple
#   of 16: round robin gives each queue of the range exactly its share),
#   also with clone_skb 4 (the queue moves per built packet), and 0-3, 1-2
#   with QUEUE_MAP_RND (every queue of the range used, none outside);
# - QUEUE_MAP_CPU with DA@0 on kpktgend_0 and DA@1 on kpktgend_1: tx-0
#   carries thread 0's packets, tx-1 thread 1's;
# - samples/pktgen_sample06_numa_awared_queue_irq_affinity.sh -t 2: the
#   IRQ of queue N bound to CPU N (/proc/irq/N/smp_affinity_list), each
#   device's Result, queue N carries thread N's packets;
# - queue 0 with a TX ring of 64 (ethtool -G), burst 32 and clone_skb
#   100: the queue stops (6.12: its tx-stop counter grows), every packet
#   is retried until sent (Result errors 0) and the driver took them all
#   (tx-0); on both modules;
# - the in-order ranges and QUEUE_MAP_CPU again on the kernel's own
#   pktgen.ko, their per-queue counts compared with ours
#   (PKTGEN_MODULE=stock: every run on the stock module alone).
# Every run: Result OK with its count and 0 errors, DB's rx_packets, pgrx
# (ours: rx_packets, lost 0) and the captured frames (count, seqs).

. "$(dirname "$0")/lib/lib.sh"

COUNT=400 IPA=10.98.0.1 IPA1=10.98.0.3 IPB=10.98.0.2 NQ=4
MACPFX=52:54:00:00:03:
QSTATS="$(dirname "$0")/lib/qstats.py"
SAMPLE06="$(cd "$(dirname "$0")/../samples" && pwd)/pktgen_sample06_numa_awared_queue_irq_affinity.sh"
TMP=$(lib_tmpdir)


# nic_of_mac MAC: the interface (of this netns) with MAC
nic_of_mac() {
	local d mac
	for d in /sys/class/net/*; do
		read -r mac <"$d/address" && [ "$mac" = "$1" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

# nic_into NS DEV: DEV into NS, IPv6 off, NQ queues, up, carrier
nic_into() {
	ip link set dev "$2" netns "$1" &&
		ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1" &&
		ip netns exec "$1" ethtool -L "$2" combined "$NQ" &&
		ip -n "$1" link set "$2" up &&
		slowwait 15 carrier_up "$1" "$2" &&
		ip netns exec "$1" test -d "/sys/class/net/$2/queues/tx-$((NQ - 1))"
}

# queues: DA's TX packets per queue into Q (Q[N]); QLINE: qstats' lines
# (from a qstats.py server in NSA: a python start costs 1-2 s under TCG)
# Each request is tagged: a reply that comes after its read gave up (a
# python start under a loaded TCG host) is skipped, never taken for the
# next one's.
QTAG=0
queues() {
	local q n rest line
	QTAG=$((QTAG + 1))
	echo "$QTAG $DA" >&"${QS[1]}" || return 1
	Q=() QLINE=""
	while read -r -t 60 -u "${QS[0]}" line; do
		case $line in
		". $QTAG") break ;;
		.*) Q=() QLINE=""; continue ;;	# an older request's
		esac
		QLINE+=$line$'\n'
		read -r q n rest <<<"$line"
		Q[${q#tx}]=$n
	done
	[ ${#Q[@]} -eq "$NQ" ]
}

# queues_grew WANT...: the growth of each of the NQ queues since Q0 (one
# number, or "+" for "more than 0"), read until it stops changing (the
# driver counts at completion); D: the growth
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
queues_grew() {
	local i ok prev="" want=("$@")
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		queues || { echo "no per-queue counters: $QLINE"; return 1; }
		D=() ok=1
		for ((i = 0; i < NQ; i++)); do
			D[i]=$((Q[i] - Q0[i]))
			if [ "${want[i]}" = + ]; then
				[ "${D[i]}" -gt 0 ] || ok=0
			else
				[ "${D[i]}" -eq "${want[i]}" ] || ok=0
			fi
		done
		[ "$ok" = 1 ] && return 0
		[ "${D[*]}" = "$prev" ] && break
		prev=${D[*]}
		sleep 0.3
	done
	echo "TX packets per queue grew by ${D[*]}, want $*"
	return 1
}

# result_is DEV N: the Result of DEV says OK, N packets, errors 0
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
result_is() {
	local re=$'(^|\n)Result: OK: [^\n]*, '"$2"$' \\([^\n]*\n[^\n]* errors: 0'
	_PG_NS=$NSA _pg_read_var "$1"
	[[ $_PG_TEXT =~ pkts-sofar:\ $2\ \ errors:\ 0 ]] && [[ $_PG_TEXT =~ $re ]] && return 0
	echo "$_PG_TEXT"
	return 1
}

# rx_grew N: DB's rx_packets grew by N since RX0
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
rx_grew() {
	local goal=$((RX0 + $1))
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	slowwait 5 eval 'dev_stat "$NSB" "$DB" rx_packets && [ "$STAT" -ge "$goal" ]'
	sleep 0.2
	dev_stat "$NSB" "$DB" rx_packets && [ "$STAT" -eq "$goal" ] && return 0
	echo "$DB rx_packets $RX0 -> $STAT, want +$1"
	return 1
}

# pg_dev THREAD DEV SRC: DEV on kpktgend_THREAD, to B, from SRC
pg_dev() {
	local c
	in_ns "$NSA" pg_write "kpktgend_$1" "add_device $2" || return 1
	for c in "pkt_size 60" "dst $IPB" "src_min $3" "src_max $3" "dst_mac $MACB" \
		 "clone_skb 0" "burst 1"; do
		in_ns "$NSA" pg_set "$2" "$c" || return 1
	done
}

# pg_fresh: the threads emptied, DA alone on kpktgend_0
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
pg_fresh() {
	in_ns "$NSA" pg_write kpktgend_0 rem_device_all &&
		in_ns "$NSA" pg_write kpktgend_1 rem_device_all &&
		pg_dev 0 "$DA" "$IPA"
}

# configure DEV CMD...: each CMD written to DEV, a failure reported
configure() {
	local dev=$1 c
	shift
	for c in "$@"; do
		in_ns "$NSA" pg_set "$dev" "$c" || return 1
	done
}

# run_start LAB DEVS N [CLONE]: the run (DEVS: the devices of the run, N
# packets each, CLONE: their clone_skb); Result, DB's counter, pgrx (lost
# 0 unless CLONE: a clone repeats its seq).  Q0, RX0: the counters before.
run_start() {
	local lab=$1 n=$3 clone=${4:-0} dev devs lost=(lost 0)
	queues >/dev/null
	Q0=("${Q[@]}")
	dev_stat "$NSB" "$DB" rx_packets
	RX0=$STAT
	[ "$SIDE" = ours ] && in_ns "$NSB" pg_set pgrx rx_reset >/dev/null
	pg_start_ns "$NSA" 60 || echo "# $lab: start exit $?"
	for dev in $2; do
		check_here "$lab: $dev Result OK, $n packets, errors 0" result_is "$dev" "$n"
	done
	read -ra devs <<<"$2"
	n=$((n * ${#devs[@]}))
	check_here "$lab: $DB rx_packets +$n" rx_grew "$n"
	if [ "$SIDE" = ours ]; then
		_PG_NS=$NSB _pg_read_var pgrx
		[ "$clone" -gt 0 ] && lost=()
		check_here "$lab: pgrx rx_packets $n${lost:+, lost 0}" \
			kv_expect "$_PG_TEXT" rx_packets "$n" "${lost[@]}"
	fi
}

# range LAB MIN MAX WANT... -- CMD...: a run of COUNT packets on queues
# MIN-MAX (CMD: the other settings of the run), the queues' growth WANT
range() {
	local lab="$SIDE: $1" min=$2 max=$3 want=() clone=0 c
	shift 3
	while [ "$1" != -- ]; do
		want+=("$1")
		shift
	done
	shift
	for c in "$@"; do
		[[ $c == "clone_skb "* ]] && clone=${c#clone_skb }
	done
	PORT=$((PORT + 1))
	if ! configure "$DA" "count $COUNT" "udp_dst_min $PORT" "udp_dst_max $PORT" \
		"queue_map_min $min" "queue_map_max $max" "$@" >"$TMP/conf" 2>&1; then
		ktap_fail "$lab: configure" "$(cat "$TMP/conf")"
		return
	fi
	run_start "$lab" "$DA" "$COUNT" "$clone"
	check_here "$lab: TX queues grew by ${want[*]}" queues_grew "${want[@]}"
	echo "# $lab: per queue ${D[*]}; $((SECONDS - T0)) s"
	T0=$SECONDS
	GREW[$lab]=${D[*]}
	RUNS+=("$PORT:$COUNT:$clone")
}

# per_cpu: QUEUE_MAP_CPU, DA@0 on kpktgend_0, DA@1 on kpktgend_1
per_cpu() {
	local lab="$SIDE: QUEUE_MAP_CPU, $DA@0 and $DA@1" n=$((COUNT / 2)) t
	if ! { in_ns "$NSA" pg_write kpktgend_0 rem_device_all &&
		pg_dev 0 "$DA@0" "$IPA" && pg_dev 1 "$DA@1" "$IPA1" &&
		configure "$DA@1" "src_mac $MACA1" &&
		for t in 0 1; do
			configure "$DA@$t" "count $n" "udp_dst_min $((PORT + 1 + t))" \
				"udp_dst_max $((PORT + 1 + t))" "flag QUEUE_MAP_CPU" || return 1
		done; } >"$TMP/conf" 2>&1; then
		ktap_fail "$lab: configure" "$(cat "$TMP/conf")"
		return
	fi
	run_start "$lab" "$DA@0 $DA@1" "$n"
	check_here "$lab: tx-0 +$n (thread 0), tx-1 +$n (thread 1)" queues_grew "$n" "$n" 0 0
	echo "# $lab: per queue ${D[*]}; $((SECONDS - T0)) s"
	T0=$SECONDS
	GREW[$lab]=${D[*]}
	RUNS+=("$((PORT + 1)):$n:0" "$((PORT + 2)):$n:0")
	PORT=$((PORT + 2))
	in_ns "$NSA" pg_write kpktgend_1 rem_device_all
	in_ns "$NSA" pg_write kpktgend_0 rem_device_all
	pg_dev 0 "$DA" "$IPA" >/dev/null
}

# the runs of one module: each range in order, the CPUs, and (ALL) the
# ranges with clone_skb and at random
runs() {
	local k=$((COUNT / 4)) h=$((COUNT / 2))
	range "0-3 in order" 0 3 "$k" "$k" "$k" "$k" -- "flag !QUEUE_MAP_RND"
	range "1-2 in order" 1 2 0 "$h" "$h" 0 -- "flag !QUEUE_MAP_RND"
	range "3-3" 3 3 0 0 0 "$COUNT" -- "flag !QUEUE_MAP_RND"
	per_cpu
	[ "${1:-}" = ALL ] || return 0
	range "0-3 clone_skb 4 in order" 0 3 "$k" "$k" "$k" "$k" -- "flag !QUEUE_MAP_RND" \
		"clone_skb 4"
	range "0-3 QUEUE_MAP_RND" 0 3 + + + + -- "clone_skb 0" "flag QUEUE_MAP_RND"
	range "1-2 QUEUE_MAP_RND" 1 2 0 + + 0 -- "flag QUEUE_MAP_RND"
	in_ns "$NSA" pg_set "$DA" "flag !QUEUE_MAP_RND" >/dev/null
}

# stopped: a run that fills the TX ring of queue 0 (ring of 64, burst
# 32, clone_skb 100): every packet is sent (a stopped queue is retried,
# not counted as an error: Result errors 0, as in the stock module) and
# taken by the driver (tx-0 grows by all of them); on 6.12 the queue's
# tx-stop counter shows the stops (qstats).  The receiver's count is a
# diagnostic: beyond the sender, the taps drop what it cannot take.
# Queue 0: a fresh stock device's round robin starts from queue 0 + 1
# (it does not clamp to queue_map_min), and with burst 32 one built
# packet serves the whole run: 3-3 sent it all on queue 1 there.
stopped() {
	local lab="$SIDE: queue 0 stopped (tx ring 64, burst 32)" n=2000 sent stop0 stop1
	PORT=$((PORT + 1))
	if ! ip netns exec "$NSA" ethtool -G "$DA" tx 64 >"$TMP/ring" 2>&1; then
		ktap_skip "$lab" "ethtool -G $DA tx 64: $(head -n 1 "$TMP/ring")"
		return
	fi
	if ! configure "$DA" "count $n" "udp_dst_min $PORT" "udp_dst_max $PORT" \
		"queue_map_min 0" "queue_map_max 0" "flag !QUEUE_MAP_RND" "clone_skb 100" \
		"burst 32" >"$TMP/conf" 2>&1; then
		ktap_fail "$lab: configure" "$(cat "$TMP/conf")"
		return
	fi
	queues >/dev/null
	stop0=$(sed -n 's/^tx0 .* stop \([0-9]*\) .*/\1/p' <<<"$QLINE")
	Q0=("${Q[@]}")
	dev_stat "$NSB" "$DB" rx_packets
	RX0=$STAT
	pg_start_ns "$NSA" 60 || echo "# $lab: start exit $?"
	_PG_NS=$NSA _pg_read_var "$DA"
	sent=""
	[[ $_PG_TEXT =~ pkts-sofar:\ ([0-9]+)\ \ errors:\ ([0-9]+) ]] &&
		sent=${BASH_REMATCH[1]}
	check_here "$lab: Result OK, $n to $((n + 31)) packets (burst), errors 0" \
		result_is "$DA" "${sent:-none}"
	check "$lab: sent $n to $((n + 31))" test "${sent:-0}" -ge "$n" -a "${sent:-0}" -le $((n + 31))
	sent=${sent:-$n}
	check_here "$lab: tx-0 +$sent, no other queue" queues_grew "$sent" 0 0 0
	stop1=$(sed -n 's/^tx0 .* stop \([0-9]*\) .*/\1/p' <<<"$QLINE")
	if [ -n "$stop0" ] && [ -n "$stop1" ]; then
		check "$lab: tx-0 stopped (tx-stop $stop0 -> $stop1)" test "$stop1" -gt "$stop0"
		STOPS[$SIDE]=$((stop1 - stop0))
	else
		ktap_diag "$lab: no tx-stop counter on this kernel"
	fi
	# what the wire delivered: the taps and the receiver's ring drop
	# when the receiver falls behind (717 of 2006 lost once, stock,
	# 6.12, a loaded host): not the sender's to answer for
	sleep 1
	dev_stat "$NSB" "$DB" rx_packets
	ktap_diag "$lab: $DB received $((STAT - RX0)) of $sent"
	ip netns exec "$NSA" ethtool -G "$DA" tx 256 >/dev/null 2>&1
	in_ns "$NSA" pg_set "$DA" "clone_skb 0" >/dev/null
	in_ns "$NSA" pg_set "$DA" "burst 1" >/dev/null
	echo "# $lab: $((SECONDS - T0)) s"
	T0=$SECONDS
}

# sample_ok RC OUTPUT N: the sample exited 0 and printed two Results of N
# packets with 0 errors
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
sample_ok() {
	local re=$'(^|\n)Result: OK: [^\n]*, '"$3"$' \\([^\n]*\n[^\n]* errors: 0(\n|$)' rest=$2 k=0
	while [[ $rest =~ $re ]]; do
		k=$((k + 1))
		rest=${rest#*"${BASH_REMATCH[0]}"}
	done
	[ "$1" -eq 0 ] && [ "$k" -eq 2 ] && return 0
	echo "exit $1, $k Results OK with $3 packets and 0 errors"
	return 1
}

# sample06: upstream's sample 06 on DA, two threads, each on queue = CPU
sample06() {
	local lab="$SIDE: sample06 -t 2" n=$((COUNT / 2)) irqs i cpu out rc=0
	PORT=$((PORT + 1))
	queues >/dev/null
	Q0=("${Q[@]}")
	dev_stat "$NSB" "$DB" rx_packets
	RX0=$STAT
	[ "$SIDE" = ours ] && in_ns "$NSB" pg_set pgrx rx_reset >/dev/null
	out=$(ip netns exec "$NSA" timeout 60 "$SAMPLE06" -i "$DA" -t 2 -n "$n" -m "$MACB" \
		-d "$IPB" -p "$PORT" 2>&1) || rc=$?
	ktap_diag "$out"
	check_here "$lab: exit 0, two Results OK with $n packets, errors 0" \
		sample_ok "$rc" "$out" "$n"
	# the IRQs of the queues: virtioN-output.Q (the TX queue's vector)
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	irqs=$(ip netns exec "$NSA" bash -c '. "$0"; get_iface_irqs "$1"' \
		"$(dirname "$SAMPLE06")/functions.sh" "$DA" 2>&1)
	ktap_diag "IRQs of $DA's queues: $irqs"
	read -ra irqs <<<"$irqs"
	for i in 0 1; do
		cpu=$(cat "/proc/irq/${irqs[i]:-none}/smp_affinity_list" 2>&1)
		check "$lab: IRQ ${irqs[i]:-?} of queue $i on CPU $i (smp_affinity_list $cpu)" \
			test "$cpu" = "$i"
	done
	check_here "$lab: $DB rx_packets +$((2 * n))" rx_grew $((2 * n))
	if [ "$SIDE" = ours ]; then
		_PG_NS=$NSB _pg_read_var pgrx
		check_here "$lab: pgrx rx_packets $((2 * n))" kv_expect "$_PG_TEXT" rx_packets $((2 * n))
	fi
	check_here "$lab: tx-0 +$n (thread 0), tx-1 +$n (thread 1)" queues_grew "$n" "$n" 0 0
	echo "# $lab: per queue ${D[*]}"
	# the sample's random UDP source ports and its two devices share one
	# destination port: the frames are counted, not their seqs
	RUNS+=("$PORT:$((2 * n)):any")
	echo "# $lab: $((SECONDS - T0)) s"
	T0=$SECONDS
}

# frames_check CAPTURE: each run's frames: their count, and unless "any"
# their seqs, 1..N, each seq C times and the next C higher with clone_skb C
frames_check() {
	ktap_report < <("$PCAP_PY" "$1" | python3 -S -c '
import json, sys
frames = [json.loads(l) for l in sys.stdin if l.strip()]
for run in sys.argv[1:]:
    port, n, clone = run.split(":")
    port, n, c = int(port), int(n), max(int(clone), 1) if clone != "any" else 0
    fr = [f for f in frames if "pktgen" in f and f.get("udp", {}).get("dport") == port]
    seqs = sorted(f["pktgen"]["seq"] for f in fr)
    name = "port %d: %d frames" % (port, n)
    if c:
        name += ", seqs 1..%d%s" % (n, ", each %d times" % c if c > 1 else "")
    want = [1 + s - s % c for s in range(n)] if c else seqs
    ok = len(fr) == n and seqs == want
    print("PASS " + name if ok else "FAIL %s|%d frames, seqs %s..%s" %
          (name, len(fr), seqs[:3], seqs[-3:]))
' "${RUNS[@]}" 2>&1)
	RUNS=()
}

ktap_header
modprobe -q virtio_net
udevadm settle --timeout=60 2>/dev/null
DA=$(nic_of_mac "${MACPFX}01") DB=$(nic_of_mac "${MACPFX}02")
if [ -z "$DA" ] || [ -z "$DB" ]; then
	ktap_skip "multiqueue virtio pair" "no NICs with MAC ${MACPFX}01/02 (VM_NICS=0, or vm.sh could not wire their taps)"
	ktap_finish
fi
echo "# $DA -> $DB"
if ! { setup_ns NSA NSB && nic_into "$NSA" "$DA" &&
	nic_into "$NSB" "$DB"; } >"$TMP/setup" 2>&1; then
	ktap_fail "NICs into two netns, $NQ queues, up, carrier" "$(cat "$TMP/setup")"
	ktap_finish
fi
ktap_pass "NICs into two netns, $NQ queues, up, carrier"
coproc QS { ip netns exec "$NSA" python3 -S "$QSTATS" -s; }
defer kill "$QS_PID"
check_here "$DA's per-queue TX counters" queues
ktap_diag "$QLINE"
MACB=$(ns_cat "$NSB" "/sys/class/net/$DB/address")
MACA1=52:54:00:00:03:11	# DA@1's: a stream of its own in pgrx
cap_start "$NSB" "$DB" "$TMP/mq.pcap" || { ktap_fail "capture on $DB"; ktap_finish; }

declare -A GREW STOPS
PORT=2000 RUNS=() T0=$SECONDS
SIDE=ours
pg_is_ours || SIDE=stock
check "$SIDE: pktgen on $DA" eval 'pg_load && pg_fresh'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
[ "$SIDE" = ours ] && check "pgrx rx $DB, display script" eval \
	'in_ns "$NSB" pg_set pgrx "rx $DB" && in_ns "$NSB" pg_set pgrx "display script"'
runs ALL
stopped
sample06
if [ "$SIDE" = ours ]; then
	SIDE=stock
	in_ns "$NSB" pg_write pgrx "rx_disable $DB"
	check "stock: pktgen.ko on $DA" eval 'pg_load_stock && pg_fresh'
	runs
	stopped
	ktap_diag "tx-0 stops: ours ${STOPS[ours]:-?}, stock ${STOPS[stock]:-?}"
	for lab in "${!GREW[@]}"; do
		[ "${lab#stock: }" != "$lab" ] || continue
		check "stock and ours alike per queue: ${lab#stock: } (${GREW[$lab]})" test \
			"${GREW[$lab]}" = "${GREW[ours: ${lab#stock: }]:-none}"
	done
fi
cap_stop
frames_check "$TMP/mq.pcap"
pg_unload
ktap_finish
