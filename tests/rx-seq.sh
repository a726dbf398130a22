#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The receiver's hard sequences on the wire: pktgen runs and hand-made pktgen
# frames (tests/lib/rx_inject.py) from one source MAC, so one stream,
# whose numbers reorder across 2^31 and across the 32-bit wrap, repeat a
# number far behind after a loss, copy a small number into a long run,
# leave a straggler after a real restart, or repeat each number as a
# sender's burst does.  Every figure is exact (Documentation/receiver.rst's
# definitions, W = 4096); tests/host/rxstat.sh has the same cases and
# millions more against its model, this proves the module counts them as
# the host build of pktgen_rxstat.c does.  The loss in case 3 is a tc
# u32 filter on veth1's ingress, which runs before the receiver's hook.
#
#   netns TX                               netns RX
#   +--------------------------+   veth    +---------------------------+
#   | pktgen "veth0",          |---------->| veth1 <-- pgrx "rx veth1" |
#   | rx_inject.py on veth0    |           | (tc ingress drop, case 3) |
#   +--------------------------+           +---------------------------+

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

INJECT="$(dirname "$0")/lib/rx_inject.py"

setup() {
	pg_load || return 1
	setup_ns TX RX || return 1
	veth_create "$TX" veth0 "$RX" veth1 || return 1
	rx_cmd "$RX" "rx veth1" && rx_cmd "$RX" "display script" || return 1
	tx_setup "$TX" veth0 &&
		tx_set "$TX" veth0 "pkt_size 60" "dst 10.98.1.2" "dst_mac $(mac_of "$RX" veth1)"
}

# numbers SEQS...: the numbers of the words SEQS (a word A..B is A to B)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
numbers() {
	local w
	for w in "$@"; do
		case $w in
		*..*) seq "${w%..*}" "${w#*..}" ;;
		*) echo "$w" ;;
		esac
	done | paste -sd,
}

# inject SEQS...: one hand-made frame per number, in this order
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
inject() {
	ip netns exec "$TX" python3 -S "$INJECT" veth0 "$(mac_of "$RX" veth1)" \
		"[{\"seqs\": [$(numbers "$@")]}]" >/dev/null
}

# send_run N: rx_reset, then a pktgen run of N packets (numbers 1 .. N)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
send_run() { rx_cmd "$RX" rx_reset && tx_set "$TX" veth0 "count $1" && tx_run "$TX"; }

# drop_seq N | drop_none: a tc filter on veth1's ingress dropping number N
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
drop_seq() {
	tc -n "$RX" qdisc add dev veth1 clsact &&
		tc -n "$RX" filter add dev veth1 ingress protocol ip u32 \
			match u32 "$1" 0xffffffff at 32 action drop
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
drop_none() { tc -n "$RX" qdisc del dev veth1 clsact; }

# fresh SEQS...: rx_reset, then inject SEQS; rx_snap after it (check
# runs it in a subshell)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
fresh() { rx_cmd "$RX" rx_reset && inject "$@"; }

rx_begin 12

# 1. an epoch longer than 2^31 numbers (jumps below 2^30 are believed):
# 1, 2^29, 2^30, 3 x 2^29, then 2^31 + 1 .. 2^31 + 99 with 2^31 + 50 last.
# The late one is reordered; 103 numbers seen of 2^31 + 99.  The
# "before the first" test by (s32)(seq - first) once took it for a number
# before 1 and added 2^31 - 49 to lost.
H=$((1 << 31))
check "epoch of 2^31 + 99 numbers, 2^31 + 50 last" \
	fresh 1 $((1 << 29)) $((1 << 30)) $((3 << 29)) $((H + 1))..$((H + 49)) \
	$((H + 51))..$((H + 99)) $((H + 50))
rx_snap "$RX"
check "2^31 epoch: lost $((H + 99 - 103)), reordered 1, first 1, last $((H + 99))" \
	rx_expect lost $((H + 99 - 103)) reordered 1 duplicates 0 late 0 restarts 0 \
	malformed 0 s0_first_seq 1 s0_last_seq $((H + 99))

# 2. across the 32-bit wrap: 0xffffff01 .. 0xffffffff, 0 .. 9, with
# 0xfffffff0 last (a receiver enabled mid-run: the epoch starts there)
check "0xffffff01 .. 9 across the wrap, 0xfffffff0 last" \
	fresh 4294967041..4294967279 4294967281..4294967295 0..9 4294967280
rx_snap "$RX"
check "wrap: lost 0, reordered 1, first 0xffffff01, last 9" \
	rx_expect rx_packets 265 lost 0 reordered 1 duplicates 0 late 0 \
	s0_first_seq 4294967041 s0_last_seq 9

# 3. 1 .. 4300 without 100 (pktgen, tc drops 100), then a copy of 50:
# 100's loss is final (4096 higher numbers came), and 50, 4250 behind,
# is late; it cannot fill 100's hole (it once did: lost 0, and with no
# hole lost went below 0)
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "pktgen 1 .. 4300, tc drops 100, then 50 injected" eval \
	'drop_seq 100 && { send_run 4300; r=$?; drop_none; } && [ "$r" = 0 ] && inject 50'
rx_snap "$RX"
check "far copy: lost 1, late 1, duplicates 0" \
	rx_expect rx_packets 4300 lost 1 late 1 duplicates 0 reordered 0 restarts 0

# 4. a lone copy of a small number in a long run is not a restart (it
# once started an epoch at 10, then 4201 jumped: restarts 1, lost 4190)
check "pktgen 1 .. 4200, then 10, 4201 .. 4210 injected" eval \
	'send_run 4200 && inject 10 4201..4210'
rx_snap "$RX"
check "lone small copy: restarts 0, late 1, lost 0, last 4210" \
	rx_expect rx_packets 4211 restarts 0 late 1 lost 0 duplicates 0 reordered 0 \
	s0_first_seq 1 s0_last_seq 4210

# 5. a straggler of the old run after a real restart is late, not a jump
# forward of the new run (once: lost 4188, then the new run's numbers
# counted as reordered)
check "pktgen 1 .. 4200, then restart 1 .. 10, old 4199, 11 .. 20 injected" eval \
	'send_run 4200 && inject 1..10 4199 11..20'
rx_snap "$RX"
check "straggler after restart: restarts 1, late 1, lost 0, last 20" \
	rx_expect rx_packets 4221 restarts 1 late 1 lost 0 duplicates 0 reordered 0 \
	s0_first_seq 1 s0_last_seq 20

# 6. a sender's burst 3: the same frame 3 times, the
# number advancing by 3 (1, 1, 1, 4, 4, 4, ..., as the stock pktgen
# numbers them and tests/wire-reuse.sh sees them): each number 3 times,
# the 2 of every 3 numbers never sent are lost (receiver.rst, the clock)
# shellcheck disable=SC2046
check "100 numbers 1, 4, .. 298, each 3 times" \
	fresh $(for i in $(seq 0 99); do n=$((1 + 3 * i)); echo $n $n $n; done)
rx_snap "$RX"
check "burst 3: rx_packets 300, duplicates 200, lost 198, last_seq 298" \
	rx_expect rx_packets 300 duplicates 200 lost 198 reordered 0 late 0 restarts 0 \
	s0_first_seq 1 s0_last_seq 298

ktap_finish
