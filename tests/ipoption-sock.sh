#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# suite: slow
#
# The PF_IPOPTION socket family (Documentation/ipoption-sock.rst): the
# memo's section 2.1 code (tests/lib/ipo_memo.c) intercepts RSVP packets
# with a router alert crossing the router and reinjects them, the sink
# sees each once and in order, byte for byte as forwarded; two listeners
# both get each packet; IPOPT_RECVLOCAL copies local packets (LOCAL_IN,
# and LOCAL_OUT with a finished CHECKSUM_PARTIAL checksum) without
# stealing them; no listener, ip_forward=0, a killed listener and packets
# over the egress MTU: forwarded normally (or not at all), never stolen;
# EPERM without CAP_NET_RAW and CAP_NET_ADMIN in the initial user
# namespace; source-routed packets at R's hop not taken; rmmod refused
# while a socket is open; the module parameter; a taken family number;
# a namespace deleted under an open socket; argument fuzzing
# (tests/lib/ipo_tool.c).
#
#   netns S                  netns R (ip_forward=1)               netns K
#   +----------------+       +------------------------------+       +----------------+
#   | s0 10.98.1.1   |<----->| r0 10.98.1.2    10.98.2.1 r1 |<----->| k1 10.98.2.2   |
#   | ipo_tool send  | veth  | ipo_memo / ipo_tool listen   | veth  | tcpdump,       |
#   | (RECVLOCAL out)|       |                              |       | udprecv, listen|
#   +----------------+       +------------------------------+       +----------------+
#
# test-timeout: 600

. "$(dirname "$0")/lib/lib.sh"

SIP=10.98.1.1 R0IP=10.98.1.2 R1IP=10.98.2.1 KIP=10.98.2.2

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	TMP=$(lib_tmpdir)
	pg_load && ipo_load || return 1
	setup_ns S R K || return 1
	veth_create "$S" s0 "$R" r0 && veth_create "$R" r1 "$K" k1 || return 1
	ip -n "$S" addr add "$SIP/24" dev s0 &&
		ip -n "$R" addr add "$R0IP/24" dev r0 &&
		ip -n "$R" addr add "$R1IP/24" dev r1 &&
		ip -n "$K" addr add "$KIP/24" dev k1 || return 1
	ip -n "$S" route add default via "$R0IP" &&
		ip -n "$K" route add default via "$R1IP" || return 1
	ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1 || return 1
	# static neighbours: nothing but the test's packets on the wire
	local m
	m=$(ip netns exec "$R" cat /sys/class/net/r0/address)
	ip -n "$S" neigh add "$R0IP" lladdr "$m" dev s0 || return 1
	m=$(ip netns exec "$S" cat /sys/class/net/s0/address)
	ip -n "$R" neigh add "$SIP" lladdr "$m" dev r0 || return 1
	m=$(ip netns exec "$K" cat /sys/class/net/k1/address)
	ip -n "$R" neigh add "$KIP" lladdr "$m" dev r1 || return 1
	m=$(ip netns exec "$R" cat /sys/class/net/r1/address)
	ip -n "$K" neigh add "$R1IP" lladdr "$m" dev k1 || return 1
	R0IDX=$(ip netns exec "$R" cat /sys/class/net/r0/ifindex)
	K1IDX=$(ip netns exec "$K" cat /sys/class/net/k1/ifindex)
	IPO_MEMO=$(lib_prog ipo_memo) && IPO_TOOL=$(lib_prog ipo_tool) &&
		IPO_REINJECT=$(lib_prog ipo_reinject)
}

declare -A PID
# bg NS NAME CMD...: CMD in NS in the background, output in $TMP/NAME;
# waits for its "ready" line; its pid in BG_PID
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
bg() {
	local ns=$1 name=$2
	shift 2
	ip netns exec "$ns" "$@" >"$TMP/$name" 2>&1 &
	BG_PID=$!
	PID[$name]=$BG_PID
	BG_ALL+=("$BG_PID")
	slowwait 20 grep -q '^ready' "$TMP/$name" ||
		{ echo "$name did not start:"; cat "$TMP/$name"; return 1; }
}

