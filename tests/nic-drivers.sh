#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pktgen on real NIC drivers: the two virtio-net NICs and the two e1000e
# of a check VM (tests/lib/vm.sh wires each pair on a QEMU hub of its
# own).  The NICs are found by the MAC vm.sh gives them (52:54:00:00:01:0N
# virtio, 52:54:00:00:02:0N e1000e; the multiqueue virtio pair of
# tests/nic-mq.sh is 52:54:00:00:03:0N) and their driver, never by name;
# a pair that is absent is skipped.
#
#   netns A (NSA)                           netns B (NSB)
#   +----------------------------+  QEMU   +------------------------------+
#   | pktgen device "$DA"        |   hub   | "$DB"  <-- tcpdump, pgrx     |
#   |   (virtio_net or e1000e)   |-------->|   no address: B never sends  |
#   +----------------------------+         +------------------------------+
# IPv6 off on both ends; pktgen's dst_mac = DB's MAC.
#
# For each pair: COUNT packets in start_xmit, in start_xmit with
# clone_skb 5 (each packet exactly 5 times on the wire) and with
# clone_skb 10 and burst 8, and in queue_xmit; each run checked in
# pktgen's Result, the sender's tx_packets, the receiver's rx_packets,
# pgrx, and every captured frame: addresses, ports, lengths, checksum,
# padding, and the seqs (one UDP destination port per run).  Then the
# sender's link set down during a run, and the sender's PCI device
# unbound from its driver during a run, each followed by a run that must
# work.  The basic runs are repeated on the kernel's own pktgen.ko
# (stock: no pgrx) for the drivers of NIC_STOCK, so that a difference
# between the two modules shows.

. "$(dirname "$0")/lib/lib.sh"

COUNT=500 IPA=10.97.0.1 IPB=10.97.0.2
# NIC_PAIRS: the drivers whose pair is tested; NIC_STOCK: those whose
# basic runs are repeated on the stock module (make check's time budget:
# one of them by default)
NIC_PAIRS=${NIC_PAIRS:-virtio_net e1000e} NIC_STOCK=${NIC_STOCK-virtio_net}

TMP=$(lib_tmpdir)

# nics_of DRIVER MACPREFIX: the interfaces of this netns bound to DRIVER
# whose MAC starts with MACPREFIX, by MAC
nics_of() {
	local d drv mac
	for d in /sys/class/net/*; do
		drv=$(readlink "$d/device/driver" 2>/dev/null) || continue
		[ "${drv##*/}" = "$1" ] || continue
		read -r mac <"$d/address" && [[ $mac == "$2"* ]] && echo "$mac ${d##*/}"
	done | sort | cut -d' ' -f2
}

