#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pktgen on real NIC drivers: the two virtio-net NICs and the two e1000e
# of a check VM (tests/lib/vm.sh wires each pair on a QEMU hub of its
# own).  The NICs are found by driver (/sys/class/net/*/device/driver),
# never by name; a pair that is absent is skipped.
#
#   netns A (NSA)                           netns B (NSB)
#   +----------------------------+  QEMU   +------------------------------+
#   | pktgen device "$DA"        |   hub   | "$DB"  <-- tcpdump, pgrx     |
#   |   (virtio_net or e1000e)   |-------->|   no address: B never sends  |
#   +----------------------------+         +------------------------------+
# IPv6 off on both ends; pktgen's dst_mac = DB's MAC.
#
# For each pair: COUNT packets in start_xmit, start_xmit with clone_skb
# and burst, and queue_xmit; each run checked in pktgen's Result, the
# sender's tx_packets, the receiver's rx_packets, pgrx, and the captured
# frames (one UDP destination port per run).  Then the sender's link set
# down during a run, and the sender's PCI device unbound from its driver
# during a run, each followed by a run that must work.  The three basic
# runs are repeated on the kernel's own pktgen.ko (stock: no pgrx) so
# that a difference between the two modules shows.

. "$(dirname "$0")/lib/lib.sh"

COUNT=500 IPA=10.97.0.1 IPB=10.97.0.2

TMP=$(lib_tmpdir)

