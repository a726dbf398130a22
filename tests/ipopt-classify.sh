#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The IPv4 option classifier (/proc/net/ipopt): exact counts per
# option type and per ingress interface on a router, packets without
# options counted nowhere and still forwarded, verdicts (drop, queue, which
# always bypasses a queue nobody listens on, the first non-accept type in
# packet order), reset,
# off, the write errors, and the lifecycle: the counted veth deleted, a
# namespace deleted, rmmod, all while on and with packets arriving.
#
#   netns S                    netns R (ip_forward=1)              netns K
#   +-----------------+        +----------------------------+        +----------------+
#   | pktgen s0@1..n  |  veth  | r0 10.97.1.2   10.97.2.1 r1 |  veth  | k1 10.97.2.2   |
#   | s0 10.97.1.1    |<------>|   ipopt on (PRE_ROUTING)   |<------>| pgrx: rx k1    |
#   | pgrx: rx s0     |        +----------------------------+        | pktgen k1@1    |
#   | y0 (case 8) ----|-- veth -- netns X: x0, ipopt on, deleted     +----------------+
#   +-----------------+
#
# The sender makes one pktgen device per option form (s0@1, s0@2, ...),
# each with its own count, and runs them in one start.  The sink's pgrx
# consumes what arrives (no ICMP comes back) and counts it.

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

SIP=10.97.1.1 R0IP=10.97.1.2 R1IP=10.97.2.1 KIP=10.97.2.2
# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
SPLAT='RIP:|Call Trace:|\] WARNING:|WARNING: CPU:|BUG:|ref_tracker:|unreferenced object|general protection|KASAN|UBSAN|unregister_netdevice: waiting'

# ---- helpers

# ip_snap: R's ipopt (display script) into IP_TEXT.
ip_snap() { IP_TEXT=$(in_ns "$R" pg_read "$IPOPT"); }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
ip_val() { sed -n "s/^$1=//p" <<<"$IP_TEXT"; }

# ip_row ROW rr ts lsrr ssrr sec ra ra_other other malformed any: every
# type of ROW (an interface, or "total") has exactly these counts.
TYPES="rr ts lsrr ssrr sec ra ra_other other malformed any"
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
ip_row() {
	local row=$1 t pairs=()
	shift
	for t in $TYPES; do
		pairs+=("$row.$t" "$1")
		shift
	done
	kv_expect "$IP_TEXT" "${pairs[@]}"
}

# ip_expect KEY VALUE...: as rx_expect, on IP_TEXT.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
ip_expect() { kv_expect "$IP_TEXT" "$@"; }

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
ip_cmd() { in_ns "$R" pg_set "$IPOPT" "$1"; }

# ip_errno CMD ERRNO PATTERN: the write fails with ERRNO, Result matches.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
ip_errno() { pg_refuses "$R" "$IPOPT" "$1" "$2" "$3"; }

# devices NS THREAD DEV DST DSTMAC SPEC=COUNT...: one pktgen device per
# ip_opt spec on DEV (DEV@1, DEV@2, ...), replacing the thread's devices.
devices() {
	local ns=$1 thr=$2 dev=$3 dst=$4 mac=$5 item c i=0
	shift 5
	in_ns "$ns" pg_write "$thr" "rem_device_all" || return 1
	for item in "$@"; do
		i=$((i + 1))
		in_ns "$ns" pg_write "$thr" "add_device $dev@$i" || return 1
		# errno only (half the calls of pg_set: this runs ~40 times)
		for c in "count ${item##*=}" "dst $dst" "dst_mac $mac" "ip_opt ${item%=*}"; do
			in_ns "$ns" pg_write "$dev@$i" "$c" ||
				{ echo "$dev@$i: '$c' failed: errno $?"; return 1; }
		done
	done
}

# send SPEC=COUNT...: from S through R to K, in one run, the sink's
# counters reset first (check runs it in a subshell: state stays in pgrx).
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
send() {
	devices "$S" "$STHR" s0 "$KIP" "$R0MAC" "$@" || return 1
	rx_cmd "$K" rx_reset || return 1
	tx_run "$S"
}

# sink_is N: the sink received exactly N pktgen packets since the send.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
sink_is() {
	local got
	rx_snap "$K"
	got=$(rx_val rx_packets)
	[ "$got" = "$1" ] || { echo "sink received $got, want $1"; return 1; }
}

# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
ip_hdr_errors() { ip netns exec "$R" awk '/^Ip: [0-9]/ { print $5 }' /proc/net/snmp; }

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_load && ipo_load || return 1
	setup_ns S R K || return 1
	veth_create "$S" s0 "$R" r0 && veth_create "$R" r1 "$K" k1 || return 1
	ip -n "$S" addr add "$SIP/24" dev s0 && ip -n "$R" addr add "$R0IP/24" dev r0 &&
		ip -n "$R" addr add "$R1IP/24" dev r1 && ip -n "$K" addr add "$KIP/24" dev k1 ||
		return 1
	ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv4.conf.all.accept_source_route=0 || return 1
	R0MAC=$(mac_of "$R" r0) R1MAC=$(mac_of "$R" r1)
	# static neighbours: nothing but the test's packets on the wire
	ip -n "$R" neigh add "$KIP" lladdr "$(mac_of "$K" k1)" dev r1 nud permanent &&
		ip -n "$R" neigh add "$SIP" lladdr "$(mac_of "$S" s0)" dev r0 nud permanent ||
		return 1
	STHR=$(pg_first_thread "$S") && KTHR=$(pg_first_thread "$K") || return 1
	# both ends consume pktgen packets: no ICMP (with echoed options) back
	rx_cmd "$S" "rx s0" && rx_cmd "$K" "rx k1" && rx_cmd "$K" "display script"
}

if ! pg_is_ours; then
	ktap_header
	ktap_plan 1
	ktap_skip "ipopt" "the senders need ours (ip_opt)"
	ktap_finish
fi

ktap_header
ktap_plan 57
# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
DMESG0=$(dmesg | wc -l)

ktap_setup setup

# 1. the file before use
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "ipopt exists, off, Result Idle" eval '
	t=$(in_ns "$R" pg_read "$IPOPT")
	grep -q "^IPv4 option classifier: off  interfaces: 0/32" <<<"$t" &&
	grep -q "^Result: Idle$" <<<"$t" || { echo "$t"; false; }'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "display script (trailing NUL): OK" eval '
	in_ns "$R" pg_write_raw "$IPOPT" "display script\0" &&
	[ "$(in_ns "$R" pg_result "$IPOPT")" = "OK: display=script" ]'
check "on: OK" ip_cmd on

# 2. one run of every form: counts per type on r0, nothing elsewhere
hdr0=$(ip_hdr_errors)
check "send every option form (1055 packets)" send \
	"ra=110" "ra:1=120" "rr:3=130" "ts:tsonly:2=140" "lsrr:$R0IP/$KIP=150" \
	"ssrr:$R0IP/$KIP=60" "sec=70" "hex:07020400=80" "hex:0707020000000000=45" \
	"hex:0a03ff00=35" "ra,rr:2=25" "none=90"
ip_snap
check "r0: rr 155 ts 140 lsrr 150 ssrr 60 sec 70 ra 135 ra_other 120 other 35 malformed 125 any 965" \
	ip_row r0 155 140 150 60 70 135 120 35 125 965
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "totals equal r0's; one interface; enabled=1; nothing dropped or queued" eval '
	ip_row total 155 140 150 60 70 135 120 35 125 965 &&
	ip_expect enabled 1 interfaces 1 r0.ifindex "$(ip netns exec "$R" cat /sys/class/net/r0/ifindex)" \
		total.dropped 0 total.queued 0'
check "sink: 720 forwarded (no options 90, srr and malformed dropped by R)" sink_is 720
check "R's InHdrErrors +125 (the malformed ones)" test $(($(ip_hdr_errors) - hdr0)) -eq 125

# 3. the other direction: counted on r1, r0 unchanged
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "K sends 55 x rr:1 to S through r1" eval '
	devices "$K" "$KTHR" k1 "$SIP" "$R1MAC" "rr:1=55" && tx_run "$K"'
ip_snap
check "r1: rr 55, any 55, nothing else" ip_row r1 55 0 0 0 0 0 0 0 0 55
check "r0 unchanged, total.rr 210, interfaces 2" eval '
	ip_row r0 155 140 150 60 70 135 120 35 125 965 &&
	ip_expect total.rr 210 total.any 1020 interfaces 2'

