#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-mutants: how strong the suite is, measured by mutants.  Each
# tests/mutants/NAME.patch changes one line of the C sources of either
# module (pktgen.ko, ipoption/'s pf_ipoption.ko) and names, in a line
# "Killed-by: TEST...", the tests expected to fail on it.  On the host
# every mutant's modules are built first (one work tree: patch, make, keep
# both .ko and the patch in build/mutants/KV/NAME/, unpatch), then ONE
# guest of kernel KV (default: the newest 6.12 installed) runs
# tests/lib/mutants-guest.sh: each mutant runs its tests until one fails
# (killed), and the unmutated modules must pass each test that killed.  A
# mutant that panics or hangs the guest is killed by that; the guest is
# booted again for the mutants left, as after a mutant that left a module
# loaded.  Prints the kill table and the kill
# rate; exits 1 below KILL_MIN percent (95).  Not part of make check.
#
#	tests/lib/mutants.sh [KV]
#	MUTANTS="01-pace-burst 05-..." only these; MUTANTS_BUILD=0 reuses
#	the modules built before, MUTANTS_RUN=0 only builds them;
#	MUTANTS_SRC=DIR the patches of DIR instead of tests/mutants/
#	(tests/lib/mutants-gen.py's, through make check-mutants SAMPLE=N);
#	MUTANTS_RESULTS=DIR prints the table of a run before (its
#	results directory, /tmp/pktgen-mutants.*) again, running nothing.
#
# A mutant listed in tests/mutants/equivalent (no test can tell it from
# the module: the list says why) is shown as such and left out of the
# rate, unless a test kills it, which fails the run (the entry is wrong);
# one listed in tests/mutants/gaps (a change a user could see that no
# test catches, and why none does) is shown as a known gap and counts as
# surviving.
set -u

REPO=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/kmake.sh
. "$REPO/tests/lib/kmake.sh"
cd "$REPO" || exit 1
# "KV [ROOT]" of every kernel build-all.sh builds (ROOT: a cache root)
TARGETS=$(tests/lib/build-all.sh --list)
newest_612() {	# the newest distribution 6.12 with headers (not -rt, not a pg* debug build)
	awk '$1 ~ /^6\.12/ && $1 !~ /pg|-rt-/ { print $1 }' <<<"$TARGETS" | sort -V | tail -n 1
}
KV=${1:-$(newest_612)}
awk -v kv="$KV" '$1 == kv { f = 1 } END { exit !f }' <<<"$TARGETS" ||
	{ echo "mutants: no headers of $KV" >&2; exit 1; }
ROOT=$(awk -v kv="$KV" '$1 == kv { print $2 }' <<<"$TARGETS")
MDIR=$REPO/build/mutants/$KV
WORK=$MDIR/work
KILL_MIN=${KILL_MIN:-95}

