#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fault injection on the module's allocation paths (kernels with
# CONFIG_FAILSLAB and CONFIG_FAIL_PAGE_ALLOC, e.g. `make debug-kernel`;
# skipped elsewhere).  failslab and fail_page_alloc fail allocations whose
# call stack passes through pktgen's text (require-start/-end), in any
# task (the kpktgend threads too), with a probability that rises round
# after round: netns creation (the per-netns init), add_device,
# configuration, ipopt on, start and skb builds: odd rounds send 300-byte
# packets with frags (a page for them at start), even rounds 9000-byte
# linear ones (their data from the page allocator, per packet).  Each
# round then turns injection off and checks that the netns
# still works: reset, a 100-packet run.  The test runner unloads the module
# and scans kmemleak and dmesg: every error path must unwind cleanly.
#
# The receiver's tables and `flows` use kvmalloc, whose vmalloc fallback
# prints a stack on failure by design (warn_alloc): not injected here.
#
#   netns per round: x0 (dummy)
# test-timeout: 900
# suite: stress
. "$(dirname "$0")/lib/lib.sh"

FAULT_SECONDS=${FAULT_SECONDS:-120}
DBG=/sys/kernel/debug
FAILSLAB=$DBG/failslab
FAILPAGE=$DBG/fail_page_alloc

ktap_header
if [ ! -d "$FAILSLAB" ] || [ ! -d "$FAILPAGE" ]; then
	ktap_plan 1
	ktap_skip "fault injection" "no $FAILSLAB or $FAILPAGE (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC)"
	ktap_finish
fi
ktap_plan 8

if ! pg_load; then
	ktap_fail "module loads"
	ktap_finish
fi
ktap_pass "module loads"
_pgw_init

# pktgen's text: from its first to past its last function
text_range() {
	awk '$2 ~ /^[tT]$/ && $4 == "[pktgen]" { print $1 }' /proc/kallsyms | sort |
		sed -n '1p;$p' | tr '\n' ' '
}
read -r lo hi <<<"$(text_range)"
if [ -z "$lo" ] || [ -z "${lo//0/}" ]; then
	ktap_fail "pktgen's text range from /proc/kallsyms" "no addresses"
	ktap_finish
fi
# (bash arithmetic is signed 64-bit; printf %x shows the bits unsigned)
TEXT_START=0x$lo TEXT_END=$(printf '%#x' $((16#$hi + 0x4000)))
ktap_pass "pktgen's text range from /proc/kallsyms"
ktap_diag "injecting in $TEXT_START-$TEXT_END"

TIMES=1000000
attr() { echo "$3" >"$1/$2"; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
fault_setup() {	# DIR
	attr "$1" probability 0
	attr "$1" interval 1
	attr "$1" times "$TIMES"
	attr "$1" space 0
	attr "$1" verbose 0
	attr "$1" task-filter N
	attr "$1" require-start "$TEXT_START"
	attr "$1" require-end "$TEXT_END"
	attr "$1" stacktrace-depth 32
	attr "$1" ignore-gfp-wait N
}
inject() { attr "$FAILSLAB" probability "$1"; attr "$FAILPAGE" probability "$1"; }
defer inject 0
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup_all() {
	fault_setup "$FAILSLAB" && fault_setup "$FAILPAGE" &&
		attr "$FAILPAGE" min-order 0 && attr "$FAILSLAB" cache-filter N
}
pin_static_keys
check "failslab and fail_page_alloc set up on pktgen's text" setup_all

# one round at PERCENT: everything may fail; errors are fine, hangs not
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
round() {	# NETNS PERCENT ROUND
	local x=$1
	inject "$2"
	if ! ip netns add "$x" 2>/dev/null; then
		inject 0
		echo netns >>"$tmp/refused"
		ip netns add "$x" || return 1
		inject "$2"
	fi
	dummy_create "$x" x0 && ip -n "$x" link set x0 mtu 9000
	_PG_NS=$x pg_write kpktgend_0 "add_device x0"
	local size=300 frags=2
	[ $(($3 % 2)) -eq 0 ] && size=9000 frags=0
	for c in "count 300" "pkt_size $size" "frags $frags" "ip_opt rr:2" "dst 10.0.0.9" \
		 "dst_mac 02:00:00:00:00:09" "clone_skb 0"; do
		_PG_NS=$x pg_write x0 "$c"
	done
	_PG_NS=$x pg_write ipopt on
	timeout -k 5 -s INT 5 ip netns exec "$x" \
		sh -c 'echo start > /proc/net/pktgen/pgctrl' 2>/dev/null
	_PG_NS=$x pg_write pgctrl stop
	_PG_NS=$x pg_write kpktgend_0 rem_device_all
	inject 0
}
# with injection off: the netns's pktgen works
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
works() {	# NETNS
	local tx0 tx1
	_PG_NS=$1 pg_write pgctrl reset || { echo "reset: errno $?"; return 1; }
	_PG_NS=$1 pg_set kpktgend_0 "add_device x0" && _PG_NS=$1 pg_set x0 "count 100" &&
		_PG_NS=$1 pg_set x0 "dst_mac 02:00:00:00:00:09" || return 1
	tx0=$(ip netns exec "$1" cat /sys/class/net/x0/statistics/tx_packets)
	_PG_NS=$1 pg_write pgctrl start || { echo "start: errno $?"; return 1; }
	tx1=$(ip netns exec "$1" cat /sys/class/net/x0/statistics/tx_packets)
	[ $((tx1 - tx0)) -eq 100 ] || { echo "sent $((tx1 - tx0)), want 100"; return 1; }
	_PG_NS=$1 pg_write ipopt off
}
tmp=$(lib_tmpdir)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
rounds() {
	local i=0 end=$((SECONDS + FAULT_SECONDS)) p x
	while [ "$SECONDS" -lt "$end" ]; do
		i=$((i + 1))
		p=$(( (i % 4 == 0) ? 100 : (i % 4) * 25 ))
		x=pgt-f$(printf '%08x' "$SRANDOM")
		defer ip netns del "$x"
		round "$x" "$p" "$i" || { inject 0; echo "round $i ($p%): setup failed"; return 1; }
		works "$x" || { echo "round $i ($p%): not working afterwards"; return 1; }
		ip netns del "$x"
	done
	echo "$i" >"$tmp/rounds"
}
check "rounds of injected failures (25/50/75/100%) for ${FAULT_SECONDS}s, each followed by a working run" rounds
inject 0
slab=$((TIMES - $(cat "$FAILSLAB/times")))
page=$((TIMES - $(cat "$FAILPAGE/times")))
ktap_diag "$(cat "$tmp/rounds" 2>/dev/null) rounds, $slab slab and $page page allocations failed," \
	"netns creation refused $(wc -l <"$tmp/refused" 2>/dev/null || echo 0) times"
check "slab allocations failed" test "$slab" -gt 0
check "page allocations failed" test "$page" -gt 0
check "rmmod after the faults" pg_unload

ktap_finish
