#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the VM (guest.sh mutants, started by tests/lib/mutants.sh): for
# each mutant of $MUTANT_DIR (NAME/: pktgen.ko and pf_ipoption.ko built
# with NAME/mutant.patch) not yet judged, run the tests its patch names
# ("Killed-by:") with those modules as PKTGEN_KO and IPOPTION_KO, in
# order, until one fails: the mutant is killed by it; if none fails, it
# survived.  First the unmutated modules (baseline/) run every test a
# mutant names: a test that fails there would kill every mutant, so the
# run stops.
#
# Results in $OUT/mutants/: NAME.start when a mutant's tests begin (a
# mutant that panics or hangs the guest leaves only that), NAME.verdict
# ("killed TEST" / "survived" / "baseline ok" / "baseline failed TEST")
# and NAME.log (the runner's output).
set -u

REPO=$(cd "$(dirname "$0")/../.." && pwd)
RES=$OUT/mutants
mkdir -p "$RES"

killers() {	# NAME: the tests its patch names
	sed -n 's/^Killed-by: //p' "$MUTANT_DIR/$1/mutant.patch"
}

run_one() {	# NAME TEST: 0 if TEST passed with the modules of $MUTANT_DIR/NAME
	PKTGEN_KO=$MUTANT_DIR/$1/pktgen.ko IPOPTION_KO=$MUTANT_DIR/$1/pf_ipoption.ko \
		OUT=$RES/$1.out TESTS=$2 \
		TEST_TIMEOUT=${TEST_TIMEOUT:-300} "$REPO/tests/lib/run.sh" >>"$RES/$1.log" 2>&1
}

mkdir -p "$RES/baseline.out"
if [ ! -e "$RES/baseline.verdict" ]; then
	all=$(for p in "$MUTANT_DIR"/*/mutant.patch; do killers "$(basename "$(dirname "$p")")"; done |
		tr ' ' '\n' | awk 'NF && !seen[$0]++')
	touch "$RES/baseline.start"
	v="baseline ok"
	for t in $all; do
		echo "# mutants: baseline: $t"
		run_one baseline "$t" || { v="baseline failed $t"; break; }
	done
	echo "$v" >"$RES/baseline.verdict"
fi
echo "# mutants: $(cat "$RES/baseline.verdict")"
grep -q '^baseline ok$' "$RES/baseline.verdict" || exit 1

for d in "$MUTANT_DIR"/*/; do
	name=$(basename "$d")
	[ -e "$d/mutant.patch" ] || continue
	[ -e "$RES/$name.verdict" ] && continue
	mkdir -p "$RES/$name.out"
	touch "$RES/$name.start"
	v=survived
	for t in $(killers "$name"); do
		if ! run_one "$name" "$t"; then
			v="killed $t"
			break
		fi
	done
	echo "$v" >"$RES/$name.verdict"
	echo "# mutants: $name: $v"
done
