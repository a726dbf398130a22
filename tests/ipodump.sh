#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# suite: slow
#
# tools/ipodump against packets of known content: pktgen's ip_opt forms
# (and a raw-socket sender for RSVP and RTCP) sent through a router netns.
#
#   netns S                 netns R (ip_forward=1)              netns K
#   +-----------------+     +------------------------------+     +------------+
#   | pktgen on s0    |veth | r0 10.61.0.254  10.62.0.254 r1| veth| k0         |
#   | s0 10.61.0.1/24 |---->|  ipodump (family / listen)     |---->| 10.62.0.2  |
#   +-----------------+     +------------------------------+     | ipodump    |
#                                                                  +------------+
# Packets go to 10.63.0.2, routed by R via K; K does not forward (silent
# drop, no ICMP back), so the only option packets are the ones sent.  All
# neighbours are static: no ARP.  Every ipodump runs with a timeout.
#
#  1. --listen in R (-i, -c) and in K: every form decoded, before and
#     after the router (RR filled, TS stamped, source routes dropped);
#     one listener per filter selects only its type; -x, -s, -I
#  2. the default, PF_IPOPTION (protocol 0) in R: RR and RA packets, the
#     kernel forwards none (ForwDatagrams +0), ipodump prints and reinjects
#     each, K gets each once and in order; after kill -9 the kernel
#     forwards the next ones; -T rtcp (family, --timers) and --router-alert
#     -T rsvp take only their packets
#  2b. -T rr,local (IPOPT_RECVLOCAL): copies of RR packets to R and from
#     R printed, never reinjected (R delivers its own, K gets R's once);
#     -T rr,ra: a socket per type, a packet carrying both printed and
#     reinjected once, TS packets left to the kernel
#  3. NFQUEUE control (--nfqueue -T rr,ts through a stand-in control
#     file), errors, the -i IFNAME hint
#  4. --nfqueue -T rr with real packets through the classifier

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

IPOD=$(cd "$(dirname "$0")/.." && pwd)/tools/ipodump
IPS=10.61.0.1 IPR0=10.61.0.254 IPR1=10.62.0.254 IPK=10.62.0.2 DST=10.63.0.2
SIZE=200	# frame bytes: the IP packet (186) is longer than the default snaplen
lib_tmpdir >/dev/null
TMP=$_LIB_TMP
# python3 -S (no site): starting python costs seconds under TCG
RUN=(python3 -S "$IPOD")

# the forms sent, two packets each, in this order (label, ip_opt spec)
FORMS=(
	"rr rr:2"
	"tsonly ts:tsonly:3"
	"tsandaddr ts:tsandaddr:2"
	"prespec ts:prespec:$IPR0/10.9.9.9"
	"lsrr lsrr:$IPR1/$DST"
	"ssrr ssrr:$IPR0/$DST"
	"ra ra"
	"ra1234 ra:1234"
	"sec sec"
	"unknown hex:9e03ff01"
	"malformed hex:440c"
)
PER=2
FILTER_LIST="rr ts sec lsrr ssrr ra rsvp rtcp"

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_load && ipo_load || return 1
	router_create "$IPS" "$IPR0" "$IPR1" "$IPK" 10.63.0.0/24 || return 1
	tx_setup "$S" s0 &&
		tx_set "$S" s0 "count $PER" "pkt_size $SIZE" "dst $DST" "dst_mac $MR0" \
			"delay 2000000"
}

# ipod_start NAME NS ARGS...: ipodump in NS in the background (60 s at
# most), output in $TMP/NAME.out/.err, exit status in $TMP/NAME.rc;
# returns once it is listening.
ipod_start() {
	local name=$1 ns=$2
	shift 2
	(
		timeout 150 ip netns exec "$ns" "${RUN[@]}" "$@" >"$TMP/$name.out" \
			2>"$TMP/$name.err" &
		echo $! >"$TMP/$name.pid"
		wait $!
		echo $? >"$TMP/$name.rc"
	) &
	slowwait 5 test -s "$TMP/$name.pid"
	defer kill "$(<"$TMP/$name.pid")"
	IPOD_PIDS+=("$name")
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
ipod_ready() {	# every started ipodump says what it listens on (no fork:
	# it is polled while the pythons start)
	local n err
	for n in "${IPOD_PIDS[@]}"; do
		[ -e "$TMP/$n.err" ] || return 1
		err=$'\n'$(<"$TMP/$n.err")
		[[ $err == *$'\n'"ipodump: listening"* ||
		   $err == *$'\n'"ipodump: intercepting"* ]] || return 1
	done
}

ipod_started() {	# LABEL: wait for them; else show what they said
	local n
	slowwait 120 ipod_ready && { ktap_pass "$1"; return; }
	ktap_fail "$1" "$(for n in "${IPOD_PIDS[@]}"; do
		echo "$n: rc $(cat "$TMP/$n.rc" 2>/dev/null): $(cat "$TMP/$n.err")"; done)"
}

