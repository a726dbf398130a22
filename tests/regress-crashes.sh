#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Writes that once crashed or hung the kernel, one case each
# (the privilege case is in security.sh):
# 1. a setting changed while a device runs, with a shared skb held: built
#    with frags for start_xmit on a device without scatter-gather, sent
#    again by queue_xmit after "xmit_mode queue_xmit" (a BUG() in
#    pskb_expand_head()); and "ethtool -K sg off" under a queue_xmit run
#    whose shared skb has fragments;
# 2. an interface named like one of pktgen's own files: add_device, and
#    the rename of a bound interface (proc's "already registered" WARN);
# 3. an "inject" writer waiting while its interface is renamed (RTNL held
#    until the writer dies), removed, or reset; clear_counters, which
#    now waits for the thread too;
# 4. IPsec: ESP's output takes the SA's lock, which the send held (a
#    spinning thread); a UDP-encapsulated SA refused with a reason;
# 5. a duration past ktime's 292 years (wrapped: the run stopped at once).
# A write to a thread file of a netns on its way out: regress-thread-file.sh.
#
#   netns $NS: [ d0 (dummy) ] <- pktgen, tcpdump on d0's egress
. "$(dirname "$0")/lib/lib.sh"

ktap_header
ktap_plan 15

if ! pg_is_ours; then
	ktap_skip "crash regressions" "ours only: the fixes are ours"
	ktap_finish
fi
if ! pg_load; then
	ktap_fail "module loads"
	ktap_finish
