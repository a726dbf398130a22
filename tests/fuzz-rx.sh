#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The packet fuzzer of the receive paths, short and with a fixed seed in
# every make check: malformed and adversarial frames (tests/lib/rxfuzz.py:
# truncated anywhere, IHL 0..15, option lengths 0/1/over the end, VLAN
# stacks up to five tags, IPv6 extension chains, fragments, pktgen magic
# with wild sequence numbers, stream ids and stamps from 1970 to the far
# future) from a peer namespace into a receiver (pgrx on the veth and on a
# VLAN above it) and the IPv4 option classifier (on, with drop and queue
# verdicts).  Round 1 while another process changes every pgrx and ipopt
# setting and reads both files; round 2 on a still configuration.
# Nothing may splat (the runner checks dmesg and kmemleak), no figure may
# wrap or contradict another, the stream table and the slab stay bounded,
# and a clean pktgen run afterwards is counted exactly.
# FUZZ_RX_SEED (21) and FUZZ_RX_FRAMES (10000 a round) override.
#
#   netns TX                          netns RX
#   +---------------------+   veth    +---------------------------------+
#   | fz0 10.96.1.1       |<--------->| fz1 10.96.1.2   pgrx: fz1, fv10 |
#   | rxfuzz.py, pktgen   |           | fv10 (VLAN 10)  ipopt on        |
#   +---------------------+           +---------------------------------+
# test-timeout: 600

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

SEED=${FUZZ_RX_SEED:-21}
FRAMES=${FUZZ_RX_FRAMES:-10000}
IPA=10.96.1.1 IPB=10.96.1.2
# a wrapped 64-bit counter reads above this
WRAP=4611686018427387904

setup() {
	pg_load || return 1
	setup_ns TX RX || return 1
	veth_create "$TX" fz0 "$RX" fz1 || return 1
	ip -n "$TX" addr add "$IPA/24" dev fz0 &&
		ip -n "$RX" addr add "$IPB/24" dev fz1 &&
		ip -n "$RX" link add link fz1 name fv10 type vlan id 10 &&
		ip -n "$RX" link set fv10 up || return 1
	ip netns exec "$RX" sysctl -qw net.ipv4.ip_forward=1 || return 1
	tx_setup "$TX" fz0 &&
		tx_set "$TX" fz0 "count 1000" "pkt_size 60" "dst $IPB" \
			"dst_mac $(mac_of "$RX" fz1)"
}

# fuzz SEED: one round from TX, its summary as a diagnostic; then a
# subtest that all frames went out
fuzz() {
	local out
	out=$(ip netns exec "$TX" python3 -S "$LIB_DIR/rxfuzz.py" fz0 \
		"$(mac_of "$RX" fz1)" "$IPB" "$1" "$FRAMES" 2>&1)
	ktap_diag "seed $1: $(tr '\n' ' ' <<<"$out")"
	check "$2 (seed $1): $FRAMES frames sent" grep -q "^frames $FRAMES " <<<"$out"
}

# churn: change every receiver and classifier setting and read both files
# until the file $1 appears
churn() {
	local stop=$1 i=0
	while [ ! -e "$stop" ]; do
		i=$((i + 1))
		case $((i % 12)) in
		0) in_ns "$RX" pg_set pgrx "statistics counter" ;;
		1) in_ns "$RX" pg_set pgrx "statistics time" ;;
		2) in_ns "$RX" pg_set pgrx "rx_reset" ;;
		3) in_ns "$RX" pg_set pgrx "rx_disable fv10" ;;
		4) in_ns "$RX" pg_set pgrx "rx fv10" ;;
		5) in_ns "$RX" pg_set pgrx "display human" ;;
		6) in_ns "$RX" pg_set ipopt off ;;
		7) in_ns "$RX" pg_set ipopt on ;;
		8) in_ns "$RX" pg_set ipopt "verdict ts drop" ;;
		9) in_ns "$RX" pg_set ipopt reset ;;
		10) in_ns "$RX" pg_set pgrx "statistics basic" ;;
		11) in_ns "$RX" pg_set pgrx "display script" ;;
		esac
		in_ns "$RX" pg_read pgrx && in_ns "$RX" pg_read ipopt
	done >/dev/null 2>&1
	echo "$i"
}