# sub NAME FN: a subtest in this shell; what it left running is killed
BG_ALL=()
sub() {
	check_here "$@"
	cap_stop
	if [ ${#BG_ALL[@]} -gt 0 ]; then
		kill -9 "${BG_ALL[@]}" 2>/dev/null
		wait "${BG_ALL[@]}" 2>/dev/null
	fi
	BG_ALL=()
}
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
defer eval 'kill -9 "${BG_ALL[@]}"'

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
send() { ip netns exec "$S" "$IPO_TOOL" send "$@"; }	# DST rsvp|udp N SIZE [noopt]
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
pkts() { grep -c '^pkt ' "$TMP/$1"; }
# lines NAME N: NAME printed N packet lines (waits up to 10 s)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
lines() { slowwait 10 test "$(pkts "$1")" -ge "$2"; [ "$(pkts "$1")" -eq "$2" ] ||
	{ echo "$1: $(pkts "$1") packets, wanted $2:"; cat "$TMP/$1"; false; }; }
# done NAME: the background job finished ("drops" printed)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
finished() { slowwait 15 grep -q '^drops\|^udp' "$TMP/$1" ||
	{ echo "$1 did not finish:"; cat "$TMP/$1"; false; }; }

# stop NAME: SIGTERM to a listen or udprecv, which prints its summary
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
stop() { kill -TERM "${PID[$1]}" && finished "$1"; }

# sink_check PCAP N TTL: exactly N IPv4 packets to $KIP carrying a router
# alert, seqs 0..N-1 in order, TTL, valid header checksums
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
sink_check() {
	python3 -S - "$@" "$LIB_DIR" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[4])
import pcap
path, n, ttl = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
seqs, bad = [], []
for f in pcap.raw(path):
    if len(f) < 34 or f[12:14] != b'\x08\x00':
        continue
    ip = f[14:]
    hl = (ip[0] & 15) * 4
    if ip[16:20] != bytes([10, 98, 2, 2]):
        continue
    s = sum(struct.unpack('!%dH' % (hl // 2), ip[:hl]))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    if s != 0xffff:
        bad.append('bad header checksum')
    if ip[8] != ttl:
        bad.append('ttl %d' % ip[8])
    if ip[20:24] != b'\x94\x04\x00\x00':
        bad.append('options %s' % ip[20:hl].hex())
    off = hl + (8 if ip[9] == 17 else 0)
    seqs.append(struct.unpack('!I', ip[off:off + 4])[0])
if seqs != list(range(n)) or bad:
    print('sink saw seqs %s (wanted 0..%d), %s' % (seqs, n - 1, sorted(set(bad))))
    sys.exit(1)
PY
}

ktap_header
ktap_setup setup

# ---- the module
check "family is 25 in /sys/module/pf_ipoption/parameters" \
	grep -qx 25 /sys/module/pf_ipoption/parameters/family

# ---- a source-routed packet at this router's hop: never taken.  Its
# destination and pointer move after FORWARD (ip_forward_options()), so
# a listener that sent it again as it is would send it to R, which took
# it again until its TTL ran out (the review's proof: 63 copies, none at
# K).  Forwarded, once; the listener sees nothing.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_srr() {
	local opt
	# NOP, LSRR length 7, pointer 4, [KIP]
	opt=01830704$(printf '%02x%02x%02x%02x' 10 98 2 2)
	ip netns exec "$R" sysctl -qw net.ipv4.conf.all.accept_source_route=1 \
		net.ipv4.conf.r0.accept_source_route=1 net.ipv4.conf.lo.accept_source_route=1 &&
		ip netns exec "$K" sysctl -qw net.ipv4.conf.all.accept_source_route=1 \
			net.ipv4.conf.k1.accept_source_route=1 || return 1
	# control: no listener
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	bg "$K" u9 "$IPO_TOOL" udprecv 9999 1 8000 &&
		ip netns exec "$S" "$IPO_TOOL" sendraw "$R0IP" "$opt" 1 && finished u9 &&
		grep -qx 'udp 1' "$TMP/u9" || { echo "no listener:"; cat "$TMP/u9"; return 1; }
	# the listener last, just before the packet: it ends after 8 s of
	# silence, which a slow start of the sink could otherwise use up
	bg "$K" us "$IPO_TOOL" udprecv 9999 1 20000 &&
		bg "$R" ri "$IPO_REINJECT" 8000 &&
		ip netns exec "$S" "$IPO_TOOL" sendraw "$R0IP" "$opt" 1 || return 1
	slowwait 20 grep -q '^got' "$TMP/ri" && finished us || return 1
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	grep -qx 'udp 1' "$TMP/us" && grep -qx 'got 0' "$TMP/ri" ||
		{ echo "--- listener:"; cat "$TMP/ri"; echo "--- sink:"; cat "$TMP/us"; return 1; }
}
sub "LSRR naming R, a reinjecting listener: forwarded once to K, not taken" t_srr

# ---- arguments
ktap_report < <(ip netns exec "$R" "$IPO_TOOL" fuzz 2>&1)

# ---- no listener: forwarded as usual
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_plain() {
	bg "$K" u0 "$IPO_TOOL" udprecv 9999 3 20000 &&
		send "$KIP" udp 3 64 && finished u0 && grep -qx 'udp 3' "$TMP/u0"
}
sub "no listener: RA packets forwarded (3 of 3)" t_plain

# ---- the memo's code on the router
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_memo() {
	cap_start "$K" k1 "$TMP/memo.pcap" &&
		bg "$R" memo "$IPO_MEMO" 20 recvif &&
		send "$KIP" rsvp 20 32 && lines memo 20 || return 1
	wait "$BG_PID"
	cap_stop
	local want i=0 line
	while read -r line; do
		want="pkt 56 $R0IDX $i"
		[ "$line" = "$want" ] || { echo "memo: '$line', wanted '$want'"; return 1; }
		i=$((i + 1))
	done < <(grep '^pkt' "$TMP/memo")
}
sub "memo 2.1 code: 20 RSVP RA packets intercepted in order, IP_RECVIF = r0" t_memo
check "memo 2.1 code: the sink got each reinjected packet once, in order, TTL 63" \
	sink_check "$TMP/memo.pcap" 20 63

# IP_RECVRSVP: other router alert packets are not the memo's; forwarded
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_rsvp_only() {
	bg "$R" l0 "$IPO_TOOL" listen ra rsvp 5 20000 &&
		bg "$K" u1 "$IPO_TOOL" udprecv 9999 3 20000 &&
		send "$KIP" udp 3 64 && finished u1 && stop l0 || return 1
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	grep -qx 'udp 3' "$TMP/u1" && [ "$(pkts l0)" -eq 0 ] || { cat "$TMP/l0" "$TMP/u1"; false; }
}
sub "IP_RECVRSVP: RA packets of UDP bypass the socket, forwarded" t_rsvp_only

# a plain listener and, opened after it (first in the type's list), an
# IP_RECVRSVP one: the filter passes the packet over to the next socket
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_rsvp_after_plain() {
	bg "$R" pl "$IPO_TOOL" listen ra - 3 20000 &&
		bg "$R" rs "$IPO_TOOL" listen ra rsvp 3 20000 &&
		bg "$K" u8 "$IPO_TOOL" udprecv 9999 3 20000 &&
		send "$KIP" udp 3 64 && finished pl && sleep 0.5 && stop rs && stop u8 || return 1
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[ "$(pkts pl)" -eq 3 ] && [ "$(pkts rs)" -eq 0 ] && grep -qx 'udp 0' "$TMP/u8" ||
		{ cat "$TMP/pl" "$TMP/rs" "$TMP/u8"; false; }
}
sub "plain listener, then an IP_RECVRSVP one: UDP RA packets reach the plain one, stolen" \
	t_rsvp_after_plain

# ---- two listeners, nobody reinjects: both get each packet, the sink none
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_two() {
	bg "$R" a "$IPO_TOOL" listen ra if 4 20000 &&
		bg "$R" b "$IPO_TOOL" listen any - 4 20000 &&
		bg "$K" u2 "$IPO_TOOL" udprecv 9999 4 20000 &&
		send "$KIP" udp 4 100 && finished a && finished b && sleep 0.5 && stop u2 || return 1
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[ "$(pkts a)" -eq 4 ] && [ "$(pkts b)" -eq 4 ] && grep -qx 'udp 0' "$TMP/u2" ||
		{ cat "$TMP/a" "$TMP/b" "$TMP/u2"; return 1; }
	# CHECKSUM_PARTIAL from the veth peer: the copies' UDP checksums are final
	[ "$(grep -c "^pkt 132 $R0IDX 17 [0-3] ok ok$" "$TMP/a")" -eq 4 ] ||
		{ echo "checksums or ifindex:"; cat "$TMP/a"; return 1; }
}
sub "two listeners (ra, any): each gets all 4, stolen once, checksums final" t_two

# ---- record route at this hop: input writes R's address into the slot
# before FORWARD and leaves the header checksum to ip_forward_options();
# the copies' header checksum covers the slot as delivered
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_rr_csum() {
	bg "$R" rr "$IPO_TOOL" listen rr if 3 20000 &&
		# RR, length 11, pointer 4, two empty slots; end of options
		ip netns exec "$S" "$IPO_TOOL" sendraw "$KIP" 070b04000000000000000000 3 &&
		finished rr || return 1
	[ "$(grep -c "^pkt 44 $R0IDX 17 [0-2] ok -$" "$TMP/rr")" -eq 3 ] ||
		{ echo "header checksums or ifindex:"; cat "$TMP/rr"; return 1; }
}
sub "RR filled at this hop: the copies' header checksum is valid" t_rr_csum

# ---- a killed listener: forwarding back at once
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_kill() {
	bg "$R" k "$IPO_TOOL" listen ra - 100 20000 &&
		bg "$K" u3 "$IPO_TOOL" udprecv 9999 1 20000 || return 1
	send "$KIP" udp 1 64 && lines k 1 || return 1
	kill -9 "${PID[k]}"
	wait "${PID[k]}" 2>/dev/null
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	send "$KIP" udp 1 64 && finished u3 && grep -qx "udp 1" "$TMP/u3" || { cat "$TMP/u3"; false; }
}
sub "kill -9 of the listener: the next packet is forwarded" t_kill

# ---- every queue full: not stolen, forwarded (drops counted)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_full() {
	local q d u
	bg "$R" hf "$IPO_TOOL" hold 1 &&
		bg "$K" u8 "$IPO_TOOL" udprecv 9999 20 20000 &&
		send "$KIP" udp 20 1000 && sleep 1 && stop u8 || return 1
	kill -TERM "${PID[hf]}"
	slowwait 10 grep -q '^queued' "$TMP/hf" || { cat "$TMP/hf"; return 1; }
	read -r _ q _ d < <(grep '^queued' "$TMP/hf")
	u=$(sed -n 's/^udp //p' "$TMP/u8")
	echo "queued $q, dropped $d, forwarded $u"
	[ "$q" -ge 1 ] && [ "$d" -ge 1 ] && [ $((q + u)) -eq 20 ] && [ "$d" -eq "$u" ]
}
sub "rcvbuf full: what is not queued is forwarded, counted in IPOPT_DROPS" t_full

# ---- options the kernel refuses never reach a socket
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_malformed() {
	local o
	bg "$R" mf "$IPO_TOOL" listen any - 5 20000 &&
		bg "$K" u9 "$IPO_TOOL" udprecv 9999 5 20000 || return 1
	# RR with its pointer below 4; an option of length 1; RA of length 3
	for o in 07030200 07010000 94030000 94040000; do
		ip netns exec "$S" "$IPO_TOOL" sendraw "$KIP" "$o" 1 || return 1
	done
	sleep 1
	stop mf && stop u9 || return 1
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[ "$(pkts mf)" -eq 1 ] && grep -q '^pkt 36 ' "$TMP/mf" && grep -qx 'udp 0' "$TMP/u9" ||
		{ cat "$TMP/mf" "$TMP/u9"; false; }
}
sub "malformed options (RR pointer, length 1, RA length 3): dropped by the kernel, not delivered" \
	t_malformed

# ---- ip_forward=0: nothing taken, nothing forwarded
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_noforward() {
	ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=0 || return 1
	bg "$R" nf "$IPO_TOOL" listen any - 3 20000 &&
		bg "$K" u4 "$IPO_TOOL" udprecv 9999 3 20000 &&
		send "$KIP" udp 3 64 && sleep 1 && stop u4 && stop nf || return 1
	ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[ "$(pkts nf)" -eq 0 ] && grep -qx 'udp 0' "$TMP/u4" || { cat "$TMP/nf" "$TMP/u4"; false; }
}
sub "ip_forward=0: no packet delivered to the socket or forwarded" t_noforward

# ---- over the egress MTU: never stolen (a raw socket could not send it)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_mtu() {
	ip -n "$R" link set r1 mtu 1000 || return 1
	bg "$R" mt "$IPO_TOOL" listen ra - 3 20000 &&
		bg "$K" u5 "$IPO_TOOL" udprecv 9999 3 20000 &&
		send "$KIP" udp 3 1200 && finished u5 && stop mt || return 1
	ip -n "$R" link set r1 mtu 1500
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[ "$(pkts mt)" -eq 0 ] && grep -qx 'udp 3' "$TMP/u5" || { cat "$TMP/mt" "$TMP/u5"; false; }
}
sub "packets over the egress MTU: not delivered, forwarded (fragmented)" t_mtu

# ---- IPOPT_RECVLOCAL: copies of local traffic, never stolen
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_local_in() {
	bg "$K" li "$IPO_TOOL" listen ra local,if 3 20000 &&
		bg "$K" nl "$IPO_TOOL" listen ra - 3 20000 &&
		bg "$K" u6 "$IPO_TOOL" udprecv 9999 3 20000 &&
		send "$KIP" udp 3 64 && finished li && finished u6 && stop nl || return 1
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[ "$(grep -c "^pkt 96 $K1IDX 17 [0-2] ok " "$TMP/li")" -eq 3 ] &&
		[ "$(pkts nl)" -eq 0 ] && grep -qx 'udp 3' "$TMP/u6" ||
		{ cat "$TMP/li" "$TMP/nl" "$TMP/u6"; false; }
}
sub "IPOPT_RECVLOCAL: copies of received packets (ifindex k1), delivered too; none without it" \
	t_local_in

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_local_out() {
	ip netns exec "$S" ethtool -k s0 | grep -q '^tx-checksumming: on' ||
		{ echo "s0 has no tx checksum offload"; return 1; }
	bg "$S" lo "$IPO_TOOL" listen ra local,if 3 20000 &&
		bg "$K" u7 "$IPO_TOOL" udprecv 9999 3 20000 &&
		send "$KIP" udp 3 64 && finished lo && finished u7 || return 1
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[ "$(grep -c '^pkt 96 0 17 [0-2] ok ok$' "$TMP/lo")" -eq 3 ] && grep -qx 'udp 3' "$TMP/u7" ||
		{ cat "$TMP/lo" "$TMP/u7"; false; }
}
sub "IPOPT_RECVLOCAL: copies of sent packets, UDP checksum final (CHECKSUM_PARTIAL)" t_local_out

# timestamps sent with the pointer at the last free slot (tsonly: 9 of
# 12; tsandaddr: 5 of 12), seen on S's way out before any hop fills it;
# K takes them (no ICMP, which would echo the option, comes back)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_ts_last_slot() {
	bg "$S" ts "$IPO_TOOL" listen ts local,if 4 20000 &&
		bg "$K" u9 "$IPO_TOOL" udprecv 9999 4 20000 &&
		ip netns exec "$S" "$IPO_TOOL" sendraw "$KIP" 440c09000000000000000000 2 &&
		ip netns exec "$S" "$IPO_TOOL" sendraw "$KIP" 440c05010000000000000000 2 &&
		finished ts && finished u9 || return 1
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[ "$(grep -c '^pkt 44 0 17 [0-1] ok ' "$TMP/ts")" -eq 4 ] && grep -qx 'udp 4' "$TMP/u9" ||
		{ cat "$TMP/ts" "$TMP/u9"; false; }
}
sub "IPOPT_RECVLOCAL ts: timestamps with the pointer at the last free slot delivered" t_ts_last_slot