fi
ktap_pass "module loads"
_pgw_init
tmp=$(lib_tmpdir)
setup_ns NS
dummy_create "$NS" d0
EEXIST=17 ERANGE=34
MAC=02:00:00:00:00:09

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
pgs() {	# DEV CMD...: each CMD with pg_set in $NS
	local dev=$1 c
	shift
	for c in "$@"; do
		_PG_NS=$NS pg_set "$dev" "$c" || return 1
	done
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
running() { _PG_NS=$NS pg_read kpktgend_0 | grep -q "^Running: .*$1 "; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
stopped() { ! running "$1"; }

# "start" in the background, bounded: a hang must not outlive the test
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
start_bg() {
	timeout -s INT 60 ip netns exec "$NS" sh -c "echo start > $PG_PROC/pgctrl" &
	START_PID=$!
	slowwait 20 running d0 || { echo "d0 never ran"; return 1; }
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
stop_wait() {
	_PG_NS=$NS pg_write pgctrl stop
	wait "$START_PID"
}

# frames of SIZE bytes with pktgen's magic in a capture
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
pktgen_frames() {	# FILE SIZE
	python3 -S "$LIB_DIR/pktgen_frames.py" "$1" "$2"
}

# --- 1. settings changed under a held skb -----------------------------------
# A run of 1500-byte frames with 4 fragments, one skb sent 100000 times,
# 100 per second; MIDRUN (a function) changes something while it goes;
# at least MIN intact frames must come out by queue_xmit (start_xmit
# bypasses the taps).
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
held_skb_run() {	# LABEL MIN MIDRUN CMD...
	local label=$1 min=$2 midrun=$3 n
	shift 3
	_PG_NS=$NS pg_write pgctrl reset
	pgs kpktgend_0 "add_device d0" &&
		pgs d0 "count 0" "pkt_size 1500" "frags 4" "clone_skb 100000" \
			"delay 10000000" "dst_mac $MAC" "$@" || return 1
	cap_start "$NS" d0 "$tmp/$label.pcap" || return 1
	start_bg || return 1
	sleep 0.5
	"$midrun" || return 1
	stop_wait
	cap_stop
	ip netns exec "$NS" ethtool -K d0 sg on >/dev/null
	n=$(pktgen_frames "$tmp/$label.pcap" 1500)
	[ "$n" -ge "$min" ] || { echo "$n intact 1500-byte frames captured, want >= $min"; return 1; }
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
switch_settings() {
	pgs d0 "xmit_mode queue_xmit" && sleep 1 &&
		pgs d0 "frags 2" && sleep 0.5 && pgs d0 "clone_skb 3" && sleep 0.5 &&
		pgs d0 "xmit_mode start_xmit" && pgs d0 "burst 4" && sleep 0.3 &&
		pgs d0 "burst 1" && pgs d0 "xmit_mode queue_xmit" && sleep 0.5
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
mode_switch() {
	ip netns exec "$NS" ethtool -K d0 sg off >/dev/null || return 1
	held_skb_run switch 20 switch_settings
}
check "xmit_mode, frags, clone_skb, burst changed mid-run on a device without SG: no crash, intact frames" \
	mode_switch

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
sg_off() { ip netns exec "$NS" ethtool -K d0 sg off >/dev/null && sleep 1; }
check "ethtool -K sg off under a queue_xmit run whose shared skb has frags: no crash" \
	held_skb_run sg 40 sg_off "xmit_mode queue_xmit"

# --- 2. names of pktgen's own files ------------------------------------------
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
own_names_refused() {
	local name bad=0
	_PG_NS=$NS pg_write pgctrl reset
	for name in pgctrl pgstats pgrx pgrx_samples kpktgend_0 kpktgend_7; do
		dummy_create "$NS" "$name" || return 1
		pg_refuses "$NS" kpktgend_0 "add_device $name" "$EEXIST" \
			"^ERROR: can not add device $name: one of pktgen's own files" || bad=1
		ip -n "$NS" link del "$name"
	done
	return "$bad"
}
check "add_device of an interface named like pktgen's own files: EEXIST and a reason" \
	own_names_refused

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
rename_to_own_names() {
	local name files
	_PG_NS=$NS pg_write pgctrl reset
	pgs kpktgend_0 "add_device d0" "add_device d0@1" || return 1
	for name in pgrx pgrx_samples pgctrl kpktgend_1; do
		ip -n "$NS" link set d0 down && ip -n "$NS" link set d0 name "$name" || return 1
		ip -n "$NS" link set "$name" name d0 && ip -n "$NS" link set d0 up || return 1
	done
	# a rename that collides with nothing still renames the files
	ip -n "$NS" link set d0 down && ip -n "$NS" link set d0 name dd0 || return 1
	files=$(ip netns exec "$NS" ls "$PG_PROC" | sort | tr '\n' ' ')
	ip -n "$NS" link set dd0 name d0 && ip -n "$NS" link set d0 up || return 1
	[ "$files" = "dd0 dd0@1 kpktgend_0 kpktgend_1 pgctrl pgrx pgrx_samples pgstats " ] ||
		{ echo "files after the renames: $files"; return 1; }
	pgs d0 "count 10" || return 1
}
check "a bound interface renamed to pgrx, pgctrl, kpktgend_1: files keep their names" \
	rename_to_own_names

# --- 3. inject writers never hold up a rename or a removal --------------------
INJECT_PID=
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
inject_bg() {	# DEV: an "inject" that never ends by itself
	pgs "$1" "count 0" "delay 2147483647" "dst_mac $MAC" || return 1
	timeout -s INT 60 ip netns exec "$NS" sh -c "echo inject > $PG_PROC/$1" &
	INJECT_PID=$!
	slowwait 20 running "$1" || { echo "$1 never ran"; return 1; }
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
rtnl_free() { timeout 10 ip -n "$NS" link show d0 >/dev/null 2>&1 || timeout 10 ip -n "$NS" link show dd0 >/dev/null 2>&1; }

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
inject_rename() {
	_PG_NS=$NS pg_write pgctrl reset
	pgs kpktgend_0 "add_device d0" && inject_bg d0 || return 1
	# 6.1 renames only an interface that is down; a run that never sends
	# does not notice
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	timeout 20 ip -n "$NS" link set d0 down &&
		timeout 20 ip -n "$NS" link set d0 name dd0 || { echo "rename hung or failed"; return 1; }
	slowwait 10 pid_gone "$INJECT_PID" || { echo "inject writer still waiting"; return 1; }
	rtnl_free || { echo "RTNL still held"; return 1; }
	ip netns exec "$NS" test -e "$PG_PROC/dd0" || { echo "no file dd0"; return 1; }
	running dd0 || { echo "the run ended with the wait"; return 1; }
	_PG_NS=$NS pg_write pgctrl stop
	slowwait 10 stopped dd0 || return 1
	ip -n "$NS" link set dd0 name d0 && ip -n "$NS" link set d0 up
}
check "an inject writer waiting on d0: rename d0 returns, the writer is let go, the run goes on" \
	inject_rename

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
inject_removal_race() {	# what removes d0: del or reset
	local i rc
	for i in $(seq 4); do
		_PG_NS=$NS pg_write pgctrl reset
		ip -n "$NS" link show d0 >/dev/null 2>&1 || dummy_create "$NS" d0 || return 1
		pgs kpktgend_0 "add_device d0" &&
			pgs d0 "count 0" "delay 2147483647" "dst_mac $MAC" || return 1
		timeout -s INT 30 ip netns exec "$NS" sh -c "echo inject > $PG_PROC/d0" 2>/dev/null &
		INJECT_PID=$!
		[ $((i % 3)) -eq 0 ] && sleep "0.$i"
		case $1 in
		del) timeout 30 ip -n "$NS" link del d0 || { echo "link del hung"; return 1; } ;;
		reset) rc=0
		       timeout 30 ip netns exec "$NS" sh -c "echo reset > $PG_PROC/pgctrl" || rc=$?
		       [ "$rc" -ne 124 ] || { echo "reset hung"; return 1; } ;;
		esac
		slowwait 10 pid_gone "$INJECT_PID" || { echo "inject writer still waiting"; return 1; }
	done
	ip -n "$NS" link show d0 >/dev/null 2>&1 || dummy_create "$NS" d0
}
check "ip link del d0 while an inject write arrives (4 times): nothing waits" \
	inject_removal_race del
check "reset while an inject write arrives (4 times): nothing waits" \
	inject_removal_race reset

# clear_counters is the thread's to do (it owns the counters), running or not
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
sofar() { _PG_NS=$NS pg_read d0 | sed -n 's/^     pkts-sofar: \([0-9]*\) .*/\1/p'; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
sofar_at_least() { [ "$(sofar)" -ge "$1" ]; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
clear_while_running() {
	local after
	_PG_NS=$NS pg_write pgctrl reset
	pgs kpktgend_0 "add_device d0" && pgs d0 "count 0" "delay 1000000000" "dst_mac $MAC" ||
		return 1
	start_bg || return 1
	slowwait 30 sofar_at_least 3 || { echo "pkts-sofar $(sofar) after 30 s"; return 1; }
	pgs d0 clear_counters || return 1
	after=$(sofar)
	stop_wait
	[ "$after" -lt 3 ] || { echo "pkts-sofar $after right after clear_counters"; return 1; }
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	pgs d0 clear_counters && [ "$(sofar)" = 0 ] || { echo "idle: pkts-sofar $(sofar)"; return 1; }
}
check "clear_counters while running (1 pps) and idle: pkts-sofar back to 0" clear_while_running

# --- 4. IPsec ----------------------------------------------------------------
KEY=0x0102030405060708090a0b0c0d0e0f1011121314
xfrm_sa() {	# DST SPI [ENCAP...]
	local dst=$1 spi=$2
	shift 2
	ip -n "$NS" xfrm state add src 10.0.0.1 dst "$dst" proto esp spi "$spi" \
		mode transport enc 'ecb(cipher_null)' '' auth 'hmac(sha1)' "$KEY" "$@"
}
xfrm_ok=1
if ! xfrm_sa 10.0.0.2 256 2>"$tmp/xfrm.err"; then
	xfrm_ok=0
fi

# ESP frames sent: "ESP(spi=0x00000100,seq=0x..." in tcpdump's words
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
esp_seqs() {	# FILE SPI_HEX
	tcpdump -nn -r "$1" 2>/dev/null | sed -n "s/.*ESP(spi=$2,seq=\(0x[0-9a-f]*\)).*/\1/p"
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
ipsec_run() {	# FRAGS
	local res seqs
	_PG_NS=$NS pg_write pgctrl reset
	pgs kpktgend_0 "add_device d0" &&
		pgs d0 "count 50" "pkt_size 1000" "frags $1" "xmit_mode queue_xmit" \
			"src_min 10.0.0.1" "src_max 10.0.0.1" "dst 10.0.0.2" "dst_mac $MAC" \
			"flag IPSEC" "spi 256" || return 1
	cap_start "$NS" d0 "$tmp/esp$1.pcap" || return 1
	timeout -s INT 60 ip netns exec "$NS" sh -c "echo start > $PG_PROC/pgctrl" ||
		{ echo "start did not return"; return 1; }
	cap_stop
	res=$(_PG_NS=$NS pg_result d0)
	[[ "$res" == "OK: "*", 50 ("* ]] || { echo "Result: $res"; return 1; }
	seqs=$(esp_seqs "$tmp/esp$1.pcap" 0x00000100 | wc -l)
	[ "$seqs" -eq 50 ] || { echo "$seqs ESP frames with spi 256 captured, want 50"; return 1; }
}
if [ "$xfrm_ok" = 1 ]; then
	check "IPSEC, ESP null cipher, pkt_size 1000, frags 1 (ESP's trailer page): 50 ESP frames" \
		ipsec_run 1
	check "IPSEC, frags 0: 50 ESP frames" ipsec_run 0
else
	ktap_skip "IPSEC, frags 1" "ip xfrm state add failed: $(head -c 200 "$tmp/xfrm.err")"
	ktap_skip "IPSEC, frags 0" "no SA"
fi

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
ipsec_encap_refused() {
	local res
	xfrm_sa 10.0.0.3 257 encap espinudp 4500 4500 0.0.0.0 || return 1
	_PG_NS=$NS pg_write pgctrl reset
	pgs kpktgend_0 "add_device d0" &&
		pgs d0 "count 50" "xmit_mode queue_xmit" "dst 10.0.0.3" "dst_mac $MAC" \
			"flag IPSEC" "spi 257" || return 1
	timeout -s INT 60 ip netns exec "$NS" sh -c "echo start > $PG_PROC/pgctrl" ||
		{ echo "start did not return"; return 1; }
	res=$(_PG_NS=$NS pg_result d0)
	[[ "$res" == "ERROR: IPSEC: no usable SA"* ]] || { echo "Result: $res"; return 1; }
	dmesg | tail -n 20 | grep -q "spi 0x101: UDP-encapsulated" ||
		{ echo "no reason in the kernel log"; return 1; }
}
if [ "$xfrm_ok" = 1 ]; then
	check "IPSEC with a UDP-encapsulated SA: start returns, refused with a reason" \
		ipsec_encap_refused
else
	ktap_skip "IPSEC with a UDP-encapsulated SA" "no SA"
fi

# A run that ends in an error: the reason is the Result as soon as start
# returns.  The thread used to write the counts' Result, wake the writer,
# and only then the reason, so a writer woken first (a preemptible
# kernel) read "OK: ..." for a run that failed.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
error_result_first() {
	local i res
	for ((i = 0; i < 30; i++)); do
		timeout -s INT 60 ip netns exec "$NS" sh -c "echo start > $PG_PROC/pgctrl" ||
			{ echo "start $i did not return"; return 1; }
		res=$(_PG_NS=$NS pg_result d0)
		[[ "$res" == "ERROR: IPSEC: no usable SA"* ]] || { echo "start $i: Result: $res"; return 1; }
	done
}
if [ "$xfrm_ok" = 1 ]; then
	check "a run ended by an error, 30 times: its reason is the Result as start returns" \
		error_result_first
else
	ktap_skip "a run ended by an error, 30 times" "no SA"
fi

# --- 5. duration --------------------------------------------------------------
check "duration 9223372037s (past 292 years): ERANGE" \
	pg_refuses "$NS" d0 "duration 9223372037s" $ERANGE "^ERROR: duration must be at most 9223372036s"
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
duration_max() {
	local res
	_PG_NS=$NS pg_write pgctrl reset
	pgs kpktgend_0 "add_device d0" &&
		pgs d0 "count 100" "duration 9223372036s" "dst_mac $MAC" || return 1
	timeout -s INT 60 ip netns exec "$NS" sh -c "echo start > $PG_PROC/pgctrl" || return 1
	res=$(_PG_NS=$NS pg_result d0)
	[[ "$res" == "OK: "*", 100 ("* ]] || { echo "Result: $res"; return 1; }
}
check "duration 9223372036s, count 100: all 100 sent (no wrapped deadline)" duration_max

ktap_finish