SRC=${MUTANTS_SRC:-tests/mutants}
names=()
for p in "$SRC"/*.patch; do
	n=$(basename "$p" .patch)
	[ -n "${MUTANTS:-}" ] && ! [[ " $MUTANTS " = *" $n "* ]] && continue
	names+=("$n")
done
[ ${#names[@]} -gt 0 ] || { echo "mutants: no $SRC/*.patch" >&2; exit 1; }

build() { kmake "$KV" "$ROOT" "$1" modules </dev/null >"$1/build.log" 2>&1; }
keep() {	# TREE NAME: the tree's modules as NAME's
	mkdir -p "$MDIR/$2" &&
		cp "$1/pktgen.ko" "$1/ipoption/pf_ipoption.ko" "$MDIR/$2/"
}
# TREE NAME...: each mutant patched into TREE, built, kept, unpatched
build_mutants() {
	local tree=$1 n t0
	shift
	for n in "$@"; do
		t0=$SECONDS
		if ! patch -s -p1 -d "$tree" <"$SRC/$n.patch"; then
			echo "mutants: $n: does not apply"
			return 1
		fi
		if build "$tree"; then
			keep "$tree" "$n" && cp "$SRC/$n.patch" "$MDIR/$n/mutant.patch"
			echo "mutants: built $n ($((SECONDS - t0)) s)"
		else
			echo "mutants: $n: build failed (counted as killed by the compiler)"
			echo "killed build" >"$MDIR/$n.build-failed"
		fi
		patch -s -R -p1 -d "$tree" <"$SRC/$n.patch" || return 1
	done
}

# ---- build: the baseline, then the mutants in two copies of its tree at
# once (a mutant rebuilds one object and links: one CPU each)
if [ "${MUTANTS_BUILD:-1}" = 1 ] && [ -z "${MUTANTS_RESULTS:-}" ]; then
	KERNELS=$KV tests/lib/build-all.sh || exit 1
	rm -rf "$MDIR"
	mkdir -p "$WORK/ipoption"
	for f in Kbuild ./*.c ./*.h ipoption/Kbuild ipoption/*.c ipoption/*.h; do
		[[ $f = *.mod.c ]] || cp "$f" "$WORK/$f"
	done
	cp -r include probes "$WORK"/
	build "$WORK" || { echo "mutants: the unmutated build failed"; tail -n 20 "$WORK/build.log"; exit 1; }
	keep "$WORK" baseline
	cp -a "$WORK" "$WORK.1"
	half=(); other=()
	for i in "${!names[@]}"; do
		if [ $((i % 2)) = 0 ]; then half+=("${names[i]}"); else other+=("${names[i]}"); fi
	done
	build_mutants "$WORK" "${half[@]}" &
	pid=$!
	st=0
	build_mutants "$WORK.1" ${other[@]+"${other[@]}"} || st=1
	wait "$pid" || st=1
	[ "$st" = 0 ] || exit 1
fi

[ "${MUTANTS_RUN:-1}" = 1 ] || exit 0

# ---- run: one guest, again for the mutants left after a panic or a hang

# "TEST SECONDS" of every test the unmutated module passed in vm.sh's
# results directories (/tmp/pktgen-vm.*, make check's among them;
# MUTANTS_TIMES=DIR: that one only), whose runner logs "# TEST: 23.952s,
# cpu 19.94" for a passed script: the median of its runs on KV, else of
# its runs on the other kernels (one run on a busy machine is not what a
# test takes).  mutants-guest.sh limits a mutant's test to twice that.
durations() {
	local f
	{ if [ -n "${MUTANTS_TIMES:-}" ]; then
		ls "$MUTANTS_TIMES"/console-*.log
	  else
		find /tmp -maxdepth 2 -path '/tmp/pktgen-vm.*' -name 'console-*.log' 2>/dev/null
	  fi; } | while read -r f; do
		tr -d '\r' <"$f" |
			sed -n "s/^# \([a-z0-9-]*\): \([0-9.]*\)s, cpu [0-9.]*\$/\1 \2 ${f##*/console-}/p"
	done | sort -k1,1 -k2,2n | awk -v kv="$KV.log" '
		function median(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		function flush() {
			if (t != "")
				print t, nm ? median(mine, nm) : median(any, na)
			delete mine; delete any; nm = na = 0
		}
		$1 != t { flush(); t = $1 }
		{ any[++na] = $2 }
		$3 == kv { mine[++nm] = $2 }
		END { flush() }'
}

