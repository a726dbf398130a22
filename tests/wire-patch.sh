#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A netif_receive burst leaves its skb as it was built (every injection
# after the first relies on that), so where no field varies but the
# per-packet ones, ours writes only those into the next packet: IPv4 id
# and checksum, pktgen seq and time (pg_patch_frame()).  Every other
# configuration builds the whole frame.
#
#   netns A [ d0 (dummy), netif_receive, burst 32 ] <- packet socket
#
# d0's checksum offload is off, so that UDPCSUM sums the whole datagram.
# The packet socket's filter takes only the frames of every SAMPLE-th
# packet (seq 1, 1+SAMPLE, ...), so the skb is not held in between and
# those packets are patched ones (from the second on).  Checked on them:
# every copy of a burst is the same frame; the seqs, IP ids and
# checksums; the pktgen time is that of arrival; with nothing varying, every byte outside
# the per-packet fields is the first frame's; with one range or flag
# that varies the frame, the field does vary.  The stock module builds
# every frame whole and passes the same checks.

. "$(dirname "$0")/lib/lib.sh"

BURST=32 SAMPLE=8192 N=$((8192 * 8)) DST=10.96.0.2

# SAMPLER DEV OFF READY GO OUT: a raw packet socket on DEV whose filter
# takes frames with (32-bit word at OFF) & (SAMPLE - 1) == 1, i.e. the
# pktgen seq; READY is created once it is bound; once GO exists the queue
# is read and each frame written to OUT in hex, one a line, with the
# time of its arrival (SO_TIMESTAMPNS: taken at the burst's first
# injection, just after the packet was built).
SAMPLER='
import ctypes, os, socket, struct, sys, time
dev, off, sample, ready, go, out = sys.argv[1:7]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)	# SO_RCVBUFFORCE
# ld [off]; and #sample-1; jeq #1 ? accept : drop
prog = [(0x20, 0, 0, int(off)), (0x54, 0, 0, int(sample) - 1),
	(0x15, 0, 1, 1), (0x06, 0, 0, 0xffff), (0x06, 0, 0, 0)]
buf = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *i) for i in prog))
s.setsockopt(socket.SOL_SOCKET, 26,	# SO_ATTACH_FILTER
	     struct.pack("HL", len(prog), ctypes.addressof(buf)))
s.setsockopt(socket.SOL_SOCKET, 35, 1)	# SO_TIMESTAMPNS
s.bind((dev, 0))
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.05)
s.setblocking(False)
with open(out, "w") as f:
    while True:
        try:
            fr, anc, _, _ = s.recvmsg(4096, 64)
        except BlockingIOError:
            break
        sec, nsec = struct.unpack("qq", anc[0][2][:16]) if anc else (0, 0)
        f.write("%s %d %d\n" % (fr.hex(), sec, nsec))
'

# CHECK N BURST SAMPLE WHAT < sampler output: "ok" or what is wrong.
# WHAT: "fixed" (nothing varies but the per-packet fields), "fixed-udpcsum"
# (the same, and the UDP checksum) or "vary:FIELD" (FIELD takes more than
# one value: sport saddr daddr smac dmac len).
CHECK='
import struct, sys
n, burst, sample, what = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

def fold(t):
    while t >> 16:
        t = (t & 0xffff) + (t >> 16)
    return t