# ipod_stop NAME...: SIGTERM to the timeout of those still running (it
# passes it on to ipodump, which prints its summary), wait for the status.
ipod_stop() {
	local n
	for n in "$@"; do
		[ -e "$TMP/$n.rc" ] || kill -TERM "$(cat "$TMP/$n.pid")" 2>/dev/null
	done
	for n in "$@"; do
		slowwait 20 test -e "$TMP/$n.rc"
	done
}

send_forms() {	# each form, $PER packets
	local f
	for f in "${FORMS[@]}"; do
		tx_set "$S" s0 "ip_opt ${f#* }" && tx_run "$S" || return 1
	done
}

# send_raw PROTO:OPTHEX:COUNT[:PAYLOADHEX]...: IPv4 packets with options
# from S by a raw IP_HDRINCL socket (pktgen only sends UDP), ids from 1000
# per group; UDP gets ports 5004 > 5005.  One python for all groups.
send_raw() {
	ip netns exec "$S" python3 -S "$LIB_DIR/ipv4_raw.py" "$IPS" "$DST" "$@"
}

k_rx() { dev_stat "$K" k0 rx_packets && echo "$STAT"; }
r_snmp() {	# FIELD: an Ip: counter of R
	local names values i re=$'(^|\n)Ip: ([A-Z][^\n]*)\nIp: ([^\n]*)'
	ns_read "$R" /proc/net/snmp && [[ $NS_TEXT =~ $re ]] || return 1
	read -ra names <<<"${BASH_REMATCH[2]}"
	read -ra values <<<"${BASH_REMATCH[3]}"
	for i in "${!names[@]}"; do
		[ "${names[i]}" = "$1" ] && echo "${values[i]}"
	done
}


# chk MODE ARGS...: queue a checker run; chk_run: run them all in one
# python (each start costs seconds under TCG), report as KTAP
CHECKS=""
chk() { local IFS=$'\t'; CHECKS+="$*"$'\n'; }
chk_run() { ktap_report < <(python3 -S "$LIB_DIR/ipodump_check.py" batch "$CHECKS" 2>&1); CHECKS=""; }

# has LABEL FILE REGEX: FILE matches (grep -E), else show it
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
has() { grep -qE -- "$2" "$1" || { echo "no /$2/ in $1:"; cat "$1"; false; }; }

ktap_header
ktap_plan 75

ktap_setup setup