run_guest() {
	chmod 755 "$OUT"
	mkdir -p "$RES"
	for n in "${names[@]}"; do
		[ -e "$MDIR/$n.build-failed" ] && cp "$MDIR/$n.build-failed" "$RES/$n.verdict"
	done
	# the guest judges the directories of MUTANT_DIR: the chosen ones only
	SEL=$OUT/ko
	mkdir -p "$SEL"
	cp -r "$MDIR/baseline" "$SEL/"
	durations >"$SEL/durations"
	echo "mutants: $(wc -l <"$SEL/durations") tests with a duration on record"
	for n in "${names[@]}"; do
		[ -e "$MDIR/$n/mutant.patch" ] && cp -r "$MDIR/$n" "$SEL/"
	done
	echo "mutants: ${#names[@]} mutants on $KV, results in $OUT"
	local judged=-1 now
	while :; do
		VM_OUT=$OUT VM_TIMEOUT=${VM_TIMEOUT:-5400} tests/lib/vm.sh mutants "$KV" "MUTANT_DIR=$SEL"
		left=0
		for n in "${names[@]}"; do
			[ -e "$RES/$n.verdict" ] && continue
			if [ -e "$RES/$n.start" ]; then
				echo "killed guest" >"$RES/$n.verdict"	# panicked or hung it
			else
				left=$((left + 1))
			fi
		done
		[ -e "$RES/baseline.verdict" ] && ! grep -q '^baseline ok$' "$RES/baseline.verdict" && break
		# the last mutant's guest may end before the baseline's verdict
		[ "$left" -eq 0 ] && [ -e "$RES/baseline.verdict" ] && break
		# a guest that panics, hangs or is left with a module loaded
		# judges one mutant at least; one that judged none will not
		now=$(find "$RES" -maxdepth 1 -name '*.verdict' | wc -l)
		if [ "$now" -le "$judged" ]; then
			echo "mutants: the last guest judged no mutant: $left left unjudged"
			break
		fi
		judged=$now
		echo "mutants: $left left: booting again"
	done
}

if [ -n "${MUTANTS_RESULTS:-}" ]; then
	OUT=$MUTANTS_RESULTS
	RES=$OUT/mutants
	[ -d "$RES" ] || { echo "mutants: no $RES" >&2; exit 1; }
else
	OUT=$(mktemp -d /tmp/pktgen-mutants.XXXXXX)
	RES=$OUT/mutants
	run_guest
fi

# ---- the table
echo
echo "mutants on $KV ($(git describe --always --dirty)), $(date -u +%F):"
if ! grep -qs '^baseline ok$' "$RES/baseline.verdict"; then
	echo "the unmutated module failed: $(cat "$RES/baseline.verdict" 2>/dev/null || echo 'no verdict')"
	exit 1
fi
# "FILE OP: BEFORE -> AFTER" (the patch's Mutant: line without the line
# number) for each entry of tests/mutants/equivalent or gaps
listed() {	# LIST KEY: 0 if KEY is an entry of LIST
	awk -v key="$2" '/^[^#\t ]/ && $0 == key { f = 1 } END { exit !f }' "$1"
}
site() {	# PATCH: its key
	sed -n '1s/^Mutant: \([^:]*\):[0-9]* \([a-z]*\): /\1 \2: /p' "$1"
}
killed=0 total=0 equiv=0 gaps=0 wrong=0
w=$(printf '%s\n' MUTANT "${names[@]}" | awk '{ if (length > w) w = length } END { print w }')
printf '%-*s %-24s %s\n' "$w" MUTANT VERDICT "TESTS NAMED"
for n in "${names[@]}"; do
	total=$((total + 1))
	v=$(cat "$RES/$n.verdict" 2>/dev/null || echo "not run")
	key=$(site "$SRC/$n.patch")
	case $v in
	killed*)
		killed=$((killed + 1))
		if listed tests/mutants/equivalent "$key"; then
			v="$v, LISTED EQUIVALENT"
			wrong=$((wrong + 1))
		fi
		;;
	survived)
		if listed tests/mutants/equivalent "$key"; then
			v="equivalent"
			equiv=$((equiv + 1))
		elif listed tests/mutants/gaps "$key"; then
			v="survived (known gap)"
			gaps=$((gaps + 1))
		fi
		;;
	esac
	printf '%-*s %-24s %s\n' "$w" "$n" "$v" "$(sed -n 's/^Killed-by: //p' "$SRC/$n.patch")"
done
judged=$((total - equiv))
rate=$((judged ? killed * 100 / judged : 0))
echo "killed $killed of $judged ($total mutants, $equiv equivalent; $gaps surviving known gaps): $rate%"
[ "$wrong" -eq 0 ] || echo "mutants: $wrong killed mutants are listed in tests/mutants/equivalent: remove them there"
[ "$wrong" -eq 0 ] && [ "$rate" -ge "$KILL_MIN" ]
