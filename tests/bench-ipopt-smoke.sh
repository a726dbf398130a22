#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke test of the IPv4 option benchmark (make bench-ipopt):
# bench/ipopt-guest.sh --quick runs each cell once (sender -> router ->
# sink, classifier off/on, ipodump interception: -T ra through
# PF_IPOPTION, --router-alert -T ra, -T rr through NFQUEUE) and
# prints the report.  No timing assertion: every cell must have run, its
# paced packets reached the sink with a latency, its unpaced run forwarded
# packets, and the report has a row per cell.  Ours only (the classifier
# and the receiver are not in the stock module).
. "$(dirname "$0")/lib/lib.sh"

BENCH=$(cd "$(dirname "$0")/../bench" && pwd)
CELLS="plain ra plain_cls ra_cls rr_cls ra_ipodump ra_ralert rr_nfqueue"

ktap_header
if ! pg_is_ours; then
	ktap_plan 1
	ktap_skip "bench-ipopt smoke" "needs ours (classifier, receiver)"
	ktap_finish
fi
ktap_plan $((3 + $(wc -w <<<"$CELLS")))	# exits 0, a check per cell, 2 of the report

OUT_DIR=$(mktemp -d /tmp/bench-ipopt.XXXXXX)
cleanup_push "rm -rf $OUT_DIR"
LOG=$OUT_DIR/guest.log
rc=0
"$BENCH/ipopt-guest.sh" --quick --out "$OUT_DIR" >"$LOG" 2>&1 || rc=$?
sed 's/^/# /' "$LOG"
check "bench/ipopt-guest.sh --quick exits 0" test "$rc" -eq 0

# runs.csv: pass,cell,lat_p50_ns,lat_avg_ns,lat_lost,tput_rx,tput_usec,tput_pps
cell_ok() {	# CELL: one run, a latency, every paced packet, forwarded packets
	awk -F, -v c="$1" '$2 == c { n++; if ($3 > 0 && $5 == 0 && $6 > 0 && $8 > 0) good++ }
		END { exit !(n == 1 && good == 1) }' "$OUT_DIR/runs.csv" && return 0
	grep -E "^pass|,$1," "$OUT_DIR/runs.csv"
	return 1
}
for c in $CELLS; do
	check "$c: latency measured, none lost, packets forwarded" cell_ok "$c"
done
check "report: a row per cell" eval \
	'[ "$(grep -cE "^\| [a-z_]+: .* \| [0-9]+ \([0-9]+-[0-9]+\) \|" "$OUT_DIR/report.md")" -eq "$(wc -w <<<"$CELLS")" ]'
check "report: the memo's figures beside them" grep -q "40.74 µs" "$OUT_DIR/report.md"
ktap_finish