# pci_of DEV: the PCI address of DEV (virtio: the parent of its device)
pci_of() {
	local p
	p=$(readlink -f "/sys/class/net/$1/device") || return 1
	while [ "${p:-/}" != / ]; do
		[[ ${p##*/} =~ ^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$ ]] &&
			{ echo "${p##*/}"; return 0; }
		p=${p%/*}
	done
	return 1
}

# nic_of_pci PCI: the interface (of this netns) on PCI device PCI
nic_of_pci() {
	local d
	for d in /sys/class/net/*; do
		[ -e "$d/device" ] || continue
		[ "$(pci_of "${d##*/}")" = "$1" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

udev_settle() { udevadm settle --timeout=60 2>/dev/null || sleep 2; }



# nic_into NS DEV: DEV into NS, IPv6 off, up, carrier
nic_into() {
	ip link set dev "$2" netns "$1" &&
		ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1" &&
		ip -n "$1" link set "$2" up &&
		slowwait 15 carrier_up "$1" "$2"
}

# pg_adddev: DA on A's first kpktgend thread (only), configured
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
pg_adddev() {
	local c
	THR=$(ip netns exec "$NSA" ls /proc/net/pktgen | grep kpktgend_ | sort -V | head -n 1)
	[ -n "$THR" ] && in_ns "$NSA" pg_write "$THR" "rem_device_all" &&
		in_ns "$NSA" pg_write "$THR" "add_device $DA" || return 1
	for c in "pkt_size 60" "dst $IPB" "src_min $IPA" "src_max $IPA" \
		 "dst_mac $MACB"; do
		in_ns "$NSA" pg_set "$DA" "$c" || return 1
	done
}

# checked runs use UDP ports from 2001, the runs without end of link_down
# and unbind ports from 3001: the capture leaves those out (tens of
# thousands of frames, which would overflow its ring and take minutes
# to read back under TCG)
PORT=2000 BGPORT=3000 RUNS=()
# shellcheck disable=SC2034 # read by lib.sh's cap_start
CAP_EXTRA="not udp dst portrange 3000-3999"

# result_is N SLACK: start's exit 0 (in START_RC), Result OK with N to
# N + SLACK packets, pkts-sofar the same, errors 0.
# A burst is not cut at count (nor in the stock module): where the queue
# stops mid-burst, the bursts after it end past count.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
result_is() {
	local sent=-1 re
	[[ $DEVTEXT =~ pkts-sofar:\ ([0-9]+)\ \ errors:\ 0 ]] && sent=${BASH_REMATCH[1]}
	re=$'(^|\n)Result: OK: [^\n]*, '"$sent"' \('
	[ "$START_RC" -eq 0 ] && [ "$sent" -ge "$1" ] && [ "$sent" -le $(($1 + $2)) ] &&
		[[ $DEVTEXT =~ $re ]] && return 0
	echo "start exit $START_RC; device file:"
	echo "$DEVTEXT"
	return 1
}

# grew_by NS DEV STAT FROM N: STAT of DEV reaches FROM + N (polled: a
# driver may count at completion or on its next interrupt) and stays there
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
grew_by() {
	# named: eval runs in slowwait, where "$1".. are slowwait's own
	local ns=$1 dev=$2 counter=$3 want=$(($4 + $5))
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	slowwait 5 eval 'dev_stat "$ns" "$dev" "$counter" && [ "$STAT" -ge "$want" ]'
	sleep 0.2
	dev_stat "$ns" "$dev" "$counter" && [ "$STAT" -eq "$want" ] && return 0
	echo "$2 $3: $4 -> ${STAT:-?}, want +$5"
	return 1
}

# send LABEL N SIZE CLONE [BURST] -- CMD...: a run of N packets of SIZE B
# on a port of its own (CLONE: clone_skb, for the frame checker; BURST:
# up to BURST - 1 more may be sent); Result, counters, pgrx, frames
send() {
	local lab=$1 n=$2 size=$3 clone=$4 burst=1 slack=0 c tx0 rx0 bad=""
	shift 4
	[ "${1:-}" != -- ] && { burst=$1 slack=$(($1 - 1)); shift; }
	[ "${1:-}" = -- ] && shift
	PORT=$((PORT + 1))
	for c in "count $n" "pkt_size $size" "udp_dst_min $PORT" "udp_dst_max $PORT" "$@"; do
		in_ns "$NSA" pg_set "$DA" "$c" >"$TMP/conf" 2>&1 || { bad=$(cat "$TMP/conf"); break; }
	done
	if [ -n "$bad" ]; then
		ktap_fail "$lab: configure" "$bad"
		return
	fi
	pg_is_ours && [ "$SIDE" = ours ] && in_ns "$NSB" pg_set pgrx rx_reset >/dev/null
	dev_stat "$NSA" "$DA" tx_packets
	tx0=$STAT
	dev_stat "$NSB" "$DB" rx_packets
	rx0=$STAT
	START_RC=0
	local t0=${EPOCHREALTIME/./} t1 t2
	pg_start_ns "$NSA" 60 || START_RC=$?
	t1=${EPOCHREALTIME/./}
	# fork-free reads and checks (check_here): a fork costs 0.1-1 s here
	_PG_NS=$NSA _pg_read_var "$DA"
	DEVTEXT=$_PG_TEXT SENT=""
	[[ $DEVTEXT =~ pkts-sofar:\ ([0-9]+) ]] && SENT=${BASH_REMATCH[1]}
	if [ "$slack" -eq 0 ]; then
		check_here "$lab: Result OK: $n packets, errors 0" result_is "$n" 0
	else
		check_here "$lab: Result OK: $n to $((n + slack)) packets (burst), errors 0" \
			result_is "$n" "$slack"
		echo "# $lab: ${SENT:-?} sent for count $n"
		n=${SENT:-$n}	# what the counters and the wire must show
	fi
	check_here "$lab: $DA tx_packets +$n" grew_by "$NSA" "$DA" tx_packets "$tx0" "$n"
	check_here "$lab: $DB rx_packets +$n" grew_by "$NSB" "$DB" rx_packets "$rx0" "$n"
	t2=${EPOCHREALTIME/./}
	echo "# $lab: run $(((t1 - t0) / 1000)) ms, counters $(((t2 - t1) / 1000)) ms"
	if [ "$SIDE" = ours ]; then
		local lost=(lost 0) k diag=""
		[ "$clone" -gt 0 ] && lost=()	# a clone repeats its seq
		_PG_NS=$NSB _pg_read_var pgrx
		RXTEXT=$_PG_TEXT
		check_here "$lab: pgrx rx_packets $n${lost:+, lost 0}" \
			kv_expect "$RXTEXT" rx_packets "$n" "${lost[@]}"
		for k in reordered duplicates late; do
			kv_get "$RXTEXT" "$k"
			diag+="$k=$KVAL "
		done
		ktap_diag "$diag"
	fi
	RUNS+=("{\"lab\": \"$lab\", \"port\": $PORT, \"n\": $n, \"size\": $size, \"clone\": $clone, \"burst\": $burst}")
}

# the frames of the runs of RUNS in capture FILE, decoded by pcap.py in
# the same python (a python start costs ~0.5 s under TCG)
CHECKER='
import json, sys
runs, smac, dmac, sip, dip = json.loads(sys.argv[1]), *sys.argv[2:6]
sys.path.insert(0, sys.argv[7])
import pcap
try:
    allf = pcap.frames(sys.argv[8])
except (OSError, ValueError) as e:
    print("FAIL %s: capture readable|%s" % (sys.argv[6], e))
    allf = []
other = [f for f in allf if "pktgen" not in f]
print(("PASS %s" if not other else "FAIL %s|" + json.dumps(other[0])) %
      ("%s: no frame but pktgen'"'"'s on the wire (%d)" % (sys.argv[6], len(other))))
for r in runs:
    lab, n, size, clone, port = r["lab"], r["n"], r["size"], r["clone"], r["port"]
    burst = r["burst"]
    fr = [f for f in allf if "pktgen" in f and f.get("udp", {}).get("dport") == port]
    def out(name, why):
        print("PASS %s: %s" % (lab, name) if why is None else
              "FAIL %s: %s|%s" % (lab, name, why))
    out("%d frames on the wire" % n, None if len(fr) == n else "%d frames" % len(fr))
    why = None
    for f in fr:
        ip, udp = f.get("ip", {}), f.get("udp", {})
        if (f["len"], f["wire_len"], f["dst"], f["src"], f["ethertype"], ip.get("src"),
            ip.get("dst"), ip.get("tot_len"), ip.get("ttl"), ip.get("proto"),
            ip.get("csum_ok"), udp.get("sport"), udp.get("len"),
            f["pktgen"]["pad_zero"]) != (size, size, dmac, smac, 0x800, sip, dip,
                                         size - 14, 32, 17, True, 9, size - 34, True):
            why = "frame %d: %s" % (f["n"], json.dumps(f))
            break
    out("%d B, %s > %s, %s > %s, udp 9 > %d, ip csum, zero padding" %
        (size, smac, dmac, sip, dip, port), why)
    # seq counts every frame sent: a packet built with seq S and sent C
    # times (clone_skb slots of up to burst copies) is followed by one
    # with seq S + C.  Checked on the sorted seqs: the frames of a run
    # may arrive out of order through the QEMU hub (seen with both modules).
    seqs = [f["pktgen"]["seq"] for f in fr]
    copies = {}
    for s in seqs:
        copies[s] = copies.get(s, 0) + 1
    distinct, why = sorted(copies), None
    if distinct[:1] != [1]:
        why = "first seq %s" % distinct[:1]
    for a, b in zip(distinct, distinct[1:]):
        if why is None and b != a + copies[a]:
            why = "seq %d sent %d times, then seq %d" % (a, copies[a], b)
    top = max(clone, 1) * burst
    full = [s for s in distinct[:-1] if copies[s] != top]
    if why is None and burst == 1 and full:
        why = "seq %d sent %d times, not %d" % (full[0], copies[full[0]], top)
    if why is None and copies and max(copies.values()) > top:
        why = "a seq sent %d times, more than %d" % (max(copies.values()), top)
    out("magic; seqs from 1, each sent %s%d times, the next seq after them"
        % ("" if burst == 1 else "up to ", top), why)
    late = sum(1 for k in range(1, len(seqs)) if seqs[k] < seqs[k - 1])
    print("%s: %d frames arrived after a later seq" % (lab, late))
'

# frames_check CAPTURE LABEL: the frames of RUNS, as KTAP
frames_check() {
	local runs
	runs=$(IFS=,; echo "[${RUNS[*]}]")
	ktap_report < <(python3 -S -c "$CHECKER" "$runs" "$MACA" "$MACB" "$IPA" "$IPB" \
		"$2" "$LIB_DIR" "$1" 2>&1)
	RUNS=()
}

# basic LABEL: the three basic runs on the loaded module
basic() {
	in_ns "$NSA" pg_set "$DA" "xmit_mode start_xmit" >/dev/null
	send "$1 start_xmit" "$COUNT" 60 0 -- "clone_skb 0" "burst 1"
	send "$1 start_xmit clone_skb 5" "$COUNT" 100 5 -- "clone_skb 5" "burst 1"
	send "$1 start_xmit clone_skb 10 burst 8" "$COUNT" 200 10 8 -- "clone_skb 10" "burst 8"
	send "$1 queue_xmit" "$COUNT" 1000 0 -- "clone_skb 0" "burst 1" "xmit_mode queue_xmit"
	in_ns "$NSA" pg_set "$DA" "xmit_mode start_xmit" >/dev/null
}

# in_shell NAME CMD...: check, but CMD runs in this shell (its variables
# stay: check runs CMD in a subshell)
in_shell() {
	local name=$1
	shift
	if "$@" >"$TMP/in_shell" 2>&1; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "$(cat "$TMP/in_shell")"
	fi
}

# tx_above N: DA has sent more than N packets
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
tx_above() { dev_stat "$NSA" "$DA" tx_packets && [ "$STAT" -gt "$1" ]; }

# bg_start: a run without end (count 0) in the background (BG), once it sends
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
bg_start() {
	local c tx0
	BGPORT=$((BGPORT + 1))	# not captured
	for c in "count 0" "pkt_size 60" "udp_dst_min $BGPORT" "udp_dst_max $BGPORT"; do
		in_ns "$NSA" pg_set "$DA" "$c" || return 1
	done
	dev_stat "$NSA" "$DA" tx_packets || return 1
	tx0=$STAT
	pg_start_ns "$NSA" 60 >/dev/null 2>&1 &
	BG=$!
	slowwait 20 tx_above $((tx0 + 100))
}

# bg_ended S: the background run returned within S seconds (else stop it)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
bg_ended() {
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	if slowwait "$1" eval '! kill -0 "$BG" 2>/dev/null'; then
		wait "$BG"
		return 0
	fi
	in_ns "$NSA" pg_write pgctrl stop
	wait "$BG"
	echo "start still running ${1}s later (stopped it)"
	return 1
}

# link_down: the sender's link goes down during a run
link_down() {
	local lab="$1 link down"
	in_shell "$lab: a run without end is sending" bg_start
	ip -n "$NSA" link set "$DA" down
	in_shell "$lab: the run ended (or counts errors) within 15 s" bg_ended 15
	in_ns "$NSA" pg_read "$DA" | grep -E '^(Result|     pkts-sofar)' | ktap_diag "$(cat)"
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	check "$lab: link up again, carrier" eval \
		'ip -n "$NSA" link set "$DA" up && slowwait 15 carrier_up "$NSA" "$DA"'
	send "$1 after link down" 200 60 0 --
}

# unbind: the sender's PCI device leaves its driver during a run
unbind() {
	local lab="$1 unbind" pci=$PCIA sys=/sys/bus/pci/drivers/$2 dev
	in_shell "$lab: a run without end is sending" bg_start
	echo "$pci" >"$sys/unbind"
	in_shell "$lab: $pci unbound from $2, the run ended within 15 s" bg_ended 15
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	check "$lab: /proc/net/pktgen/$DA is gone" eval \
		'! ip netns exec "$NSA" test -e "/proc/net/pktgen/$DA"'
	echo "$pci" >"$sys/bind"
	check "$lab: rebound, a new interface on $pci" \
		slowwait 15 nic_of_pci "$pci"
	udev_settle	# the new ethN renamed (enp0sN) before the move
	dev=$(nic_of_pci "$pci") || return 0
	DA=$dev
	check "$lab: $DA into netns A, up, carrier" nic_into "$NSA" "$DA"
	MACA=$(ns_cat "$NSA" "/sys/class/net/$DA/address")
	check "$lab: add_device $DA again" pg_adddev
	send "$1 after rebind" 200 60 0 --
}

# took WHAT: how long WHAT took since the last call (a diagnostic line)
took() {
	echo "# $1: $((SECONDS - T0)) s"
	T0=$SECONDS
}

# pair DRIVER PCIDRIVER MACPREFIX: every subtest on the NICs of DRIVER
# whose MACs start with MACPREFIX
pair() {
	local drv=$1 nics NSA NSB DA DB MACA MACB PCIA THR T0=$SECONDS
	# udev renames the NICs (ethN -> enp0sN) at boot, late on a busy host:
	# a name read before it is done is gone a moment later
	udev_settle
	mapfile -t nics < <(nics_of "$drv" "$3")
	if [ ${#nics[@]} -lt 2 ]; then
		ktap_skip "$drv: a wired pair of NICs" \
			"${#nics[@]} $drv interfaces with MAC $3* (VM_NICS=0?)"
		return
	fi
	DA=${nics[0]} DB=${nics[1]}
	PCIA=$(pci_of "$DA")
	echo "# $drv: $DA ($PCIA) -> $DB ($(pci_of "$DB"))"
	if ! { setup_ns NSA NSB && nic_into "$NSA" "$DA" &&
		nic_into "$NSB" "$DB"; } >"$TMP/setup" 2>&1; then
		ktap_fail "$drv: NICs into two netns, up, carrier" "$(cat "$TMP/setup")"
		return
	fi
	MACA=$(ns_cat "$NSA" "/sys/class/net/$DA/address")
	MACB=$(ns_cat "$NSB" "/sys/class/net/$DB/address")
	SIDE=ours
	pg_is_ours || SIDE=stock
	check "$drv: pktgen ($SIDE) on $DA" eval 'pg_load && pg_adddev'
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	[ "$SIDE" = ours ] && check "$drv: pgrx rx $DB, display script" eval \
		'in_ns "$NSB" pg_set pgrx "rx $DB" && in_ns "$NSB" pg_set pgrx "display script"'
	if ! cap_start "$NSB" "$DB" "$TMP/$drv.pcap"; then
		ktap_fail "$drv: capture on $DB"
		return
	fi
	took "$drv: setup"
	basic "$drv $SIDE"
	took "$drv $SIDE: basic runs"
	link_down "$drv $SIDE"
	took "$drv $SIDE: link down"
	unbind "$drv $SIDE" "$2"
	took "$drv $SIDE: unbind"
	if [ "$SIDE" = ours ] && [[ " $NIC_STOCK " = *" $drv "* ]]; then
		SIDE=stock
		in_ns "$NSB" pg_write pgrx "rx_disable $DB"
		check "$drv: stock pktgen.ko on $DA" eval 'pg_load_stock && pg_adddev'
		basic "$drv stock"
		took "$drv stock: load, basic runs"
	fi
	cap_stop
	frames_check "$TMP/$drv.pcap" "$drv"
	took "$drv: frames checked"
	pg_unload
	ip netns del "$NSA"
	ip netns del "$NSB"
}

ktap_header
modprobe -q virtio_net
modprobe -q e1000e
[[ " $NIC_PAIRS " = *" virtio_net "* ]] && pair virtio_net virtio-pci 52:54:00:00:01:
[[ " $NIC_PAIRS " = *" e1000e "* ]] && pair e1000e e1000e 52:54:00:00:02:
ktap_finish
