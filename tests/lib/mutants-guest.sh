#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the VM (guest.sh mutants, started by tests/lib/mutants.sh): for
# each module of $MUTANT_DIR (NAME.ko, built from tests/mutants/NAME.patch)
# not yet judged, run the tests its patch names ("Killed-by:") with that
# module as PKTGEN_KO, in order, until one fails: the mutant is killed by
# it; if none fails, it survived.  First the unmutated module
# (baseline.ko) runs every test any patch names: a test that fails there
# would kill every mutant, so the run stops.
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
	sed -n 's/^Killed-by: //p' "$REPO/tests/mutants/$1.patch"
}

run_one() {	# NAME TEST: 0 if TEST passed with $MUTANT_DIR/NAME.ko
	PKTGEN_KO=$MUTANT_DIR/$1.ko OUT=$RES/$1.out TESTS=$2 \
		TEST_TIMEOUT=${TEST_TIMEOUT:-300} "$REPO/tests/lib/run.sh" >>"$RES/$1.log" 2>&1
}

mkdir -p "$RES/baseline.out"
if [ ! -e "$RES/baseline.verdict" ]; then
	all=$(for p in "$REPO"/tests/mutants/*.patch; do killers "$(basename "$p" .patch)"; done |
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

for ko in "$MUTANT_DIR"/*.ko; do
	name=$(basename "$ko" .ko)
	[ "$name" = baseline ] && continue
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
