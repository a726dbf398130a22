#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The receiver's input comes from the network: crafted pktgen headers
# (tests/lib/rx_inject.py) with wild sequence numbers, stamps decades in
# the past or future and tv_usec / tv_nsec out of range must not make any
# figure wrap.  Such packets are counted as `malformed` and kept out of the
# latency, jitter and loss figures they would otherwise poison.
#
#   netns TX                               netns RX
#   +--------------------------+   veth    +---------------------------+
#   | rx_inject.py on veth0    |---------->| veth1 <-- pgrx "rx veth1" |
#   +--------------------------+           +---------------------------+

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

INJECT="$(dirname "$0")/lib/rx_inject.py"
PAST=$((-(1 << 31) + 10)) FUTURE=$(((1 << 31) - 10))	# seconds: 68 years

setup() {
	pg_load || return 1
	setup_ns TX RX || return 1
	veth_create "$TX" veth0 "$RX" veth1 || return 1
	rx_cmd "$RX" "rx veth1" && rx_cmd "$RX" "display script"
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
inject() { ip netns exec "$TX" python3 -S "$INJECT" veth0 "$(mac_of "$RX" veth1)" "$1"; }

# fresh JSON: rx_reset, inject JSON (then rx_snap: check runs it in a subshell)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
fresh() { rx_cmd "$RX" rx_reset && inject "$1" >/dev/null; }

# no_wrap: no value of the snapshot is near 2^64 (or even 2^43)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
no_wrap() {
	awk -F= '$2 ~ /^[0-9]+$/ && length($2) > 13 { print "wrapped: " $0; bad = 1 }
		END { exit bad }' <<<"$RX_TEXT" || { printf '%s\n' "$RX_TEXT"; return 1; }
}

# one JSON stream entry per frame: SEQ [EXTRA JSON fields]
frame() { echo "{\"seqs\": [$1]${2:+, $2}}"; }

rx_begin 14

# 1. stamps 68 years in the past: lat_sum used to wrap after 9 of them
js=$(for i in $(seq 1 12); do frame "$i" "\"sec_off\": $PAST"; done | paste -sd,)
check "12 stamps 68 years old" fresh "[$js]"
rx_snap "$RX"
check "far past: malformed 12, no latency sample, lost 0" \
	rx_expect rx_packets 12 malformed 12 latency_samples 0 latency_negative 0 lost 0
check "far past: no figure wrapped" no_wrap

# 2. alternating 68 years in the past and in the future: jitter used to wrap
js=$(for i in $(seq 1 20); do
	off=$FUTURE
	[ $((i % 2)) -eq 1 ] && off=$PAST
	frame "$i" "\"sec_off\": $off"
done | paste -sd,)
check "20 stamps alternating 68 years back and ahead" fresh "[$js]"
rx_snap "$RX"
check "past/future: malformed 20, jitter 0, no sample" \
	rx_expect malformed 20 jitter_ns 0 latency_samples 0 latency_negative 0
check "past/future: no figure wrapped" no_wrap

# 3. tv_usec out of range, including one that wraps into range when
# multiplied by 1000 (4294968 us = 704 ns mod 2^32), and a bad tv_nsec
check "tv_usec 4294968, 1000000, 2^32-1; extension tv_nsec 10^9 + 5" fresh "[
	$(frame 1 '"usec": 4294968'), $(frame 2 '"usec": 1000000'),
	$(frame 3 '"usec": 4294967295'), $(frame 4 '"usec": 0'),
	{\"id\": 7, \"seqs\": [1], \"nsec\": 1000000005}]"
rx_snap "$RX"
check "bad sub-second fields: malformed 4, latency from the one good stamp only" \
	rx_expect rx_packets 5 malformed 4 latency_samples 1 s0_malformed 3 s1_malformed 1

# 4. a number 2^30 ahead is not believed
check "seq 1, 2, 2 + 2^30, 3" fresh "[$(frame 1), $(frame 2), $(frame $(((1 << 30) + 2))), $(frame 3)]"
rx_snap "$RX"
check "wild number: malformed 1, lost 0, last_seq 3, reordered 0" \
	rx_expect rx_packets 4 malformed 1 lost 0 s0_last_seq 3 reordered 0

# 5. a straggler far behind a mid-run start cannot make lost negative
check "seq 100000, then 90000 twice" fresh "[$(frame 100000), $(frame 90000), $(frame 90000)]"
rx_snap "$RX"
check "straggler: lost 0, late 2, no figure wrapped" eval \
	'rx_expect rx_packets 3 lost 0 late 2 && no_wrap'

# 6. the control: a stamp 5 s ahead is a clock difference, not malformed
check "seq 1 stamped 5 s ahead, seq 2 stamped now" \
	fresh "[$(frame 1 '"sec_off": 5'), $(frame 2)]"
rx_snap "$RX"
check "5 s ahead: latency_negative 1, latency_samples 1, malformed 0" \
	rx_expect latency_negative 1 latency_samples 1 malformed 0

ktap_finish