def parse(fr):
    p = {"fr": fr, "dmac": fr[0:6], "smac": fr[6:12], "len": len(fr)}
    et = struct.unpack("!H", fr[12:14])[0]
    if et == 0x0800:
        ihl = (fr[14] & 15) * 4
        ip = fr[14:14 + ihl]
        p.update(v4=True, ipid=struct.unpack("!H", ip[4:6])[0],
                 ipok=fold(sum(struct.unpack("!%dH" % (ihl // 2), ip))) == 0xffff,
                 saddr=ip[12:16], daddr=ip[16:20], l4=14 + ihl)
        pseudo = ip[12:20] + struct.pack("!BBH", 0, 17, len(fr) - 14 - ihl)
    else:
        p.update(v4=False, ipok=True, ipid=None, saddr=fr[22:38], daddr=fr[38:54], l4=54)
        pseudo = fr[22:54] + struct.pack("!IxxxB", len(fr) - 54, 17)
    l4 = p["l4"]
    p["sport"] = fr[l4:l4 + 2]
    udp = fr[l4:]
    if len(udp) % 2:
        udp += b"\0"
    p["ucsum"] = struct.unpack("!H", fr[l4 + 6:l4 + 8])[0]
    p["uok"] = fold(sum(struct.unpack("!%dH" % (len(pseudo + udp) // 2), pseudo + udp))) == 0xffff
    p["magic"], p["seq"], p["sec"], p["usec"] = struct.unpack("!IIII", fr[l4 + 8:l4 + 24])
    return p

frames = []
for l in sys.stdin:
    if l.strip():
        hx, sec, nsec = l.split()
        frames.append(dict(parse(bytes.fromhex(hx)), rx=int(sec) * 10**6 + int(nsec) // 1000))
frames = [f for f in frames if f["magic"] == 0xbe9be955]
why = []
by_seq = {}
for f in frames:
    by_seq.setdefault(f["seq"], []).append(f)
want = list(range(1, n + 1, sample))
if sorted(by_seq) != want:
    why.append("seqs %s, want %s" % (sorted(by_seq)[:6], want[:6]))
if any(len(v) != burst or any(g["fr"] != v[0]["fr"] for g in v) for v in by_seq.values()):
    why.append("a burst whose %d copies are not one frame" % burst)
pk = [by_seq[s][0] for s in sorted(by_seq)]
if any(not p["ipok"] for p in pk):
    why.append("a bad IP header checksum")
if any(p["ucsum"] and not p["uok"] for p in pk):
    why.append("a bad UDP checksum")
if pk and pk[0]["v4"]:
    ids = [(p["ipid"] - pk[0]["ipid"]) & 0xffff for p in pk]
    if ids != [(i * sample // burst) & 0xffff for i in range(len(pk))]:
        why.append("IP ids step %s, want %d" % (ids[:6], sample // burst))
# the pktgen time is that of the build: a stale one (a frame patched
# without it) would be that of the packet after the SAMPLE before,
# SAMPLE / BURST - 1 bursts earlier, some ms at least
lag = sorted(p["rx"] - (p["sec"] * 10**6 + p["usec"]) for p in pk)
if pk and not -1000 <= lag[len(lag) // 2] <= 2000:
    why.append("pktgen times lag arrival by %s us (median %d)" % (lag[:4], lag[len(lag) // 2]))
if what.startswith("fixed") and pk:
    mask = set()
    l4 = pk[0]["l4"]
    if pk[0]["v4"]:
        mask |= {18, 19, 24, 25}			# IP id, checksum
    if what == "fixed-udpcsum":
        mask |= {l4 + 6, l4 + 7}
        if any(not p["ucsum"] for p in pk):
            why.append("no UDP checksum")
    mask |= set(range(l4 + 12, l4 + 24))		# pktgen seq, time
    f0 = pk[0]["fr"]
    for p in pk[1:]:
        d = [i for i in range(max(len(f0), len(p["fr"])))
             if i not in mask and (i >= len(p["fr"]) or i >= len(f0) or p["fr"][i] != f0[i])]
        if d:
            why.append("seq %d differs from seq 1 at bytes %s" % (p["seq"], d[:8]))
            break
elif what.startswith("vary:"):
    field = what[5:]
    if len(set(p[field] if not isinstance(p[field], bytes) else p[field].hex() for p in pk)) < 2:
        why.append("%s is the same in every packet" % field)
print("ok" if not why else "; ".join(why))
'

# name|what|seq offset|commands beyond the common ones
CASES=(
	"IPv4, nothing varies|fixed|46|"
	"IPv4, 1500 bytes|fixed|46|pkt_size 1496"
	"IPv4, UDPCSUM|fixed-udpcsum|46|flag UDPCSUM"
	"IPv6, nothing varies|fixed|66|dst6 fd00:96::2;src6 fd00:96::1"
	"UDP source ports|vary:sport|46|udp_src_min 9;udp_src_max 16"
	"IPv4 sources|vary:saddr|46|src_min 10.96.0.10;src_max 10.96.0.16"
	"IPv4 destinations|vary:daddr|46|dst_min 10.96.1.10;dst_max 10.96.1.16"
	"source MACs|vary:smac|46|src_mac_count 5"
	"destination MACs|vary:dmac|46|dst_mac_count 5"
	"sizes|vary:len|46|min_pkt_size 60;max_pkt_size 100"
	"IPv6 destinations|vary:daddr|66|dst6_min fd00:96::10;dst6_max fd00:96::16;src6 fd00:96::1"
)

ktap_header
ktap_plan $((2 * ${#CASES[@]}))

TMP=$(lib_tmpdir)

setup() {
	pg_load || return 1
	ns_create NSA || return 1
	dummy_create "$NSA" d0 || return 1
	# UDPCSUM: the sum computed here, not left to the device
	ip netns exec "$NSA" ethtool -K d0 tx off >/dev/null || return 1
	THR=$(ip netns exec "$NSA" ls /proc/net/pktgen | grep kpktgend_ |
		sort -V | head -n 1)
	[ -n "$THR" ]
}

if ! setup >"$TMP/setup.log" 2>&1; then
	ktap_fail "setup" "$(cat "$TMP/setup.log")"
	ktap_finish
fi

# run NAME WHAT OFF CMDS: configure d0 from scratch, sample, check.
run() {
	local name=$1 what=$2 off=$3 cmds=$4 c res pid out
	local -a extra=()
	IFS=';' read -ra extra <<<"$cmds"
	rm -f "$TMP/ready" "$TMP/go" "$TMP/out"
	ip netns exec "$NSA" python3 -c "$SAMPLER" d0 "$off" "$SAMPLE" \
		"$TMP/ready" "$TMP/go" "$TMP/out" &
	pid=$!
	if ! wait_until 30 test -e "$TMP/ready"; then
		ktap_fail "$name: packet socket on d0"
		ktap_skip "$name: sampled frames" "no packet socket"
		kill "$pid"
		return
	fi
	for c in "rem_device_all" "add_device d0"; do
		in_ns "$NSA" pg_set "$THR" "$c" || break
	done
	for c in "xmit_mode netif_receive" "burst $BURST" "count $N" "pkt_size 60" \
		"dst $DST" "dst_mac 02:00:00:00:00:01" "${extra[@]}"; do
		in_ns "$NSA" pg_set d0 "$c" || break
	done
	pg_start_ns "$NSA" 120
	res=$(in_ns "$NSA" pg_result d0)
	touch "$TMP/go"
	wait "$pid"
	case $res in
	"OK: "*" $N ("*) ktap_pass "$name: $N sent" ;;
	*) ktap_fail "$name: $N sent" "Result: $res" ;;
	esac
	out=$(python3 -c "$CHECK" "$N" "$BURST" "$SAMPLE" "$what" <"$TMP/out" 2>&1)
	if [ "$out" = ok ]; then
		ktap_pass "$name: sampled frames ($what)"
	else
		ktap_fail "$name: sampled frames ($what)" "$out"
	fi
}

for c in "${CASES[@]}"; do
	IFS='|' read -r name what off cmds <<<"$c"
	run "$name" "$what" "$off" "$cmds"
done

in_ns "$NSA" pg_write pgctrl reset
ktap_finish
