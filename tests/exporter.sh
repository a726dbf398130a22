#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# suite: slow
#
# tools/pktgen-exporter scraped by a real Prometheus server (Debian's,
# started here with a generated config, 1 s scrape interval, storage in
# the test's tmp dir) during a pktgen run into pgrx: once the run ended
# and a few scrapes later, Prometheus's HTTP API (/api/v1/query) must
# give exactly what /proc shows (pgstats, pgrx's JSON view); the
# histogram's _count and +Inf bucket equal pgrx's latency samples;
# histogram_quantile works on it; promtool check metrics passes on a
# live scrape.
#
#   netns TX: pktgen veth0 --veth-- netns RX: veth1, pgrx
#   netns P:  pktgen-exporter --netns TX --netns RX (127.0.0.1:9477),
#             prometheus (127.0.0.1:9090)

# The checks run through check/eval/slowwait, so their functions look
# unreachable and their single-quoted $ expand later:
# shellcheck disable=SC2016,SC2317

. "$(dirname "$0")/lib/lib.sh"

. "$(dirname "$0")/lib/prom-lib.sh"

setup() { prom_setup ""; }

jget() {	# KEY: pgrx's JSON (RX) stream 0's KEY, or the top level's
	/usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); k=sys.argv[1]
s=d["streams"][0] if d["streams"] else {}
print(s[k] if k in s else d[k])' "$1" <<<"$RXJ"
}

ktap_header
ktap_plan 14
ktap_setup setup

check "exporter scraped: up == 1" scraped
tmp=$(lib_tmpdir)
ip netns exec "$TX" sh -c 'echo start > /proc/net/pktgen/pgctrl' &
run=$!
check "running: Prometheus sees tx packets grow" slowwait 60 eval \
	'v=$(q "pktgen_tx_packets_total{device=\"veth0\"}") && [ "${v%.*}" -gt 0 ]'
ip netns exec "$P" curl -sf "$EXP/metrics" >"$tmp/live.prom"
check "promtool check metrics on a live scrape" eval \
	'promtool check metrics <"$tmp/live.prom" || { head -40 "$tmp/live.prom"; false; }'
check "the run ends" eval "timeout -s INT 120 tail --pid=$run -f /dev/null"
# values stop changing once the run ended: wait for a scrape after the end
sleep 10
ST=$(in_ns "$TX" pg_read pgstats)
in_ns "$RX" pg_write pgrx "display json"
RXJ=$(in_ns "$RX" pg_read pgrx)
kv_get "$ST" pkts_sofar; sent=$KVAL
kv_get "$ST" tx_bytes; bytes=$KVAL
kv_get "$ST" errors; errs=$KVAL
check "/proc: $N sent" test "$sent" = "$N"
check "tx packets: Prometheus = pgstats ($sent)" slowwait 30 same "pktgen_tx_packets_total{device=\"veth0\"}" "$sent"
check "tx bytes: Prometheus = pgstats ($bytes)" same "pktgen_tx_bytes_total{device=\"veth0\"}" "$bytes"
check "tx errors: Prometheus = pgstats ($errs)" same "pktgen_tx_errors_total{device=\"veth0\"}" "$errs"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "rx packets, bytes, lost, duplicates, reordered: Prometheus = pgrx JSON" eval '
	same "sum(pgrx_rx_packets_total)" "$(jget rx_packets)" &&
	same "sum(pgrx_rx_bytes_total)" "$(jget rx_bytes)" &&
	same "sum(pgrx_lost_packets_total)" "$(jget lost)" &&
	same "sum(pgrx_duplicate_packets_total)" "$(jget duplicates)" &&
	same "sum(pgrx_reordered_packets_total)" "$(jget reordered)"'
check "pgrx streams: Prometheus = JSON (TX's pgrx has none)" same "sum(pgrx_streams)" "$(jget stream_count)"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "histogram: _count = +Inf bucket = pgrx latency_samples" eval '
	same "sum(pgrx_latency_seconds_count)" "$(jget latency_samples)" &&
	same "sum(pgrx_latency_seconds_bucket{le=\"+Inf\"})" "$(jget latency_samples)"'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "latency p50 from histogram_quantile within a power of two of pgrx p50" eval '
	p=$(q "histogram_quantile(0.5, sum by (le) (pgrx_latency_seconds_bucket))") &&
	want=$(jget latency_p50_ns) && /usr/bin/python3 -c "import sys
p, w = float(sys.argv[1]) * 1e9, float(sys.argv[2])
print(\"histogram_quantile p50 %.0f ns, pgrx p50 %.0f ns\" % (p, w))
sys.exit(0 if w / 2 <= p <= w * 2 else 1)" "$p" "$want"'
# figures for Documentation/many-hosts.rst's scale section
echo "# scrape: $(grep -vc '^#' "$tmp/live.prom") series, $(wc -c <"$tmp/live.prom") bytes;" \
	"pgrx JSON: ${#RXJ} bytes for $(jget stream_count) stream(s);" \
	"read time per netns: $(ip netns exec "$P" /usr/bin/python3 "$PQ" "$PROM" pktgen_exporter_read_seconds | tr '\n' ' ')"
check "rx_packets + lost = sent" eval '[ $(($(jget rx_packets) + $(jget lost))) -eq "$sent" ]'
check "exporter: no read errors" eval '[ "$(q "min(pktgen_exporter_up)")" = 1 ] && ! [ -s "$tmp/exporter.log" ] || { cat "$tmp/exporter.log"; false; }'

ktap_finish
