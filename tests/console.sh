#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# suite: slow
#
# consoles/pktgen.html, served by Prometheus itself, rendered by headless
# Chromium (Debian's) during a pktgen run into pgrx and after it: the
# page lists the host, a receive rate above zero while the run goes on,
# and after the run the packets, lost and latency percentiles that
# Prometheus's API gives (the page's figures are its queries'); the
# screenshot is a PNG.  Everything in the guest (netns P for the
# exporter, Prometheus and Chromium): Documentation/many-hosts.rst.

# The checks run through check/eval/slowwait, so their functions look
# unreachable and their single-quoted $ expand later:
# shellcheck disable=SC2016,SC2317

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/prom-lib.sh"

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
PAGE="$PROM/consoles/pktgen.html?window=20s"

setup() {
	[ -x "$CHROMIUM" ] || { echo "no $CHROMIUM (apt-get install chromium)"; return 4; }
	prom_setup consoles
}

# chrome ARGS...: headless Chromium in P, bounded
chrome() {
	local tmp
	tmp=$(lib_tmpdir)
	mkdir -p "$tmp/chrome"
	HOME=$tmp timeout 300 ip netns exec "$P" "$CHROMIUM" --headless --no-sandbox \
		--disable-gpu --disable-dev-shm-usage --no-first-run \
		--user-data-dir="$tmp/chrome" "$@" 2>>"$tmp/chrome.log"
}

# cell DOM ID-OR-CLASS: the text of the first <td id=/class= ...>
cell() {
	/usr/bin/python3 -c 'import re,sys
m = re.search(r"<td (?:id|class)=\"%s\"[^>]*>([^<]*)</td>" % re.escape(sys.argv[1]), sys.stdin.read())
print(m.group(1) if m else "")' "$2" <<<"$1"
}

# near A B: A and B (the page's %.4g and Prometheus's full value) agree
# to 4 significant digits
near() {
	/usr/bin/python3 -c 'import sys
a, b = float(sys.argv[1]), float(sys.argv[2])
sys.exit(0 if abs(a - b) <= 1e-3 * max(abs(a), abs(b)) + 1e-12 else 1)' "$1" "$2" ||
		{ echo "page $1, Prometheus $2"; return 1; }
}

ktap_header
ktap_plan 9
ktap_setup setup

check "exporter scraped: up == 1" scraped
# no count: the run lasts until the page has been read during it, however
# long Chromium takes to start (over a minute from 5.10's 9p root)
in_ns "$TX" pg_set veth0 "count 0"
ip netns exec "$TX" sh -c 'echo start > /proc/net/pktgen/pgctrl' &
run=$!
slowwait 60 eval 'v=$(q "sum(rate(pgrx_rx_packets_total[20s]))") && [ "${v%.*}" != 0 ]'
DOM=$(chrome --dump-dom "$PAGE")
check "during the run: the page renders, host 'guest' listed" \
	eval 'grep -q "data-host=\"guest\"" <<<"$DOM" || { echo "$DOM" | head -40; false; }'
live=$(cell "$DOM" rx-pps-total)
check "during the run: rx packets/s total > 0 ($live)" \
	eval '[ -n "$live" ] && [ "$live" != - ] && /usr/bin/python3 -c "import sys; sys.exit(float(sys.argv[1]) <= 0)" "$live"'
in_ns "$TX" pg_write pgctrl stop
check "the run ends" eval "timeout -s INT 180 tail --pid=$run -f /dev/null"
sleep 10
slowwait 60 eval '[ "$(q "sum(pgrx_rx_packets_total)")" = "$(q "sum(pgrx_rx_packets_total offset 5s)")" ]'
DOM=$(chrome --dump-dom "$PAGE")
tmp=$(lib_tmpdir)
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "after the run: rx packets on the page = Prometheus = pgrx" eval '
	got=$(cell "$DOM" rx-packets-total) && want=$(q "sum(pgrx_rx_packets_total)") &&
	rxj=$(in_ns "$RX" pg_read pgrx) && [ "$got" = "$want" ] &&
	grep -q "\"rx_packets\": $got," <<<"$rxj" || { echo "page $got, prometheus $want"; false; }'
check "after the run: tx packets on the page = Prometheus" eval \
	'[ "$(cell "$DOM" tx-packets-total)" = "$(q "sum(pktgen_tx_packets_total)")" ]'
check "after the run: lost on the page = Prometheus" eval \
	'[ "$(cell "$DOM" rx-lost-total)" = "$(q "sum(pgrx_lost_packets_total)")" ]'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "after the run: p50/p99 on the page = histogram_quantile" eval '
	near "$(cell "$DOM" rx-p50-total)" "$(q "histogram_quantile(0.5, sum by (le) (pgrx_latency_seconds_bucket))")" &&
	near "$(cell "$DOM" rx-p99-total)" "$(q "histogram_quantile(0.99, sum by (le) (pgrx_latency_seconds_bucket))")"'
chrome --screenshot="$tmp/page.png" --window-size=1000,700 "$PAGE" >/dev/null
check "screenshot is a PNG" eval \
	'[ "$(head -c 8 "$tmp/page.png" | od -An -tx1 | tr -d " ")" = 89504e470d0a1a0a ]'
[ -n "${CONSOLE_SHOT:-}" ] && cp "$tmp/page.png" "$CONSOLE_SHOT"

ktap_finish
