#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the VM (guest.sh mutants, started by tests/lib/mutants.sh): for
# each mutant of $MUTANT_DIR (NAME/: pktgen.ko and pf_ipoption.ko built
# with NAME/mutant.patch) not yet judged, run the tests its patch names
# ("Killed-by:") with those modules as PKTGEN_KO and IPOPTION_KO, in
# order, until one fails: the mutant is killed by it; if none fails, it
# survived.  A test that kills a mutant is run once on the unmutated
# modules (baseline/) too: if it fails there, the kill was false, and the
# run stops.
#
# Results in $OUT/mutants/: NAME.start when a mutant's tests begin (a
# mutant that panics or hangs the guest leaves only that), NAME.verdict
# ("killed TEST" / "survived"; baseline.verdict: "baseline ok" once
# every mutant is judged, "baseline failed TEST"), baseline.TEST.ok for
# each test the unmutated modules passed, and NAME.log (the runner's
# output).
set -u

REPO=$(cd "$(dirname "$0")/../.." && pwd)
RES=$OUT/mutants
mkdir -p "$RES"

killers() {	# NAME: the tests its patch names
	sed -n 's/^Killed-by: //p' "$MUTANT_DIR/$1/mutant.patch"
}

# A mutant's test gets twice the time the unmutated modules took for it
# (MUTANT_DIR/durations, "TEST SECONDS", from vm.sh's logs), and 30 s
# more for a slow boot of the guest's network; a test over it is counted
# as failed, as in mutation tools: a mutant that makes a test hang or
# crawl is told from the module.  The baseline, and a test with no
# duration on record, get TEST_TIMEOUT (300 s) or the test's own
# "# test-timeout:" if longer, as in make check.
limit_of() {	# NAME TEST: the seconds TEST may take, or nothing
	local d
	[ "$1" = baseline ] && return 0
	d=$(awk -v t="$2" '$1 == t { print int($2 + 0.999) }' "$MUTANT_DIR/durations" 2>/dev/null)
	[ -n "$d" ] && echo $((2 * d + 30))
}

run_one() {	# NAME TEST: 0 if TEST passed with the modules of $MUTANT_DIR/NAME
	local limit exact=0
	limit=$(limit_of "$1" "$2")
	[ -n "$limit" ] && exact=1
	KTAP_FAIL_FAST=1 PKTGEN_KO=$MUTANT_DIR/$1/pktgen.ko IPOPTION_KO=$MUTANT_DIR/$1/pf_ipoption.ko \
		OUT=$RES/$1.out TESTS=$2 TEST_TIMEOUT_EXACT=$exact \
		TEST_TIMEOUT=${limit:-${TEST_TIMEOUT:-300}} "$REPO/tests/lib/run.sh" >>"$RES/$1.log" 2>&1
}

# The unmutated modules run a test only when it has killed a mutant (a
# test that fails on them too would have killed it falsely, so the run
# stops there); a test that kills nothing need not be run on them: the
# mutants that passed it show it passes.
baseline_passes() {	# TEST: 0 if the unmutated modules pass TEST (run once)
	[ -e "$RES/baseline.$1.ok" ] && return 0
	echo "# mutants: baseline: $1"
	run_one baseline "$1" || return 1
	touch "$RES/baseline.$1.ok"
}

# A module a mutant left loaded (one that cannot be unloaded: no
# module_exit, a reference it leaks) would be what the next tests load,
# the baseline's included: the guest ends, tests/lib/mutants.sh boots
# another, and the killing test's baseline run waits for it
# (baseline.TEST.pending).
module_left() {
	[ -e /sys/module/pktgen/initstate ] || [ -e /sys/module/pf_ipoption/initstate ]
}

mkdir -p "$RES/baseline.out"
touch "$RES/baseline.start"
if [ -e "$RES/baseline.verdict" ]; then
	echo "# mutants: $(cat "$RES/baseline.verdict")"
	exit 1
fi
for p in "$RES"/baseline.*.pending; do
	[ -e "$p" ] || continue
	t=${p##*/baseline.}
	t=${t%.pending}
	if ! baseline_passes "$t"; then
		echo "baseline failed $t" >"$RES/baseline.verdict"
		echo "# mutants: the unmutated modules fail $t: stopped"
		exit 1
	fi
	rm -f "$p"
done

for d in "$MUTANT_DIR"/*/; do
	name=$(basename "$d")
	[ -e "$d/mutant.patch" ] || continue
	[ "$name" = baseline ] && continue
	[ -e "$RES/$name.verdict" ] && continue
	mkdir -p "$RES/$name.out"
	touch "$RES/$name.start"
	t0=$SECONDS
	v=survived
	for t in $(killers "$name"); do
		if ! run_one "$name" "$t"; then
			if module_left; then
				echo "killed $t" >"$RES/$name.verdict"
				touch "$RES/baseline.$t.pending"
				echo "# mutants: $name: killed $t ($((SECONDS - t0)) s), left a module loaded: a new guest for the rest"
				exit 0
			fi
			if ! baseline_passes "$t"; then
				echo "baseline failed $t" >"$RES/baseline.verdict"
				echo "# mutants: the unmutated modules fail $t: stopped"
				rm -f "$RES/$name.start"
				exit 1
			fi
			v="killed $t"
			tail -n 3 "$RES/$name.log" | grep -q "timeout after" && v="$v (timeout)"
			break
		fi
	done
	echo "$v" >"$RES/$name.verdict"
	echo "# mutants: $name: $v ($((SECONDS - t0)) s)"
	if module_left; then
		echo "# mutants: $name left a module loaded: a new guest for the rest"
		exit 0
	fi
done
echo "baseline ok" >"$RES/baseline.verdict"
echo "# mutants: baseline ok"