# 4. display human
check "display human: OK" ip_cmd "display human"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "display human: header, rows r0 r1 total, verdicts, Result" eval '
	t=$(in_ns "$R" pg_read "$IPOPT")
	grep -q "^IPv4 option classifier: on  interfaces: 2/32  dropped: 0  queued: 0" <<<"$t" &&
	grep -qE "^interface +rr +ts +lsrr +ssrr +sec +ra +ra_other +other +malformed +any$" <<<"$t" &&
	grep -qE "^r0 +155 +140 +150 +60 +70 +135 +120 +35 +125 +965$" <<<"$t" &&
	grep -qE "^r1 +55 +0 +0 +0 +0 +0 +0 +0 +0 +55$" <<<"$t" &&
	grep -qE "^total +210 +140 +150 +60 +70 +135 +120 +35 +125 +1020$" <<<"$t" &&
	grep -q "^Verdicts: rr=accept ts=accept .* any=accept$" <<<"$t" &&
	grep -q "^Result: OK: display=human$" <<<"$t" || { echo "$t"; false; }'
check "display=script (name=value): OK" ip_cmd "display=script"

# 5. verdicts
check "reset: OK, all zero, no interfaces" eval '
	ip_cmd reset && ip_snap && ip_row total 0 0 0 0 0 0 0 0 0 0 &&
	ip_expect interfaces 0'
check "verdict rr drop: OK" ip_cmd "verdict rr drop"
check "rr x130 + ra x110 + none x90" send "rr:3=130" "ra=110" "none=90"
check "rr drop: the sink gets the 200 others, no RR packet" sink_is 200
ip_snap
check "rr drop: counted anyway (rr 130, ra 110), dropped 130" eval '
	ip_row r0 130 0 0 0 0 110 0 0 0 240 && ip_expect total.dropped 130 verdict.rr drop'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "verdict ra queue:5: OK, bypass implied" eval '
	ip_cmd "verdict ra queue:5" && ip_snap && ip_expect verdict.ra "queue:5 bypass" &&
	grep -qx "Result: OK: verdict ra=queue:5 bypass" <<<"$IP_TEXT"'
check "ra x110 + ra:1 x120" send "ra=110" "ra:1=120"
# no black hole: a queue:N nobody listens on (its consumer killed) passes
check "ra queue:5 without a listener passes: the sink gets all 230" sink_is 230
check "verdict ra queue:5 bypass: OK" ip_cmd "verdict ra queue:5 bypass"
check "ra x110 + ra:1 x120 + ra,rr x25 + rr,ra x35" send \
	"ra=110" "ra:1=120" "ra,rr:2=25" "rr:2,ra=35"
check "bypass passes; first non-accept type in packet order wins: sink 255" sink_is 255
ip_snap
check "queued 245, dropped 165; verdict table" ip_expect total.queued 245 total.dropped 165 \
	verdict.ra "queue:5 bypass" verdict.rr drop verdict.ts accept verdict.any accept

# 6. errors
check "verdict foo drop: EINVAL" ip_errno "verdict foo drop" 22 '^ERROR: verdict TYPE: rr, ts'
check "verdict rr reject: EINVAL" ip_errno "verdict rr reject" 22 \
	'^ERROR: verdict rr takes accept, drop or queue:<0-65535> \[bypass\]'
check "verdict rr queue:70000: EINVAL" ip_errno "verdict rr queue:70000" 22 '^ERROR: verdict rr takes'
check "verdict rr drop bypass: EINVAL" ip_errno "verdict rr drop bypass" 22 '^ERROR: verdict rr takes'
check "unknown command: EINVAL" ip_errno "frobnicate" 22 '^ERROR: unknown command "frobnicate" \(on, off'
check "reset now: EINVAL" ip_errno "reset now" 22 '^ERROR: reset takes no argument'
check "on now: EINVAL" ip_errno "on now" 22 '^ERROR: on takes no argument'
check "off now: EINVAL" ip_errno "off now" 22 '^ERROR: off takes no argument'
check "display bogus: EINVAL" ip_errno "display bogus" 22 '^ERROR: display takes human or script'
check "a 1100-byte write: E2BIG" ip_errno "verdict $(printf 'x%.0s' $(seq 1090))" 7 \
	'^ERROR: a command is at most 1023 bytes'
check "failed writes changed nothing (rr still drop)" eval 'ip_snap && ip_expect verdict.rr drop'

# 7. off: no hook, no counting, no verdicts
check "off: OK" ip_cmd off
check "reset while off; rr x130 while off (verdict rr drop still set)" eval '
	ip_cmd reset && send "rr:3=130"'
check "off: the sink gets all 130" sink_is 130
ip_snap
check "off: nothing counted, enabled=0" eval 'ip_row total 0 0 0 0 0 0 0 0 0 0 && ip_expect enabled 0'

