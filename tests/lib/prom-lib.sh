# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of tests/exporter.sh and tests/console.sh: a pktgen run from
# netns TX into pgrx in RX, tools/pktgen-exporter and a Prometheus server
# (generated config, 5 s scrapes: a scrape forks a Python child per
# namespace, seconds under TCG on a loaded host; storage in the test's tmp dir) in netns
# P on 127.0.0.1, and queries of Prometheus's HTTP API.  Sourced after
# tests/lib/lib.sh.

REPO=$(cd "$LIB_DIR/../.." && pwd)
EXPORTER=$REPO/tools/pktgen-exporter
PQ="$LIB_DIR/prom_query.py"
N=${EXPORTER_PACKETS:-40000}	# 16 s at 2500 pps: scrapes land during the run
PROM=http://127.0.0.1:9090
export EXP=http://127.0.0.1:9477	# the exporter, for the tests

mac_of() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }

prom_setup() {	# [CONSOLES]: with REPO/consoles served too
	local thr tmp
	if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
		echo "no prometheus/promtool (apt-get install prometheus)"
		return 4
	fi
	/usr/bin/python3 -c 'import prometheus_client' || {
		echo "no python3-prometheus-client for /usr/bin/python3"; return 4; }
	pg_load || return 1
	setup_ns TX RX P || return 1
	veth_create "$TX" veth0 "$RX" veth1 || return 1
	thr=$(pg_first_thread "$TX") || return 1
	in_ns "$TX" pg_write "$thr" "rem_device_all" &&
		in_ns "$TX" pg_write "$thr" "add_device veth0" || return 1
	in_ns "$TX" pg_set veth0 "count $N" && in_ns "$TX" pg_set veth0 "pkt_size 100" &&
		in_ns "$TX" pg_set veth0 "delay 400000" &&
		in_ns "$TX" pg_set veth0 "dst_mac $(mac_of "$RX" veth1)" || return 1
	in_ns "$RX" pg_set pgrx "rx veth1" && in_ns "$RX" pg_set pgrx "statistics time" || return 1
	tmp=$(lib_tmpdir)
	cat >"$tmp/prometheus.yml" <<-EOT
	global:
	  scrape_interval: 5s
	  scrape_timeout: 5s
	scrape_configs:
	  - job_name: pktgen
	    static_configs:
	      - targets: ['127.0.0.1:9477']
	EOT
	promtool check config "$tmp/prometheus.yml" >/dev/null || return 1
	ip netns exec "$P" /usr/bin/python3 "$EXPORTER" --no-own-netns --netns "$TX" \
		--netns "$RX" --host guest --listen 127.0.0.1:9477 2>"$tmp/exporter.log" &
	defer kill $!
	ip netns exec "$P" prometheus --config.file="$tmp/prometheus.yml" \
		--storage.tsdb.path="$tmp/tsdb" --web.listen-address=127.0.0.1:9090 \
		${1:+--web.console.templates="$REPO/consoles"} \
		${1:+--web.console.libraries="$REPO/console_libraries"} \
		>"$tmp/prometheus.log" 2>&1 &
	defer kill $!
	# a 100 MB Go binary over 9p under TCG: minutes on a loaded host
	if ! slowwait "${PROM_START_WAIT:-300}" ip netns exec "$P" curl -sf -o /dev/null "$PROM/-/ready"; then
		echo "prometheus not ready after ${PROM_START_WAIT:-300} s; its log:"
		tail -20 "$tmp/prometheus.log"
		return 1
	fi
}

# q QUERY: the one value of QUERY (Prometheus in P), or fail
q() {
	local out
	out=$(ip netns exec "$P" /usr/bin/python3 "$PQ" "$PROM" "$1") || return 1
	if [ -z "$out" ] || [ "$(wc -l <<<"$out")" -ne 1 ]; then
		echo "query $1: '$out'"
		return 1
	fi
	echo "${out##* }"
}

# same QUERY WANT: Prometheus's value of QUERY is WANT
same() {
	local got
	got=$(q "$1") || return 1
	[ "$got" = "$2" ] && return 0
	echo "$1 = $got, /proc: $2"
	return 1
}


# scraped: Prometheus has scraped the exporter (up == 1) within 180 s;
# else the exporter's log, a direct scrape and Prometheus's target state
scraped() {
	local tmp
	# shellcheck disable=SC2016 # expanded by eval, each try
	slowwait 180 eval '[ "$(q "up{job=\"pktgen\"}" 2>/dev/null)" = 1 ]' && return 0
	tmp=$(lib_tmpdir)
	echo "exporter log:"; cat "$tmp/exporter.log"
	echo "direct scrape:"; timeout 60 ip netns exec "$P" curl -s "$EXP/metrics" | head -5
	echo "targets:"; timeout 60 ip netns exec "$P" curl -s "$PROM/api/v1/targets" | head -c 1500
	return 1
}