# ---- who may open one
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "root: socket() works" eval '[ "$("$IPO_TOOL" create ra)" = ok ]'
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_nobody() {
	local out
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$IPO_TOOL" create ra)
	[ "$out" = "errno 1" ] || { echo "nobody: $out"; return 1; }
}
sub "nobody: socket() is EPERM" t_nobody
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_userns() {
	local out
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		unshare -r -n "$IPO_TOOL" create ra)
	[ "$out" = "errno 1" ] || { echo "root of a user namespace: $out"; return 1; }
}
sub "root of a user namespace (CAP_NET_RAW there only): EPERM" t_userns
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_rawonly() {
	local out
	out=$(setpriv --bounding-set -net_admin "$IPO_TOOL" create ra)
	[ "$out" = "errno 1" ] || { echo "CAP_NET_RAW without CAP_NET_ADMIN: $out"; return 1; }
}
sub "root with CAP_NET_RAW but not CAP_NET_ADMIN: EPERM" t_rawonly

# ---- a namespace deleted under an open socket
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_netns_del() {
	local x
	x=pgt-$(printf '%08x' "$SRANDOM")
	ip netns add "$x" || return 1
	bg "$x" hx "$IPO_TOOL" hold || { ip netns del "$x"; return 1; }
	ip netns del "$x" && kill -9 "$BG_PID" && wait "$BG_PID" 2>/dev/null
	# the namespace's exit runs once the socket closed
	sleep 1
	return 0
}
sub "netns deleted with a socket open, then the socket closed" t_netns_del

