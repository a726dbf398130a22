#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# suite: slow
#
# pgrx's display json (Documentation/receiver.rst, "Output"): the schema's
# keys, every value equal to display script's for the same quiesced state,
# parsed by /usr/bin/python3's json; the histogram's buckets (the table's,
# ascending, adding up to latency_samples, the total the sum of the
# streams'); the percentiles tools/pgrx-hist computes from the buckets by
# pgrx's rule equal to pgrx's own, per stream and total; 64 streams with
# hundreds of buckets each read whole, in 4093-byte reads
# and after an lseek to 0 on one descriptor; reads during a run;
# statistics basic (no buckets); pgrx-hist's .hgrm and CSV.
#
#   netns TX                                netns RX
#   +---------------------------+           +----------------------------+
#   | pktgen "veth0"            |   veth    | veth1  <-- pgrx "rx veth1" |
#   | rx_json_check.py send     |---------->|   display json / script    |
#   +---------------------------+           +----------------------------+
# test-timeout: 1500

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

PY=/usr/bin/python3
CHECK="$(dirname "$0")/lib/rx_json_check.py"
HIST="$(cd "$(dirname "$0")/.." && pwd)/tools/pgrx-hist"
# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
TOP="$(cd "$(dirname "$0")/.." && pwd)/tools/pktgen-top"
N=20000

setup() {
	pg_load || return 1
	setup_ns TX RX || return 1
	veth_create "$TX" veth0 "$RX" veth1 || return 1
	ip -n "$RX" addr add 10.96.1.2/24 dev veth1 || return 1
	tx_setup "$TX" veth0 &&
		tx_set "$TX" veth0 "count $N" "pkt_size 60" "dst 10.96.1.2" \
			"dst_mac $(mac_of "$RX" veth1)"
}

D=$(lib_tmpdir)

# snap NAME: display script into $D/NAME.txt, then display json into
# $D/NAME.json (the state must be quiet), display json left set.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
snap() {
	rxj_cmd "$RX" "display script" &&
		ip netns exec "$RX" cat /proc/net/pktgen/pgrx >"$D/$1.txt" &&
		rxj_cmd "$RX" "display json" &&
		ip netns exec "$RX" cat /proc/net/pktgen/pgrx >"$D/$1.json"
}

# jkey NAME KEY: a value of $D/NAME.json (KEY as rx_json_check.py keys).
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
jkey() { "$PY" "$CHECK" keys "$D/$1.json" "$2"; }

rx_begin 23

# 1. the command, an empty receiver
check "display json: OK" rxj_cmd "$RX" "display json"
check "display bogus: EINVAL, names json" rxj_cmd "$RX" "display bogus" 22 \
	'^ERROR: display takes human, script or json'
check "rx veth1: OK" rxj_cmd "$RX" "rx veth1"
# the Result is inside the object: the read is one JSON value and nothing else
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "no streams: one object, stream_count 0, streams [], empty histogram, result" eval '
	snap empty && "$PY" "$CHECK" compare "$D/empty.txt" "$D/empty.json" &&
	[ "$(jkey empty stream_count)" = 0 ] && [ "$(jkey empty streams)" = 0 ] &&
	[ "$(jkey empty total.histogram)" = 0 ] &&
	[ "$(jkey empty result)" = "OK: display=json" ] &&
	[ "$(tail -c 2 "$D/empty.json" | od -An -c | tr -d " ")" = "}\n" ]'

# 2. a pktgen run: the JSON equals the script, the buckets the percentiles
check "run $N packets" tx_run "$TX"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "json = script: every key, buckets add up to latency_samples" eval \
	'snap run && "$PY" "$CHECK" compare "$D/run.txt" "$D/run.json"'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "one stream, $N packets, veth1's name" eval '
	[ "$(jkey run stream_count)" = 1 ] && [ "$(jkey run total.rx_packets)" = '"$N"' ] &&
	jkey run streams.0.stream | grep -q "^veth1-ipv4-"'
check "pgrx-hist --percentiles --check: p50/p90/p99/p99.9 from the buckets = pgrx's" \
	"$PY" "$HIST" --percentiles --check "$D/run.json"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "pgrx-hist on the live file (in RX): same as on the saved one" eval '
	ip netns exec "$RX" "$PY" "$HIST" --csv "$D/live.csv" &&
	"$PY" "$HIST" --csv - "$D/run.json" | cmp - "$D/live.csv"'

