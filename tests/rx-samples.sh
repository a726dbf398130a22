#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# suite: slow
#
# pgrx's sampled latencies (Documentation/receiver.rst, "Sampled
# latencies"): the sample command and its errors; /proc/net/pktgen/
# pgrx_samples (mode, header); every Nth packet (the ring holds exactly
# the sequence numbers N, 2N, ... that were sent); random 1 in N (a count
# within binomial bounds, gaps that vary); the ring overwriting its oldest
# (the last 2048 kept); reads during a run; rx_reset and sample 0 in the
# middle of a read; the namespace exiting with the file open and half
# read (EIO, no oops); tools/pgrx-plot's PNG.
#
#   netns TX                                netns RX
#   +---------------------------+           +----------------------------+
#   | pktgen "veth0"            |   veth    | veth1  <-- pgrx "rx veth1" |
#   |   veth0 10.97.0.1/24      |---------->|   pgrx_samples             |
#   +---------------------------+           +----------------------------+
# test-timeout: 1500

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

PY=/usr/bin/python3
CHECK="$(dirname "$0")/lib/rx_samples_check.py"
# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
PLOT="$(cd "$(dirname "$0")/.." && pwd)/tools/pgrx-plot"
RING=2048

setup() {
	pg_load || return 1
	setup_ns TX RX || return 1
	veth_create "$TX" veth0 "$RX" veth1 || return 1
	ip -n "$RX" addr add 10.97.0.2/24 dev veth1 || return 1
	rx_cmd "$RX" "rx veth1" || return 1
	tx_setup "$TX" veth0 &&
		tx_set "$TX" veth0 "pkt_size 60" "dst 10.97.0.2" "dst_mac $(mac_of "$RX" veth1)"
}

D=$(lib_tmpdir)

# samples NAME: pgrx_samples of RX into $D/NAME.csv
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
samples() { ip netns exec "$RX" cat /proc/net/pktgen/pgrx_samples >"$D/$1.csv"; }

# run COUNT: rx_reset, then COUNT packets from TX
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
run() { rx_cmd "$RX" rx_reset && tx_set "$TX" veth0 "count $1" && tx_run "$TX"; }

rx_begin 21

# 1. the command and the file
# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
EMSG='^ERROR: sample takes N \(every Nth packet\), random N \(1 in N at random\), or 0 \(off\)'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "sample, sample x, sample -1, sample random, sample random 0, sample 1000000001, sample every 5: EINVAL" eval '
	for c in "sample" "sample x" "sample -1" "sample random" "sample random 0" \
		"sample 1000000001" "sample every 5" "sample 5 5"; do
		rx_errno "$RX" "$c" 22 "$EMSG" || exit 1
	done'
check "sample 1 2 3: EINVAL (one command, at most one argument)" rx_errno "$RX" \
	"sample 1 2 3" 22 '^ERROR: one command and at most one argument'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "pgrx_samples: mode 0600, owned by root, pgrx's" eval '
	[ "$(ip netns exec "$RX" stat -c "%a %u" /proc/net/pktgen/pgrx_samples)" = "600 0" ]'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "sampling off: the header alone" eval '
	samples off && [ "$(cat "$D/off.csv")" = "stream,name,sample,rx_ns,seq,latency_ns" ]'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "sampling off, a run: still the header alone" eval '
	run 200 && samples off2 && [ "$(wc -l <"$D/off2.csv")" = 1 ]'

# 2. every Nth
check "sample 10: OK" rx_cmd "$RX" "sample 10"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "pgrx Result: OK: sample=10" eval '[ "$(in_ns "$RX" pg_result pgrx)" = "OK: sample=10" ]'
check "run 5000" run 5000
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "every 10th: seqs 10, 20, ... 5000, numbered 0..499, latencies > 0" eval \
	'samples every && "$PY" "$CHECK" every "$D/every.csv" 10 5000'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "sample 7, rx_reset, run 700: seqs 7, 14, ... 700" eval '
	rx_cmd "$RX" "sample 7" && run 700 && samples seven &&
	"$PY" "$CHECK" every "$D/seven.csv" 7 700'

# 3. random 1 in N
check "sample random 20: OK" rx_cmd "$RX" "sample random 20"
check "run 20000" run 20000
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "random 1 in 20 of 20000: a binomial count, varying gaps" eval \
	'samples rnd && "$PY" "$CHECK" random "$D/rnd.csv" 20 20000'

# 4. the ring overwrites its oldest
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "sample 1, run 5000: the last $RING kept, numbered $((5000 - RING))..4999" eval '
	rx_cmd "$RX" "sample 1" && run 5000 && samples all &&
	"$PY" "$CHECK" last "$D/all.csv" 5000 "$RING"'

# 5. reads during a run, commands during a read
tx_set "$TX" veth0 "count 0" "ratep 5000" >/dev/null
ip netns exec "$TX" bash -c 'echo start >/proc/net/pktgen/pgctrl' &
TXPID=$!
defer kill "$TXPID"
sleep 1
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "5 reads during a run: well formed, numbers rising, the ring filling" eval '
	for i in 1 2 3 4 5; do
		samples live$i && n=$("$PY" "$CHECK" parse "$D/live$i.csv") || exit 1
	done
	[ "$n" -gt 0 ]'
check "rx_reset in the middle of a read: the read ends, rows well formed" \
	ip netns exec "$RX" "$PY" "$CHECK" interrupt rx_reset
check "sample 0 in the middle of a read: the read ends, rows well formed" \
	ip netns exec "$RX" "$PY" "$CHECK" interrupt sample 0
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "sample 0: rings kept (readable), no new samples" eval '
	samples stop1 && sleep 0.5 && samples stop2 && cmp "$D/stop1.csv" "$D/stop2.csv"'
ip netns exec "$TX" bash -c 'echo stop >/proc/net/pktgen/pgctrl'
wait "$TXPID" 2>/dev/null

# 6. the plot
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "pgrx-plot: a PNG of latency over time" eval '
	"$PY" "$PLOT" --png "$D/plot.png" "$D/rnd.csv" &&
	[ "$(head -c 8 "$D/plot.png" | od -An -tx1 | tr -d " ")" = 89504e470d0a1a0a ] &&
	[ "$(stat -c %s "$D/plot.png")" -gt 5000 ]'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "pgrx-plot on a file without samples: exit 5" eval \
	'"$PY" "$PLOT" --png "$D/none.png" "$D/off.csv"; [ $? = 5 ]'

# 7. the namespace goes with pgrx_samples open and half read
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "netns exit during a read: the next read fails with EIO, no oops" eval '
	rx_cmd "$RX" "sample 1" && run 3000 &&
	"$PY" "$CHECK" netns-exit "$RX" "$TX" veth0'

ktap_finish