# ---- the module: held by sockets, the family number
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_rmmod() {
	bg "$R" h "$IPO_TOOL" hold || return 1
	if rmmod pf_ipoption 2>/dev/null; then
		echo "rmmod succeeded with a socket open"
		return 1
	fi
	kill -9 "$BG_PID"
	wait "$BG_PID" 2>/dev/null
	# retried, not once: the module's last reference from the socket
	# (its struct proto) goes when the sock is freed, which an skb still
	# holding it can delay past the process's end
	slowwait 30 rmmod pf_ipoption 2>/dev/null || {
		echo "rmmod 30 s after close still failed:"
		rmmod pf_ipoption
		return 1
	}
	ipo_load
}
sub "rmmod refused while a socket is open, works after close" t_rmmod

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_taken() {
	local before
	ipo_unload || return 1
	before=$(dmesg | wc -l)
	if insmod "$IPOPTION_KO" family=2 2>/dev/null; then
		echo "loaded with family=2"
		return 1
	fi
	dmesg | tail -n +"$((before + 1))" | grep -q 'family=2: socket family 2 is taken' ||
		{ echo "no dmesg line:"; dmesg | tail -n 5; return 1; }
	[ ! -e /sys/module/pf_ipoption ] || { echo "module left behind"; return 1; }
	insmod "$IPOPTION_KO" family=99 2>/dev/null && { echo "loaded with 99"; return 1; }
	ipo_load && grep -qx 25 /sys/module/pf_ipoption/parameters/family
}
sub "family=2 (PF_INET, taken): load fails with a dmesg line; default loads" t_taken

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_other_nr() {
	ipo_load family=27 || return 1
	[ "$(IPO_FAMILY=27 "$IPO_TOOL" create ra)" = ok ] &&
		[ "$(IPO_FAMILY=25 "$IPO_TOOL" create ra)" = "errno 97" ] || return 1
	ipo_unload && ipo_load
}
sub "family=27: the family answers there, 25 is EAFNOSUPPORT" t_other_nr

# each module loads and unloads without the other
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
t_alone() {
	pg_unload && ipo_load || return 1
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[ "$("$IPO_TOOL" create ra)" = ok ] && [ -e "$IPOPT" ] ||
		{ echo "pf_ipoption without pktgen: no socket or no $IPOPT"; return 1; }
	ipo_unload && pg_load || return 1
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[ "$("$IPO_TOOL" create ra)" = "errno 97" ] && [ ! -e "$IPOPT" ] ||
		{ echo "pktgen without pf_ipoption: a socket or $IPOPT"; return 1; }
	ipo_load
}
sub "pf_ipoption works with pktgen unloaded; pktgen alone has no family, no $IPOPT" t_alone

ktap_finish
