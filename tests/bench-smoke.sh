#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# suite: slow
#
# Smoke test of the benchmark harness: bench/guest.sh --quick on two cells
# (dummy and veth, start_xmit, 64 B) and one paced veth cell (captured
# gaps) runs the kernel's pktgen.ko and ours once each and prints a
# Markdown table with a ratio per cell and the pacing table.  No timing
# assertion: only that both modules sent packets in every run, the gaps
# were measured and the tables are complete.  Runs the same whatever PKTGEN_MODULE says (the
# benchmark always loads both modules).
. "$(dirname "$0")/lib/lib.sh"

BENCH=$(cd "$(dirname "$0")/../bench" && pwd)
TP_CELLS="dummy/xmit/64/1t veth/xmit/64/1t" PACED=veth/ratep10000/64/1t
CELLS="$TP_CELLS $PACED"

ktap_header
ktap_plan 9

OUT_DIR=$(mktemp -d /tmp/bench-smoke.XXXXXX)
defer rm -rf "$OUT_DIR"
LOG=$OUT_DIR/guest.log
rc=0
"$BENCH/guest.sh" --quick --secs 0.3 --cells "$CELLS" --out "$OUT_DIR" \
	>"$LOG" 2>&1 || rc=$?
sed 's/^/# /' "$LOG"
check "bench/guest.sh --quick exits 0" test "$rc" -eq 0

# runs.csv: cell,module,pass,requested,pps,bps,sofar,errors,usec,status,...
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
ran_ok() {	# CELL MODULE: one run, status ok, packets sent
	awk -F, -v c="$1" -v m="$2" '$1 == c && $2 == m {
		n++; if ($10 == "ok" && $7 > 0) good++ }
		END { exit !(n == 1 && good == 1) }' "$OUT_DIR/runs.csv"
}
for c in $CELLS; do
	check "$c: stock and ours each sent packets once" \
		eval "ran_ok $c stock && ran_ok $c ours"
done

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
row_has_ratio() {	# CELL: its throughput row ends in a numeric ratio
	grep -qE "^\| $1 \| [0-9].* \| [0-9].* \| [0-9]+\.[0-9]{2} \|$" "$LOG"
}
for c in $TP_CELLS; do
	check "$c: table row with ratio ours/stock" row_has_ratio "$c"
done

# ...,note,gap_samples,gap_avg_ns,gap_sd_ns: a capture of every paced run
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
gaps_ok() {	# CELL MODULE
	awk -F, -v c="$1" -v m="$2" '$1 == c && $2 == m && $12 > 0 && $13 > 0 { g++ }
		END { exit !(g == 1) }' "$OUT_DIR/runs.csv"
}
check "$PACED: gaps captured for stock and ours" \
	eval "gaps_ok $PACED stock && gaps_ok $PACED ours"
check "$PACED: pacing table row (requested 100 us, both modules)" \
	grep -qE "^\| $PACED \| 100 us \| [0-9.]+ us \| [0-9.]+ us \| [0-9.]+ us \| [0-9.]+ us \|$" "$LOG"

check "no pktgen module left loaded" test ! -e /sys/module/pktgen/initstate
ktap_finish