# nics_of DRIVER: the interfaces of this netns bound to DRIVER, by name
nics_of() {
	local d drv
	for d in /sys/class/net/*; do
		drv=$(readlink "$d/device/driver" 2>/dev/null) || continue
		[ "${drv##*/}" = "$1" ] && echo "${d##*/}"
	done | sort -V
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

ns_cat() { ip netns exec "$1" cat "$2"; }
stat_of() { ns_cat "$1" "/sys/class/net/$2/statistics/$3"; }
carrier_up() { [ "$(ns_cat "$1" "/sys/class/net/$2/carrier" 2>/dev/null)" = 1 ]; }

# nic_into NS DEV: DEV into NS, IPv6 off, up, carrier
nic_into() {
	ip link set dev "$2" netns "$1" &&
		ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1" &&
		ip -n "$1" link set "$2" up &&
		wait_until 15 carrier_up "$1" "$2"
}

# pg_adddev: DA on A's first kpktgend thread (only), configured
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

PORT=2000 RUNS=()

# result_is N SLACK: start's exit 0 (in START_RC), Result OK with N to
# N + SLACK packets, pkts-sofar the same, errors 0.
# A burst is not cut at count (nor in the stock module): where the queue
# stops mid-burst, the bursts after it end past count.
result_is() {
	local f sent=-1
	f=$(in_ns "$NSA" pg_read "$DA")
	[[ $f =~ pkts-sofar:\ ([0-9]+)\ \ errors:\ 0 ]] && sent=${BASH_REMATCH[1]}
	[ "$START_RC" -eq 0 ] && [ "$sent" -ge "$1" ] && [ "$sent" -le $(($1 + $2)) ] &&
		grep -q "^Result: OK: .*, $sent (" <<<"$f" && return 0
	echo "start exit $START_RC; device file:"
	echo "$f"
	return 1
}

# grew_by NS DEV STAT FROM N: STAT of DEV reaches FROM + N (polled: a
# driver may count at completion or on its next interrupt) and stays there
grew_by() {
	local want=$(($4 + $5)) got
	wait_until 5 eval '[ "$(stat_of "$1" "$2" "$3")" -ge "$want" ]'
	sleep 0.2
	got=$(stat_of "$1" "$2" "$3")
	[ "$got" -eq "$want" ] && return 0
	echo "$2 $3: $4 -> $got, want +$5"
	return 1
}

# send LABEL N SIZE CLONE [BURST] -- CMD...: a run of N packets of SIZE B
# on a port of its own (CLONE: clone_skb, for the frame checker; BURST:
# up to BURST - 1 more may be sent); Result, counters, pgrx, frames
send() {
	local lab=$1 n=$2 size=$3 clone=$4 slack=0 c tx0 rx0 bad=""
	shift 4
	[ "${1:-}" != -- ] && { slack=$(($1 - 1)); shift; }
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
	tx0=$(stat_of "$NSA" "$DA" tx_packets) rx0=$(stat_of "$NSB" "$DB" rx_packets)
	START_RC=0
	pg_start_ns "$NSA" 60 || START_RC=$?
	in_ns "$NSA" pg_read "$DA" >"$TMP/dev"
	SENT=$(sed -n 's/^ *pkts-sofar: \([0-9]*\) .*/\1/p' "$TMP/dev")
	if [ "$slack" -eq 0 ]; then
		check "$lab: Result OK: $n packets, errors 0" result_is "$n" 0
	else
		check "$lab: Result OK: $n to $((n + slack)) packets (burst), errors 0" \
			result_is "$n" "$slack"
		echo "# $lab: ${SENT:-?} sent for count $n"
		n=${SENT:-$n}	# what the counters and the wire must show
	fi
	check "$lab: $DA tx_packets +$n" grew_by "$NSA" "$DA" tx_packets "$tx0" "$n"
	check "$lab: $DB rx_packets +$n" grew_by "$NSB" "$DB" rx_packets "$rx0" "$n"
	if [ "$SIDE" = ours ]; then
		local lost=(lost 0)
		[ "$clone" -gt 0 ] && lost=()	# a clone repeats its seq
		in_ns "$NSB" pg_read pgrx >"$TMP/pgrx"
		check "$lab: pgrx rx_packets $n${lost:+, lost 0}" \
			kv_expect "$(cat "$TMP/pgrx")" rx_packets "$n" "${lost[@]}"
		ktap_diag "$(grep -E '^(reordered|duplicates|late)=' "$TMP/pgrx" | tr '\n' ' ')"
	fi
	RUNS+=("{\"lab\": \"$lab\", \"port\": $PORT, \"n\": $n, \"size\": $size, \"clone\": $clone}")
}

# the frames of the runs of RUNS in capture FILE (pcap.py's JSON lines)
CHECKER='
import json, sys
runs, smac, dmac, sip, dip = json.loads(sys.argv[1]), *sys.argv[2:6]
allf = [json.loads(l) for l in sys.stdin if l.strip()]
other = [f for f in allf if "pktgen" not in f]
print(("PASS %s" if not other else "FAIL %s|" + json.dumps(other[0])) %
      ("%s: no frame but pktgen'"'"'s on the wire (%d)" % (sys.argv[6], len(other))))
for r in runs:
    lab, n, size, clone, port = r["lab"], r["n"], r["size"], r["clone"], r["port"]
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
    seqs = [f["pktgen"]["seq"] for f in fr]
    brk = [k for k in range(1, len(seqs)) if seqs[k] < seqs[k - 1]]
    if clone == 0:
        brk = [k for k in range(len(seqs)) if seqs[k] != k + 1]
        out("magic, seq 1..%d in order" % n, None if not brk and len(seqs) == n else
            "at frame %s: seqs %s" % (brk[:1], seqs[max(0, (brk or [0])[0] - 5):][:20]))
    else:
        # a clone is sent clone_skb slots of burst copies each, and seq
        # counts every copy: it repeats, then jumps
        out("magic, seq from 1, non-decreasing (clones)",
            None if seqs[:1] == [1] and not brk else
            "at frame %s: seqs %s" % (brk[:1], seqs[max(0, (brk or [0])[0] - 5):][:20]))
'

# frames_check CAPTURE LABEL: the frames of RUNS, as KTAP
frames_check() {
	local runs
	runs=$(IFS=,; echo "[${RUNS[*]}]")
	ktap_report < <("$PCAP_PY" "$1" |
		python3 -c "$CHECKER" "$runs" "$MACA" "$MACB" "$IPA" "$IPB" "$2" 2>&1)
	RUNS=()
}

# basic LABEL: the three basic runs on the loaded module
basic() {
	in_ns "$NSA" pg_set "$DA" "xmit_mode start_xmit" >/dev/null
	send "$1 start_xmit" "$COUNT" 60 0 -- "clone_skb 0" "burst 1"
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
tx_above() { [ "$(stat_of "$NSA" "$DA" tx_packets)" -gt "$1" ]; }

# bg_start: a run without end (count 0) in the background (BG), once it sends
bg_start() {
	local c tx0
	PORT=$((PORT + 1))	# its frames are not a checked run's
	for c in "count 0" "pkt_size 60" "udp_dst_min $PORT" "udp_dst_max $PORT"; do
		in_ns "$NSA" pg_set "$DA" "$c" || return 1
	done
	tx0=$(stat_of "$NSA" "$DA" tx_packets)
	pg_start_ns "$NSA" 60 >/dev/null 2>&1 &
	BG=$!
	wait_until 20 tx_above $((tx0 + 100))
}

# bg_ended S: the background run returned within S seconds (else stop it)
bg_ended() {
	if wait_until "$1" eval '! kill -0 "$BG" 2>/dev/null'; then
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
	check "$lab: link up again, carrier" eval \
		'ip -n "$NSA" link set "$DA" up && wait_until 15 carrier_up "$NSA" "$DA"'
	send "$1 after link down" 200 60 0 --
}

# unbind: the sender's PCI device leaves its driver during a run
unbind() {
	local lab="$1 unbind" pci=$PCIA sys=/sys/bus/pci/drivers/$2 dev
	in_shell "$lab: a run without end is sending" bg_start
	echo "$pci" >"$sys/unbind"
	in_shell "$lab: $pci unbound from $2, the run ended within 15 s" bg_ended 15
	check "$lab: /proc/net/pktgen/$DA is gone" eval \
		'! ip netns exec "$NSA" test -e "/proc/net/pktgen/$DA"'
	echo "$pci" >"$sys/bind"
	check "$lab: rebound, a new interface on $pci" \
		wait_until 15 nic_of_pci "$pci"
	udev_settle	# the new ethN renamed (enp0sN) before the move
	dev=$(nic_of_pci "$pci") || return 0
	DA=$dev
	check "$lab: $DA into netns A, up, carrier" nic_into "$NSA" "$DA"
	MACA=$(ns_cat "$NSA" "/sys/class/net/$DA/address")
	check "$lab: add_device $DA again" pg_adddev
	send "$1 after rebind" 200 60 0 --
}

# pair DRIVER PCIDRIVER: every subtest on the NICs of DRIVER
pair() {
	local drv=$1 nics NSA NSB DA DB MACA MACB PCIA THR
	# udev renames the NICs (ethN -> enp0sN) at boot, late on a busy host:
	# a name read before it is done is gone a moment later
	udev_settle
	mapfile -t nics < <(nics_of "$drv")
	if [ ${#nics[@]} -lt 2 ]; then
		ktap_skip "$drv: a wired pair of NICs" "${#nics[@]} $drv interfaces (VM_NICS=0?)"
		return
	fi
	DA=${nics[0]} DB=${nics[1]}
	PCIA=$(pci_of "$DA")
	echo "# $drv: $DA ($PCIA) -> $DB ($(pci_of "$DB"))"
	if ! { ns_create NSA && ns_create NSB && nic_into "$NSA" "$DA" &&
		nic_into "$NSB" "$DB"; } >"$TMP/setup" 2>&1; then
		ktap_fail "$drv: NICs into two netns, up, carrier" "$(cat "$TMP/setup")"
		return
	fi
	MACA=$(ns_cat "$NSA" "/sys/class/net/$DA/address")
	MACB=$(ns_cat "$NSB" "/sys/class/net/$DB/address")
	SIDE=ours
	pg_is_ours || SIDE=stock
	check "$drv: pktgen ($SIDE) on $DA" eval 'pg_load && pg_adddev'
	[ "$SIDE" = ours ] && check "$drv: pgrx rx $DB, display script" eval \
		'in_ns "$NSB" pg_set pgrx "rx $DB" && in_ns "$NSB" pg_set pgrx "display script"'
	if ! cap_start "$NSB" "$DB" "$TMP/$drv.pcap"; then
		ktap_fail "$drv: capture on $DB"
		return
	fi
	basic "$drv $SIDE"
	link_down "$drv $SIDE"
	unbind "$drv $SIDE" "$2"
	if [ "$SIDE" = ours ]; then
		SIDE=stock
		in_ns "$NSB" pg_write pgrx "rx_disable $DB"
		check "$drv: stock pktgen.ko on $DA" eval 'pg_load_stock && pg_adddev'
		basic "$drv stock"
	fi
	cap_stop
	frames_check "$TMP/$drv.pcap" "$drv"
	pg_unload
	ip netns del "$NSA"
	ip netns del "$NSB"
}

ktap_header
modprobe -q virtio_net
modprobe -q e1000e
pair virtio_net virtio-pci
pair e1000e e1000e
ktap_finish