# 3. pgrx-hist's formats
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "CSV: header, lo<hi, cumulative to latency_samples" eval '
	"$PY" "$HIST" --csv "$D/run.csv" "$D/run.json" &&
	head -n 1 "$D/run.csv" | grep -qx "lo_ns,hi_ns,count,cumulative" &&
	awk -F, -v n="$(jkey run total.latency_samples)" "
		NR > 1 { if (\$1 >= \$2 || \$3 <= 0 || \$4 != c + \$3) bad = 1; c = \$4 }
		END { exit bad || c != n }" "$D/run.csv"'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check ".hgrm: header, rising rows, 1.0 at the max, the footer" eval '
	"$PY" "$HIST" --unit ns --hgrm "$D/run.hgrm" "$D/run.json" &&
	head -n 1 "$D/run.hgrm" | grep -qE "^ +Value +Percentile +TotalCount 1/\(1-Percentile\)$" &&
	max=$(jkey run total.latency_max_ns) n=$(jkey run total.latency_samples) &&
	grep -qE "^ *$max\.000 +1\.000000 +$n +inf$" "$D/run.hgrm" &&
	grep -qE "^#\[Mean    = +[0-9.]+, StdDeviation   = +[0-9.]+\]$" "$D/run.hgrm" &&
	grep -qE "^#\[Max     = +$max\.000, Total count    = +$n\]$" "$D/run.hgrm" &&
	grep -qE "^#\[Buckets = +31, SubBuckets     = +32\]$" "$D/run.hgrm" &&
	awk "NF == 4 && \$1 ~ /^[0-9]/ { if (\$1 + 0 < v || \$2 + 0 < p || \$3 + 0 < c) bad = 1
		v = \$1; p = \$2; c = \$3; rows++ } END { exit bad || rows < 10 }" "$D/run.hgrm"'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check ".hgrm rows at 0.5 and 0.9 are pgrx's p50 and p90" eval '
	for p in 50:0.500000 90:0.900000; do
		v=$(jkey run total.latency_p${p%%:*}_ns)
		grep -qE "^ *$v\.000 +${p#*:} " "$D/run.hgrm" || { echo "p${p%%:*}=$v"; exit 1; }
	done'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "pgrx-hist on a script view: exit 5 (not the JSON view)" eval \
	'"$PY" "$HIST" "$D/run.txt"; [ $? = 5 ]'

# 4. reads during a run parse
tx_set "$TX" veth0 "count 0" "ratep 5000" >/dev/null
ip netns exec "$TX" bash -c 'echo start >/proc/net/pktgen/pgctrl' &
TXPID=$!
defer kill "$TXPID"
sleep 1
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "10 reads during a run: each one JSON object, packets never going back" eval '
	last=0
	for i in $(seq 10); do
		ip netns exec "$RX" cat /proc/net/pktgen/pgrx >"$D/live.json" &&
		p=$("$PY" "$CHECK" keys "$D/live.json" total.rx_packets) || exit 1
		[ "$p" -ge "$last" ] || { echo "rx_packets $last then $p"; exit 1; }
		last=$p
	done
	[ "$last" -gt 0 ]'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "pktgen-top --rx RX --json (in TX): the receive side, packets rising, p50 > 0" eval '
	ip netns exec "$TX" "$PY" "$TOP" --rx "$RX" --json --interval 1 --iterations 3 >"$D/top.jsonl" &&
	"$PY" -c "
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
rx = [o[\"rx\"] for o in objs]
tot = [r[-1] for r in rx]
assert all(t[\"stream\"] == \"all\" for t in tot), tot
assert tot[0][\"received\"] < tot[-1][\"received\"], tot
assert tot[-1][\"pps\"] > 0 and tot[-1][\"p50_ns\"] > 0, tot
assert objs[-1][\"devices\"][0][\"pps\"] > 0, objs[-1]
" "$D/top.jsonl"'
ip netns exec "$TX" bash -c 'echo stop >/proc/net/pktgen/pgctrl'
wait "$TXPID" 2>/dev/null

# 5. 64 streams of hand-made frames with latencies from 1 us to 9 minutes
# (the table's limit and overflow: rx-streams.sh)
check "rx_reset" rxj_cmd "$RX" rx_reset
check "64 streams x 300 frames" ip netns exec "$TX" "$PY" "$CHECK" send \
	veth0 "$(mac_of "$RX" veth1)" 64 300 0 7
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "64 streams: json = script, no overflow, every stream 120+ buckets" eval '
	snap big && "$PY" "$CHECK" compare "$D/big.txt" "$D/big.json" &&
	[ "$(jkey big stream_count)" = 64 ] && [ "$(jkey big overflow_packets)" = 0 ] &&
	"$PY" "$CHECK" buckets "$D/big.json" 120'
check "64 streams: output larger than 256 KiB" \
	test "$(stat -c %s "$D/big.json")" -gt 262144
check "64 streams: pgrx-hist --percentiles --check (65 rows)" \
	"$PY" "$HIST" --percentiles --check "$D/big.json"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "read in 4093-byte reads: the same object" eval '
	ip netns exec "$RX" dd if=/proc/net/pktgen/pgrx bs=4093 status=none >"$D/dd.json" &&
	"$PY" "$CHECK" same "$D/big.json" "$D/dd.json"'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "one descriptor, read, lseek 0, read: twice the same object" eval '
	ip netns exec "$RX" "$PY" -c "
import os, sys
fd = os.open(\"/proc/net/pktgen/pgrx\", os.O_RDONLY)
for name in sys.argv[1:]:
    os.lseek(fd, 0, os.SEEK_SET)
    with open(name, \"wb\") as f:
        while True:
            b = os.read(fd, 65536)
            if not b:
                break
            f.write(b)
" "$D/fd1.json" "$D/fd2.json" &&
	"$PY" "$CHECK" same "$D/big.json" "$D/fd1.json" &&
	"$PY" "$CHECK" same "$D/big.json" "$D/fd2.json"'

# 6. statistics basic keeps no histogram
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "statistics basic: json = script, every histogram []" eval '
	rxj_cmd "$RX" "statistics basic" && rxj_cmd "$RX" rx_reset &&
	tx_set "$TX" veth0 "count 1000" && tx_run "$TX" &&
	snap basic && "$PY" "$CHECK" compare "$D/basic.txt" "$D/basic.json" &&
	[ "$(jkey basic total.histogram)" = 0 ] && [ "$(jkey basic total.latency_samples)" = 1000 ]'

ktap_finish