# 8. lifecycle: the counted veth deleted while on, packets arriving
check "on, verdicts back to accept" eval '
	ip_cmd on && ip_cmd "verdict rr accept" && ip_cmd "verdict ra accept"'

# 7b. TS pointing at its last free slot (tsonly 9 of 12, tsandaddr 5 of
# 12): room for one more entry, a timestamp and not malformed
check "reset; ts tsonly pointer 9/12 x40, tsandaddr pointer 5/12 x30" eval '
	ip_cmd reset && send "hex:440c09000000000000000000=40" "hex:440c05010000000000000000=30"'
ip_snap
check "last free slot: ts 70, malformed 0; all 70 forwarded" eval '
	ip_row r0 0 70 0 0 0 0 0 0 0 70 && sink_is 70 && ip_cmd reset'
# 7c. TS that cannot take an entry though its length could: the pointer
# below the first slot (4 < 5), or a tsandaddr slot of 8 bytes where 7
# are left (pointer 6 of 12): malformed, not timestamps, and R drops them
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "TS pointer 4 of 12 x20, tsandaddr pointer 6 of 12 x10: malformed 30, ts 0; none forwarded" eval '
	send "hex:440c04000000000000000000=20" "hex:440c06010000000000000000=10" && ip_snap &&
	ip_row r0 0 0 0 0 0 0 0 0 30 30 && sink_is 0 && ip_cmd reset'
# 7d. an option of the shortest length, 2 (type 10, no data): other,
# not malformed, and forwarded
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "type 10 of length 2 x15: other 15, malformed 0; all forwarded" eval '
	send "hex:0a020000=15" && ip_snap &&
	ip_row r0 0 0 0 0 0 0 0 15 0 15 && sink_is 15 && ip_cmd reset'
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
counting() { ip_snap; [ "$(ip_val total.any)" -gt 0 ] 2>/dev/null; }
devices "$S" "$STHR" s0 "$KIP" "$R0MAC" "ra=0" >/dev/null
pg_start_ns "$S" &
BG=$!
defer kill -INT "$BG"
check "s0 sends without end: counting" slowwait 30 counting
check "ip link del r0 while on and counting" ip -n "$R" link del r0
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
gone() { ! kill -0 "$BG" 2>/dev/null; }
check "the sender's start returns (s0 went with r0)" slowwait 20 gone
ip_snap
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "r0's row stays, marked gone; still on" eval '
	[ "$(ip_val r0:gone.ra)" -gt 0 ] && [ "$(ip_val r0:gone.ra)" = "$(ip_val total.ra)" ] &&
	ip_expect enabled 1 interfaces 1'

# 9. a namespace deleted while on, packets arriving
setup_x() {
	setup_ns X && veth_create "$S" y0 "$X" x0 &&
		in_ns "$X" pg_set "$IPOPT" on &&
		devices "$S" "$STHR" y0 10.97.3.2 "$(mac_of "$X" x0)" "rr:2=0"
}
# in this shell, not check's subshell: X and its cleanup must stay known
LOG=$(lib_tmpdir)/setup_x.log
if setup_x >"$LOG" 2>&1; then
	ktap_pass "netns X: ipopt on, S sends rr to it without end"
else
	ktap_fail "netns X: ipopt on, S sends rr to it without end" "$(cat "$LOG")"
fi
pg_start_ns "$S" &
BG=$!
defer kill -INT "$BG"
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
x_counting() { [ "$(in_ns "$X" pg_read "$IPOPT" | sed -n 's/^x0 *\([0-9]*\).*/\1/p')" -gt 0 ] 2>/dev/null; }
check "X counts" slowwait 30 x_counting
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "ip netns del X while on and counting; the sender returns" eval '
	ip netns del "$X" && slowwait 20 gone'

# 10. rmmod while on, K sending through r1
devices "$K" "$KTHR" k1 "$SIP" "$R1MAC" "rr:1=0" >/dev/null
pg_start_ns "$K" &
BG=$!
defer kill -INT "$BG"
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
r1_counting() { ip_snap; [ "$(ip_val r1.rr)" -gt 0 ] 2>/dev/null; }
check "K sends without end: r1 counting" slowwait 30 r1_counting
keys_pinned
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "rmmod pf_ipoption while on and counting (K sends on), then rmmod pktgen" eval '
	rmmod pf_ipoption && [ ! -e "$IPOPT" ] && ! gone && rmmod pktgen && slowwait 20 gone'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "no kernel splat in dmesg" eval '
	! dmesg | tail -n +$((DMESG0 + 1)) | grep -E "$SPLAT"'

ktap_finish
