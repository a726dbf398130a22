#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# suite: slow
#
# Smoke test of the IPv4 option benchmark (make bench-ipopt):
# bench/ipopt-guest.sh --quick runs each cell once (sender -> router ->
# sink, classifier off/on, ipodump interception: -T ra and -T rr through
# PF_IPOPTION with --timers, --router-alert -T ra, -T rr through NFQUEUE;
# 16-byte UDP payloads, and 1400 bytes for rr_ipodump, the memo's size
# comparison) and prints the report.  No timing
# assertion: every cell must have run at its payload sizes, its paced
# packets reached the sink with a latency, its unpaced run forwarded
# packets, the family cells have ipodump's timers, and the report has a
# row per cell and size.  Ours only (the classifier
# and the receiver are not in the stock module).
. "$(dirname "$0")/lib/lib.sh"

BENCH=$(cd "$(dirname "$0")/../bench" && pwd)
CELLS="plain ra rr plain_cls ra_cls rr_cls ra_ipodump rr_ipodump ra_ralert rr_nfqueue"
ROWS=11		# every cell at 16 bytes, rr_ipodump at 1400 too

ktap_header
if ! pg_is_ours; then
	ktap_plan 1
	ktap_skip "bench-ipopt smoke" "needs ours (classifier, receiver)"
	ktap_finish
fi
ktap_plan $((5 + $(wc -w <<<"$CELLS")))	# exits 0, a check per cell, timers, 3 of the report

OUT_DIR=$(mktemp -d /tmp/bench-ipopt.XXXXXX)
defer rm -rf "$OUT_DIR"
LOG=$OUT_DIR/guest.log
rc=0
"$BENCH/ipopt-guest.sh" --quick --out "$OUT_DIR" >"$LOG" 2>&1 || rc=$?
sed 's/^/# /' "$LOG"
check "bench/ipopt-guest.sh --quick exits 0" test "$rc" -eq 0

# runs.csv: pass,cell,lat_p50_ns,lat_avg_ns,lat_lost,tput_rx,tput_usec,tput_pps,
# payload,frame,timer_n,recvmsg_mean_us,recvmsg_median_us,user_mean_us,...
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
cell_ok() {	# CELL: runs, each with a latency, none lost, forwarded packets
	awk -F, -v c="$1" '$2 == c { n++; if ($3 > 0 && $5 == 0 && $6 > 0 && $8 > 0) good++ }
		END { exit !(n >= 1 && good == n) }' "$OUT_DIR/runs.csv" && return 0
	grep -E "^pass|,$1," "$OUT_DIR/runs.csv"
	return 1
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
timers_ok() {	# the family cells' rows: timers of as many packets as were paced
	awk -F, '$2 ~ /_ipodump$/ { n++; if ($11 > 0 && $13 > 0 && $15 > 0 && $17 > 0) good++ }
		END { exit !(n == 3 && good == 3) }' "$OUT_DIR/runs.csv" && return 0
	grep -E "^pass|_ipodump," "$OUT_DIR/runs.csv"
	return 1
}
for c in $CELLS; do
	check "$c: latency measured, none lost, packets forwarded" cell_ok "$c"
done
check "ra_ipodump, rr_ipodump (both sizes): ipodump's --timers recorded" timers_ok
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
rows_ok() {	# FILE COUNT PATTERN: COUNT lines of FILE match PATTERN
	[ "$(grep -cE "$3" "$1")" -eq "$2" ]
}
check "runs.csv: a row per cell and size" rows_ok "$OUT_DIR/runs.csv" "$ROWS" '^[0-9]+,'
check "report: a row per cell and size" rows_ok "$OUT_DIR/report.md" "$ROWS" \
	'^\| [a-z_]+: .* \| [0-9]+ \([0-9]+\) \| [0-9]+ \([0-9]+-[0-9]+\) \|'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "report: the memo's figures beside them (Figure 3, sizes, Figure 4)" eval \
	'grep -q "40.74 (no PF_IPOPTION)" "$OUT_DIR/report.md" && grep -q "116.4 vs 132.6" "$OUT_DIR/report.md" &&
	grep -qF "| 46.28 |" "$OUT_DIR/report.md"'
ktap_finish
