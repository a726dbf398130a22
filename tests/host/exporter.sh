#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: tools/pktgen-exporter on fixed files (tests/host/
# exporter-fixture: a pgstats block, pgrx's JSON view of one stream, an
# ipopt "display script") with Debian's /usr/bin/python3 and
# python3-prometheus-client: one scrape passes promtool check metrics,
# names and values are those of Documentation/many-hosts.rst, and the
# histogram's cumulative counts at the exported edges are exact.  Prints
# KTAP and "N passed, N failed, N skipped".  The live scrape by a real
# Prometheus server is tests/exporter.sh (VM).

# The checks run through check, so their functions look unreachable:
# shellcheck disable=SC2317

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tests/lib/lib.sh"

FIX=$REPO/tests/host/exporter-fixture
T=$(lib_tmpdir)

scrape() {	# ARGS...: one scrape of the fixture into $T/out.prom
	PKTGEN_PROC_NET=$FIX /usr/bin/python3 "$REPO/tools/pktgen-exporter" --once \
		--no-display-write --host fx "$@" >"$T/out.prom"
}

# has LINE...: the scrape has exactly these sample lines
has() {
	local l
	for l in "$@"; do
		grep -qxF "$l" "$T/out.prom" && continue
		echo "no line: $l"
		grep -F "${l%%\{*}" "$T/out.prom"
		return 1
	done
}

S='host="fx",netns="",stream="veth1-ipv4-02:00:00:00:00:01"'
D='device="veth0",host="fx",ifname="veth0",netns="",thread="0"'
# bucket LE COUNT: a bucket's sample line
bucket() { echo "pgrx_latency_seconds_bucket{host=\"fx\",le=\"$1\",${S#host=\"fx\",}} $2"; }
buckets() { grep -c '^pgrx_latency_seconds_bucket' "$T/out.prom"; }
promtool_ok() { promtool check metrics <"$T/out.prom"; }

pgstats_ok() {
	has "pktgen_tx_packets_total{$D} 50.0" "pktgen_tx_bytes_total{$D} 3000.0" \
		"pktgen_tx_rate_bytes_per_second{$D} 2.5e+07" \
		"pktgen_start_at_timestamp_seconds{$D} 1.76462e+09"
}
pgrx_ok() {
	has "pgrx_rx_packets_total{$S} 50.0" "pgrx_latency_p50_seconds{$S} 4.1000000000000006e-06" \
		'pgrx_streams{host="fx",netns=""} 1.0'
}
# fixture buckets: [16,17) 1, [4096,4352) 40, [65536,69632) 9
hist_ok() {
	has "$(bucket 1.5e-08 0.0)" "$(bucket 3.1e-08 1.0)" "$(bucket 8.191e-06 41.0)" \
		"$(bucket 6.5535e-05 41.0)" "$(bucket 0.000131071 50.0)" "$(bucket +Inf 50.0)" \
		"pgrx_latency_seconds_count{$S} 50.0" || return 1
	[ "$(buckets)" -eq 33 ] || { echo "$(buckets) buckets"; return 1; }
}
ipopt_ok() {
	has 'ipopt_packets_total{host="fx",interface="r0",netns="",type="rr"} 155.0' \
		'ipopt_queued_packets_total{host="fx",netns=""} 3.0'
}
quarter_ok() {
	scrape --buckets quarter && promtool_ok || return 1
	[ "$(buckets)" -eq 126 ] || { echo "$(buckets) buckets"; return 1; }
	has "$(bucket 5.119e-06 41.0)" "$(bucket 4.095e-06 1.0)"
}
no_ns_ok() {
	PKTGEN_PROC_NET=$FIX /usr/bin/python3 "$REPO/tools/pktgen-exporter" --once --no-own-netns \
		--netns pgt-no-such-ns >"$T/out.prom" 2>"$T/err" &&
		grep -q '^pktgen_exporter_up{.*netns="pgt-no-such-ns"} 0.0' "$T/out.prom" && promtool_ok
}

ktap_header
ktap_plan 8
if ! /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null || ! command -v promtool >/dev/null; then
	ktap_skip_all "pktgen-exporter" "needs python3-prometheus-client and promtool (prometheus)"
fi
check "a scrape (pow2 buckets)" scrape
check "promtool check metrics: clean" promtool_ok
check "pgstats: packets, bytes, rate in bytes/s, start time in seconds" pgstats_ok
check "pgrx: counters, gauges, the stream count" pgrx_ok
check "histogram: exact cumulative counts at power-of-two edges (le = edge - 1 ns)" hist_ok
check "ipopt: per interface and type, queued" ipopt_ok
check "--buckets quarter: 126 buckets, promtool clean, quarter edges exact" quarter_ok
check "--netns of a namespace that does not exist: up 0, the scrape still valid" no_ns_ok
echo "$_KT_PASS passed, $_KT_FAIL failed, $_KT_SKIP skipped"
ktap_finish