# ------------------------------------------------------------ 1. listening
NR=$(( ${#FORMS[@]} * PER ))
IPOD_PIDS=()
ipod_start r_all "$R" --listen -i -c "$NR"
ipod_start k_all "$K" --listen -c 16	# the forms R forwards: rr ts x3 ra x2 sec unknown
ipod_start f_rr "$R" --listen -I r0 rr
ipod_start f_ra "$R" --listen -x ra
ipod_start f_sec "$R" --listen -x -s 40 sec
for f in ts lsrr ssrr rsvp rtcp; do
	ipod_start "f_$f" "$R" --listen "$f"
done
ipod_started "10 listeners started (packet socket + BPF)"
ktap_diag "listeners ready after ${SECONDS}s"
# section 3's runs, in the background while section 1 sends (each python
# start takes seconds under TCG)
err_run() {	# NAME [PRE...] -- ARGS...: ipodump in R, stderr and status kept
	local name=$1 pre=()
	shift
	while [ "$1" != -- ]; do pre+=("$1"); shift; done
	shift
	( ip netns exec "$R" "${pre[@]}" "$@" >/dev/null 2>"$TMP/e_$name.err"
	  echo $? >"$TMP/e_$name.rc" ) &
	ERR_RUNS+=" $name"
}
ERR_RUNS=""
NOPRIV=(setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps=-all)
FAMILY=/sys/module/pf_ipoption/parameters/family
err_run noctl env IPODUMP_IPOPT="$TMP/nosuch" -- "${RUN[@]}" --nfqueue -T rr
err_run hint -- "$IPOD" -i eth1		# by its #! line
err_run nofam env IPODUMP_FAMILY="$TMP/nosuch" -- "${RUN[@]}" -c 1
# the errors found before any socket opens: one python for all of them
( ip netns exec "$R" python3 -S "$LIB_DIR/ipodump_argv.py" "$IPOD" "$TMP" \
	"filter=bogus" "mixed=--router-alert -T ra,rr" "count=-c x" \
	"noif=-I nosuch0" "ifword=r0" >"$TMP/argv.log" 2>&1 ) &
ERR_RUNS+=" filter mixed count noif ifword"
if command -v setpriv >/dev/null; then
	if [ -e "$FAMILY" ]; then
		err_run nopriv "${NOPRIV[@]}" -- "${RUN[@]}" -c 1
	else	# the stock module: the packet socket's check
		err_run nopriv "${NOPRIV[@]}" -- "${RUN[@]}" --listen -c 1
	fi
fi
CTL=$TMP/ipopt-ctl
: >"$CTL"
IPODUMP_IPOPT=$CTL ipod_start q "$R" --nfqueue -T rr,ts -Q 5

send_forms >"$TMP/send.log" 2>&1
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "sent ${#FORMS[@]} ip_opt forms x $PER with pktgen" eval '! grep . "$TMP/send.log" || { cat "$TMP/send.log"; false; }'
# RSVP with RA, RTCP (SR) with RA, plain UDP with RA: for rsvp/rtcp filters
send_raw 46:94040000:2 17:94040000:2:80c8000600000000 17:94040000:2:0102030405060708
check "-c $NR: ipodump in R exits by itself after $NR packets" \
	slowwait 30 test -e "$TMP/r_all.rc"
sleep 1
# shellcheck disable=SC2046	# one name per filter: split on purpose
# shellcheck disable=SC2046,SC2086 # one word a filter
ipod_stop r_all k_all $(printf 'f_%s ' $FILTER_LIST)
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "ipodump in R: exit 0, '$NR packets printed'" eval '
	[ "$(cat "$TMP/r_all.rc")" = 0 ] && has "$TMP/r_all.err" "^ipodump: $NR packets printed$"'
chk forms "$TMP" "$IPR0" "$IPR1" "$DST"
declare -A FWANT=([rr]=2 [ts]=8 [sec]=2 [lsrr]=2 [ssrr]=2 [ra]=10 [rsvp]=2 [rtcp]=2)
for f in $FILTER_LIST; do
	chk filter "$TMP/f_$f.out" "$f" "${FWANT[$f]}"
done
chk_run
for f in r_all k_all f_sec; do	# samples for Documentation/ipodump.rst
	ktap_diag "$f:"$'\n'"$(cat "$TMP/$f.out")"
done

ktap_diag "section 1 done after ${SECONDS}s"

# ------------------------------------------------------------ 2. PF_IPOPTION
# The default in R: one protocol 0 socket takes every option packet the
# kernel is about to forward (after its TTL decrement); ipodump prints it
# and reinjects it as it is.  Beside it, a family socket for RTCP with
# router alert (--timers) and an IP_ROUTER_ALERT socket for RSVP, idle
# until the raw packets of the last part.  One start for all four.
N=20
SEC2_CHECKS=10
fam_section() {
	local k0 f0 k1 f1 pid
	tx_set "$S" s0 "count $N" >/dev/null
	IPOD_PIDS=()
	ipod_start t_fam "$R" -i
	ipod_start k_fam "$K" --listen -c $((3 * N))
	ipod_start t_rtcp "$R" -T rtcp -c 3 --timers
	ipod_start t_rsvp "$R" --router-alert -T rsvp -c 3
	ipod_started "PF_IPOPTION (default, -T rtcp --timers), --router-alert -T rsvp in R, --listen in K started"
	k0=$(k_rx) f0=$(r_snmp ForwDatagrams)
	tx_set "$S" s0 "ip_opt rr:2" && tx_run "$S" &&
		tx_set "$S" s0 "ip_opt ra" && tx_run "$S"
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	slowwait 30 eval '[ "$(grep -c "^[0-9]" "$TMP/t_fam.out")" -ge $((2 * N)) ] &&
		[ $(( $(k_rx) - k0 )) -ge $((2 * N)) ]'
	sleep 1
	k1=$(k_rx) f1=$(r_snmp ForwDatagrams)
	# (ForwDatagrams is no witness here: since 6.6 or so the kernel counts
	# it before the FORWARD hook; the RR slots are, below)
	ktap_diag "while intercepted: ForwDatagrams +$((f1 - f0))"
	check "while intercepted: ipodump printed $((2 * N)), K got $((2 * N)) (+$((k1 - k0))): none forwarded twice" \
		test "$(grep -c "^[0-9]" "$TMP/t_fam.out")" -eq $((2 * N)) -a $((k1 - k0)) -eq $((2 * N))
	# at FORWARD the TTL is decremented and the RR slot holds the address
	# of the interface the packet came in on (ip_options_compile() wrote it
	# on input); the kernel's own forwarding writes the outgoing one
	# (ip_forward_options(), after the hook): ipodump reinjects as it is
	chk inorder "$TMP/t_fam.out" "PF_IPOPTION in R: the $N RR then $N RA packets printed once each, in order (r0, ttl 31)" \
		"$N" " r0 10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, len 186, ttl 31, .* \| rr len 11 ptr 8: 10\.61\.0\.254 \^0\.0\.0\.0" \
		"$N" " r0 10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, len 186, ttl 31, .* \| ra len 4 value 0 "
	# kill -9: no summary, no cleanup in ipodump; the socket's close puts
	# forwarding back in the kernel, so the very next packet is forwarded
	pid=$(pgrep -P "$(cat "$TMP/t_fam.pid")")
	kill -KILL "$pid"
	slowwait 10 test -e "$TMP/t_fam.rc"
	k0=$(k_rx) f0=$(r_snmp ForwDatagrams)
	tx_set "$S" s0 "ip_opt rr:2" && tx_run "$S"
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	slowwait 10 eval '[ $(( $(k_rx) - k0 )) -ge $N ] && test -e "$TMP/k_fam.rc"'
	k1=$(k_rx) f1=$(r_snmp ForwDatagrams)
	check "kill -9 of ipodump (rc $(cat "$TMP/t_fam.rc")): the next $N packets forwarded by the kernel (ForwDatagrams +$((f1 - f0)), K +$((k1 - k0)))" \
		test "$(cat "$TMP/t_fam.rc")" = 137 -a $((f1 - f0)) -eq "$N" -a $((k1 - k0)) -eq "$N"
	chk inorder "$TMP/k_fam.out" "at K: each packet once, in order (consecutive ids), ttl 31: $N RR and $N RA as reinjected (r0's address), then $N RR the kernel forwarded (r1's)" \
		"$N" "^\S+ 10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, len 186, ttl 31, .* \| rr len 11 ptr 8: 10\.61\.0\.254 \^0\.0\.0\.0" \
		"$N" "^\S+ 10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, len 186, ttl 31, .* \| ra len 4 value 0 " \
		"$N" "^\S+ 10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, len 186, ttl 31, .* \| rr len 11 ptr 8: 10\.62\.0\.254 \^0\.0\.0\.0"
	k0=$(k_rx) f0=$(r_snmp ForwDatagrams)
	# UDP + RA but not RTCP (forwarded by the kernel), RSVP, RTCP RR
	send_raw 17:94040000:3:0102030405060708 46:94040000:3 17:94040000:3:81c9000700000000
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	slowwait 30 eval 'test -e "$TMP/t_rsvp.rc" && test -e "$TMP/t_rtcp.rc"'
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	slowwait 5 eval '[ $(( $(k_rx) - k0 )) -ge 9 ]'
	k1=$(k_rx) f1=$(r_snmp ForwDatagrams)
	chk intercept "$TMP/t_rsvp.out" "--router-alert -T rsvp: 3 RSVP packets printed (ttl 32: before forwarding)" 3 \
		": rsvp, len 32, ttl 32, id 100[012], optlen 4 \| ra len 4 value 0"
	chk intercept "$TMP/t_rtcp.out" "-T rtcp (IP_RECVRTCP): only the 3 RTCP packets printed (ttl 31)" 3 \
		": udp 5004 > 5005 rtcp, len 40, ttl 31, id 100[012], .* \| ra len 4 value 0"
	chk timers "$TMP/t_rtcp.err" 3
	chk_run
	ktap_diag "t_fam:"$'\n'"$(head -n 4 "$TMP/t_fam.out")"$'\n'"t_rtcp:"$'\n'"$(cat "$TMP/t_rtcp.out" "$TMP/t_rtcp.err")"
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	check "-c 3: both exit 0 by themselves; -T rtcp and --router-alert -T rsvp: 3 reinjected each" eval '
		[ "$(cat "$TMP/t_rtcp.rc")$(cat "$TMP/t_rsvp.rc")" = 00 ] &&
		has "$TMP/t_rtcp.err" "^ipodump: 3 packets printed, 3 reinjected, 0 dropped$" &&
		has "$TMP/t_rsvp.err" "^ipodump: 3 packets printed, 3 reinjected, 0 dropped$"'
	# 3 + 3 reinjected: K gets 9 only if the kernel forwarded exactly the
	# other 3 (ForwDatagrams +$((f1 - f0)): see above)
	check "K got all 9 once (+$((k1 - k0))): 3 RSVP and 3 RTCP reinjected, the 3 other UDP forwarded by the kernel" \
		test $((k1 - k0)) -eq 9
}

# ------------------------------------------------------------ 2b. -T local, -T rr,ra
# -T rr,local: RR packets forwarded by R (taken, printed, reinjected), sent
# to R (r0's address, a UDP socket on port 9 there: no ICMP error, which
# would echo the RR option) and sent by R (a raw socket in R): those two
# are R's own, printed as copies and never reinjected.  A copy reinjected
# would reach K twice (R's) or be lost to R's socket (to R).
LOC_CHECKS=6
loc_section() {
	local n=5 k0 k1 fwd to from
	tx_set "$S" s0 "count $n" "ip_opt rr:2" >/dev/null
	IPOD_PIDS=()
	ipod_start t_loc "$R" -i -T rr,local -c $((3 * n))
	ipod_start k_loc "$K" --listen -c $((2 * n)) rr
	# shellcheck disable=SC2016	# python, not shell
	timeout 150 ip netns exec "$R" python3 -S -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 9))
print("bound", flush=True)
for i in range(int(sys.argv[2])):
    s.recv(2048)
print("got", sys.argv[2], flush=True)' "$IPR0" "$n" >"$TMP/udp9.out" 2>&1 &
	defer kill "$!"
	slowwait 120 grep -q bound "$TMP/udp9.out"
	ipod_started "-T rr,local in R, an rr listener in K, a UDP socket on $IPR0:9 in R, started"
	k0=$(k_rx)
	tx_run "$S" && tx_set "$S" s0 "dst $IPR0" && tx_run "$S" &&
		ip netns exec "$R" python3 -S "$LIB_DIR/ipv4_raw.py" "$IPR1" "$DST" \
			"17:070b04000000000000000000:$n"
	tx_set "$S" s0 "dst $DST" >/dev/null
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	slowwait 30 eval 'test -e "$TMP/t_loc.rc" && test -e "$TMP/k_loc.rc"'
	sleep 1
	k1=$(k_rx)
	ipod_stop t_loc k_loc
	ktap_diag "t_loc:"$'\n'"$(cat "$TMP/t_loc.out" "$TMP/t_loc.err")"
	check "-T rr,local: exits by itself (rc $(cat "$TMP/t_loc.rc")), '$((3 * n)) packets printed, $n reinjected'" \
		has "$TMP/t_loc.err" "^ipodump: $((3 * n)) packets printed, $n reinjected, 0 dropped$"
	fwd=$(grep -cE "^\S+ r0 10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, .*ttl 31, .*optlen 12$" "$TMP/t_loc.out")
	to=$(grep -cE "^\S+ r0 10\.61\.0\.1 > 10\.61\.0\.254: udp 9 > 9, .*ttl 32, .*optlen 12$" "$TMP/t_loc.out")
	from=$(grep -cE "^\S+ \S+ 10\.62\.0\.254 > 10\.63\.0\.2: udp 5004 > 5005.*, ttl 32, id 100[0-4], optlen 12$" "$TMP/t_loc.out")
	check "-T rr,local printed $n forwarded ($fwd), $n to R ($to), $n from R ($from)" \
		test "$fwd" -eq "$n" -a "$to" -eq "$n" -a "$from" -eq "$n"
	check "to R: R's UDP socket got all $n (delivered, not taken)" \
		slowwait 10 grep -qx "got $n" "$TMP/udp9.out"
	check "K got $((2 * n)) (+$((k1 - k0))): the forwarded once, R's own once (not reinjected)" \
		test $((k1 - k0)) -eq $((2 * n))
	chk intercept "$TMP/k_loc.out" "at K: $n forwarded (ttl 31) and $n of R's (ttl 32), nothing else" \
		$((2 * n)) "^\S+ (10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, .*ttl 31, |10\.62\.0\.254 > 10\.63\.0\.2: udp 5004 > 5005.*ttl 32, id 100[0-4], )"
	chk_run
}

# -T rr,ra: two sockets; RR, RA, then RR+RA packets (one packet on both
# sockets), then TS (neither: the kernel forwards them).  Printed and
# reinjected once each, in order; a twin reinjected twice would reach K
# twice.
MULTI_CHECKS=5
multi_section() {
	local n=5 k0 k1
	tx_set "$S" s0 "count $n" >/dev/null
	IPOD_PIDS=()
	ipod_start t_multi "$R" -i -T rr,ra -c $((3 * n))
	ipod_start k_multi "$K" --listen -c $((4 * n))
	ipod_started "-T rr,ra in R, a listener in K, started"
	k0=$(k_rx)
	tx_set "$S" s0 "ip_opt rr:2" && tx_run "$S" &&
		tx_set "$S" s0 "ip_opt ra" && tx_run "$S" &&
		tx_set "$S" s0 "ip_opt rr:2,ra" && tx_run "$S" &&
		tx_set "$S" s0 "ip_opt ts:tsonly:3" && tx_run "$S"
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	slowwait 30 eval 'test -e "$TMP/t_multi.rc" && test -e "$TMP/k_multi.rc"'
	sleep 1
	k1=$(k_rx)
	ipod_stop t_multi k_multi
	ktap_diag "t_multi:"$'\n'"$(head -n 4 "$TMP/t_multi.out")"$'\n'"$(cat "$TMP/t_multi.err")"
	check "-T rr,ra: exits by itself (rc $(cat "$TMP/t_multi.rc")), '$((3 * n)) packets printed, $((3 * n)) reinjected'" \
		has "$TMP/t_multi.err" "^ipodump: $((3 * n)) packets printed, $((3 * n)) reinjected, 0 dropped$"
	check "K got $((4 * n)) (+$((k1 - k0))): RR, RA and RR+RA reinjected once each, TS forwarded" \
		test $((k1 - k0)) -eq $((4 * n))
	chk inorder "$TMP/t_multi.out" "-T rr,ra in R: $n RR, $n RA, $n RR+RA printed once each, in order, no TS" \
		"$n" " r0 10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, .*ttl 31, .*optlen 12 \| rr len 11 ptr 8: 10\.61\.0\.254 \^0\.0\.0\.0 eol$" \
		"$n" " r0 10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, .*ttl 31, .*optlen 4 \| ra len 4 value 0 " \
		"$n" " r0 10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, .*ttl 31, .*optlen 16 \| rr len 11 ptr 8: 10\.61\.0\.254 \^0\.0\.0\.0 ra len 4 value 0 "
	chk inorder "$TMP/k_multi.out" "at K: each once, in order: $n RR, $n RA, $n RR+RA as reinjected, $n TS as R forwarded it" \
		"$n" "^\S+ 10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, .*ttl 31, .*\| rr len 11 ptr 8: 10\.61\.0\.254 \^0\.0\.0\.0 eol$" \
		"$n" "^\S+ 10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, .*ttl 31, .*\| ra len 4 value 0 " \
		"$n" "^\S+ 10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, .*ttl 31, .*\| rr len 11 ptr 8: 10\.61\.0\.254 \^0\.0\.0\.0 ra len 4 value 0 " \
		"$n" "^\S+ 10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, .*ttl 31, .*\| ts len 16 ptr 9 "
	chk_run
}

if [ -e "$FAMILY" ]; then
	fam_section
	loc_section
	multi_section
else
	for i in $(seq "$SEC2_CHECKS"); do
		ktap_skip "PF_IPOPTION ($i)" "no $FAMILY (stock pktgen)"
	done
	for i in $(seq $((LOC_CHECKS + MULTI_CHECKS))); do
		ktap_skip "PF_IPOPTION -T local, -T rr,ra ($i)" "no $FAMILY (stock pktgen)"
	done
fi

ktap_diag "section 2 done after ${SECONDS}s"

# ------------------------------------------------------------ 3. NFQUEUE, errors
# (started in the background at the beginning: python is slow under TCG)
slowwait 60 grep -q "^ipodump: intercepting" "$TMP/q.err"
ipod_stop q
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
err_is() {	# NAME RC REGEX: what the error run NAME printed and returned
	grep -qx "$2" "$TMP/e_$1.rc" 2>/dev/null && grep -qE -- "$3" "$TMP/e_$1.err" && return 0
	echo "rc $(cat "$TMP/e_$1.rc" 2>/dev/null) (want $2): $(cat "$TMP/e_$1.err" 2>/dev/null) (want /$3/)"
	return 1
}
# (a function: an "exit" in slowwait's eval would end the test itself)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
err_runs_done() {
	local n
	for n in $ERR_RUNS; do
		[ -e "$TMP/e_$n.rc" ] || return 1
	done
}
slowwait 60 err_runs_done
check "--nfqueue -T rr without the classifier's file: says so, exit 1" \
	err_is noctl 1 "^ipodump: $TMP/nosuch not found: -T rr needs the IPv4 option classifier \(modprobe pf_ipoption\)"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "--nfqueue -T rr,ts -Q 5: NFQUEUE 5 bound over netlink, verdicts set, restored on SIGTERM" eval '
	has "$TMP/q.err" "^ipodump: intercepting rr,ts \(.* verdict queue:5, NFQUEUE\)" &&
	has "$TMP/q.err" "^ipodump: 0 packets printed, 0 accepted" &&
	[ "$(cat "$CTL")" = "$(printf "on\nverdict rr queue:5\nverdict ts queue:5\nverdict rr accept\nverdict ts accept")" ] ||
	{ cat "$CTL"; false; }'
check "tcpdump's habit, -i eth1 (run by its #! line): the -I hint, exit 2" \
	err_is hint 2 "^ipodump: -i takes no interface: .*; to take packets from eth1 only, use -I eth1$"
check "an interface name as a filter (r0): the -I hint, exit 2" \
	err_is ifword 2 '^ipodump: "r0" is an interface, not a filter: .* use -I r0$'
check "bad filter: exit 2" err_is filter 2 '^ipodump: bad filter "bogus"'
check "--router-alert -T ra,rr: bad expression, exit 2" \
	err_is mixed 2 '^ipodump: bad expression "ra,rr" \(--router-alert: ra rsvp rtcp\)'
check "bad count: exit 2" err_is count 2 '^ipodump: bad count "x"'
check "no such interface: exit 1" err_is noif 1 '^ipodump: no such interface: nosuch0'
check "no PF_IPOPTION (the parameter file missing): names the cause and the fallbacks, exit 1" \
	err_is nofam 1 "^ipodump: PF_IPOPTION not available: no $TMP/nosuch \(pf_ipoption.ko is not loaded\); without it: --listen .*--router-alert .*--nfqueue"
if command -v setpriv >/dev/null; then
	if [ -e "$FAMILY" ]; then
		check "unprivileged (setpriv nobody): 'needs CAP_NET_RAW and CAP_NET_ADMIN', exit 1" \
			err_is nopriv 1 "^ipodump: needs CAP_NET_RAW and CAP_NET_ADMIN \(PF_IPOPTION\)$"
	else
		check "unprivileged --listen (setpriv nobody): 'needs CAP_NET_RAW', exit 1" \
			err_is nopriv 1 "^ipodump: needs CAP_NET_RAW$"
	fi
else
	ktap_skip "unprivileged" "no setpriv"
fi

# ------------------------------------------------------------ 4. NFQUEUE, real packets
# -T rr through pktgen's classifier in R: while ipodump is stopped (SIGSTOP)
# the RR packets wait in NFQUEUE 7 and K gets only the TS packets sent
# beside them; once it runs again it prints and accepts them, and the
# kernel forwards each once (R records its address).
NFQ_CHECKS=9
ipopt_r() {	# KEY: a value of R's classifier (display script)
	ip netns exec "$R" sh -c 'echo "display script" >/proc/net/ipopt &&
		cat /proc/net/ipopt' | sed -n "s/^$1=//p"
}
if ! ip netns exec "$R" test -e /proc/net/ipopt; then
	for i in $(seq "$NFQ_CHECKS"); do
		ktap_skip "NFQUEUE with real packets ($i)" "no IPv4 option classifier (stock pktgen)"
	done
	ktap_finish
fi
N=20
IPOD_PIDS=()
ipod_start q_rr "$R" -i --nfqueue -T rr -Q 7 -c "$N"
ipod_start k_rr "$K" --listen -c "$N" rr
ipod_started "-T rr -Q 7 through the classifier in R, and an rr listener in K, started"
qpid=$(pgrep -P "$(cat "$TMP/q_rr.pid")")
kill -STOP "$qpid"
k0=$(k_rx) f0=$(r_snmp ForwDatagrams) q0=$(ipopt_r total.queued)
tx_set "$S" s0 "ip_opt rr:2" "count $N" && tx_run "$S" &&
	tx_set "$S" s0 "ip_opt ts:tsonly:3" && tx_run "$S"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
slowwait 10 eval '[ $(( $(k_rx) - k0 )) -ge $N ]'
sleep 1
k1=$(k_rx) f1=$(r_snmp ForwDatagrams) q1=$(ipopt_r total.queued)
check "ipodump stopped: K got the $N TS packets only (+$((k1 - k0))), R forwarded $N (+$((f1 - f0)))" \
	test $((k1 - k0)) -eq "$N" -a $((f1 - f0)) -eq "$N"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "classifier in R: the $N RR packets queued (total.queued +$((q1 - q0))), verdict.rr=queue:7 bypass" \
	eval '[ $((q1 - q0)) -eq "$N" ] && [ "$(ipopt_r verdict.rr)" = "queue:7 bypass" ]'
kill -CONT "$qpid"
check "ipodump runs again: exits by itself after $N packets" slowwait 30 test -e "$TMP/q_rr.rc"
slowwait 10 test -e "$TMP/k_rr.rc"
k2=$(k_rx) f2=$(r_snmp ForwDatagrams)
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "-T rr: exit 0, '$N packets printed, $N accepted'" eval '
	[ "$(cat "$TMP/q_rr.rc")" = 0 ] &&
	has "$TMP/q_rr.err" "^ipodump: $N packets printed, $N accepted$"'
check "accepted: K got each RR packet once (+$((k2 - k1))), forwarded by R's kernel (+$((f2 - f1)))" \
	test $((k2 - k1)) -eq "$N" -a $((f2 - f1)) -eq "$N"
chk intercept "$TMP/q_rr.out" "-T rr: the $N queued packets printed (r0, ttl 32, RR empty)" \
	"$N" " r0 10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, len 186, ttl 32, .* \| rr len 11 ptr 4: \^0\.0\.0\.0 0\.0\.0\.0"
chk intercept "$TMP/k_rr.out" "at K: ttl 31, R's address $IPR1 recorded, pointer 8" \
	"$N" "^\S+ 10\.61\.0\.1 > 10\.63\.0\.2: udp 9 > 9, len 186, ttl 31, .* \| rr len 11 ptr 8: 10\.62\.0\.254 \^0\.0\.0\.0"
chk_run
ktap_diag "q_rr:"$'\n'"$(head -n 4 "$TMP/q_rr.out")"$'\n'"$(cat "$TMP/q_rr.err")"
k0=$(k_rx)
tx_set "$S" s0 "ip_opt rr:2" && tx_run "$S"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
slowwait 10 eval '[ $(( $(k_rx) - k0 )) -ge $N ]'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "after ipodump exits: verdict.rr=accept again, RR forwarded (K +$(( $(k_rx) - k0 )))" \
	eval '[ "$(ipopt_r verdict.rr)" = accept ] && [ $(( $(k_rx) - k0 )) -eq "$N" ]'

ktap_finish