# rx_sane: the receiver's figures (display script) in RX_TEXT are
# unwrapped and agree with each other, for the totals and every stream
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
rx_sane() {
	python3 -S "$LIB_DIR/rx_sane.py" "$WRAP" <<<"$RX_TEXT"
}

# ip_sane N: every classifier count is below N (the frames sent) and
# unwrapped; something was classified and something counted malformed
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
ip_sane() {
	local t
	t=$(in_ns "$RX" pg_read ipopt)
	awk -F= -v n="$1" '
		/^(fz1|fv10|total)\.[a-z_]+=[0-9]+$/ && $2 > n { print "over " n ": " $0; bad = 1 }
		/^total\.any=/ { any = $2 }
		/^total\.malformed=/ { mal = $2 }
		END {
			if (any == 0 || mal == 0) { print "any=" any " malformed=" mal; bad = 1 }
			exit bad
		}' <<<"$t" || { echo "$t"; return 1; }
}

sunreclaim_kb() { awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo; }

rx_begin 15
# round 1 switches the receiver's and the classifier's hooks on and off
# while frames arrive: hold their static keys (TCG, see lib.sh)
pin_static_keys
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "pgrx on fz1 and fv10, statistics time" eval '
	rx_cmd "$RX" "rx fz1" && rx_cmd "$RX" "rx fv10" &&
	rx_cmd "$RX" "statistics time" && rx_cmd "$RX" "display script"'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "ipopt on; rr drop, ra queue:5 bypass, lsrr queue:6 (no listener)" eval '
	in_ns "$RX" pg_set ipopt on && in_ns "$RX" pg_set ipopt "verdict rr drop" &&
	in_ns "$RX" pg_set ipopt "verdict ra queue:5 bypass" &&
	in_ns "$RX" pg_set ipopt "verdict lsrr queue:6"'
slab0=$(sunreclaim_kb)

# round 1: settings change and files are read while the frames arrive
stop=$(lib_tmpdir)/stop
churn "$stop" >"$(lib_tmpdir)/churn" &
cpid=$!
fuzz "$SEED" "round 1, settings changing"
touch "$stop"
wait "$cpid"
ktap_diag "round 1: $(cat "$(lib_tmpdir)/churn") setting changes and reads beside it"

# round 2: a still configuration, the figures of this round only
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "round 2 set-up: rx_reset, statistics time, display script, ipopt reset" eval '
	rx_cmd "$RX" "rx fv10" 2>/dev/null; rx_cmd "$RX" "statistics time" &&
	rx_cmd "$RX" "display script" && rx_cmd "$RX" rx_reset &&
	in_ns "$RX" pg_set ipopt on && in_ns "$RX" pg_set ipopt reset &&
	in_ns "$RX" pg_set ipopt "display=script"'
fuzz $((SEED + 1)) "round 2"
rx_snap "$RX"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "pgrx: some pktgen frames counted, none above $FRAMES" eval '
	rx_between rx_packets 1 "$FRAMES"'
check "pgrx: no figure wrapped, min <= avg <= max, stddev within range" rx_sane
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "pgrx: stream table bounded (streams <= streams_max)" eval '
	[ "$(rx_val streams)" -le "$(rx_val streams_max)" ]'
# stamps decades away and numbers 2^30 ahead are malformed, not samples
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "pgrx: wild stamps and numbers counted malformed, latency below 2^40 ns" eval '
	rx_between malformed 1 "$FRAMES" && rx_between latency_max_ns 0 1099511627775 &&
	rx_between jitter_ns 0 1099511627775'
check "ipopt: counts within $FRAMES, options seen, malformed ones counted" ip_sane "$FRAMES"

# the receiver still counts a real run exactly
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "rx_reset, ipopt off, clean pktgen run of 1000" eval '
	rx_cmd "$RX" rx_reset && in_ns "$RX" pg_set ipopt off && tx_run "$TX"'
rx_snap "$RX"
check "clean run: rx_packets 1000, lost 0, duplicates 0, restarts 0" \
	rx_expect rx_packets 1000 lost 0 duplicates 0 restarts 0 reordered 0

# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "rx_disable fz1 and fv10" eval '
	rx_cmd "$RX" "rx_disable fz1" && rx_cmd "$RX" "rx_disable fv10"'
slab=$(( $(sunreclaim_kb) - slab0 ))
check "slab (SUnreclaim) grew by less than 16 MiB: $slab KiB" test "$slab" -lt 16384
ktap_finish
