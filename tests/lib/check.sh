#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: the host-side tests (tests/host/*.sh: what cannot run in
# the TCG guest, such as DKMS builds; fresh.sh in the background for check-all), then
# every kernel's VM suite (tests/lib/vm.sh check); ends with the combined
# line "N passed, N failed, N skipped" and a non-zero exit on any failure.
set -u

REPO=$(cd "$(dirname "$0")/../.." && pwd)
tp=0 tf=0 ts=0 rc=0

# counts from the last "N passed, N failed, N skipped" line of a log
add_counts() {
	local line p f s
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$1" | tail -n 1)
	if [ -z "$line" ]; then
		tf=$((tf + 1))
		return
	fi
	read -r p _ f _ s _ <<<"${line//,/}"
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
}

host_result() {	# TEST LOG EXIT: print a host test's log, add its counts
	sed 's/^/    /' "$2"
	case $3 in
	0) add_counts "$2" ;;
	4) ts=$((ts + 1)); echo "# host: $(basename "$1" .sh): skipped (a tool is missing)" ;;
	*) add_counts "$2"; rc=1 ;;
	esac
}

# The kernels: those named as arguments, taken as they are; else make
# check's (kernels.sh check: the host release's, the newest kernel Debian
# builds and the oldest the module supports, Debian 11's 5.10): the
# newest runs the suite (the slow tier too only with SLOW=1, which make
# check does not set), the others the fast differential subset (vm.sh's
# KV:fast), so that the run stays within CI's time; or, CHECK_MATRIX=1
# (make check-all, SLOW=1), every installed and cached kernel: those of
# kernels.sh check the full suite, the others (PREEMPT_RT, 7.2) the fast
# subset.  CHECK_FULL=1: the suite on all (testing.rst, "Which tier runs
# what").
if [ $# -eq 0 ]; then
	mapfile -t checked < <("$REPO"/tests/lib/kernels.sh check | sort -uV)
	if [ "${CHECK_MATRIX:-0}" = 1 ]; then
		mapfile -t all < <({
			"$REPO"/tests/lib/kernels.sh suite
			"$REPO"/tests/lib/kernels.sh list
		} | sort -uV)
	else
		all=("${checked[@]}")
	fi
	set --
	for i in "${!all[@]}"; do
		k=${all[$i]}
		if [ "${CHECK_FULL:-0}" = 1 ] || [ "$i" -eq $((${#all[@]} - 1)) ] ||
		   { [ "${CHECK_MATRIX:-0}" = 1 ] && printf '%s\n' "${checked[@]}" | grep -qxF "$k"; }; then
			set -- "$@" "$k"
		else
			set -- "$@" "$k:fast"
		fi
	done
	echo "# check: kernels $*"
fi

# Build for these kernels only (W=1; build-all.sh): lint.sh's sparse
# follows KERNELS too, so make check lints the kernels it boots and
# make check-all every one it has.
KERNELS="$*"
KERNELS=${KERNELS//:fast/}
export KERNELS
"$REPO"/tests/lib/build-all.sh || { echo "# check: the build failed"; exit 1; }

# tests/host/fresh.sh (a Debian 12 root debootstrapped, apt, `make run`
# there: mostly I/O and one short VM) runs in the background next to the
# VM suites, niced: they are the longer path; its log is printed after
# them.  FRESH_RELEASES: which releases ("bookworm trixie" for both; ""
# leaves it out).
fresh=$REPO/tests/host/fresh.sh fpid=""
flog=$(mktemp /tmp/pktgen-fresh.XXXXXX)
# make check leaves it to check-all (CHECK_MATRIX=1): beside the VM
# suites it made them about 6 minutes slower, which CI's time has not.
if [ "${CHECK_MATRIX:-0}" = 1 ]; then
	FRESH_RELEASES=${FRESH_RELEASES-bookworm}
else
	FRESH_RELEASES=${FRESH_RELEASES-}
fi
if [ -x "$fresh" ] && [ -n "$FRESH_RELEASES" ]; then
	echo "# host: fresh ($FRESH_RELEASES), in the background: $flog"
	FRESH_RELEASES=$FRESH_RELEASES nice -n 10 "$fresh" </dev/null >"$flog" 2>&1 &
	fpid=$!
fi

log=$(mktemp /tmp/pktgen-check.XXXXXX)
for t in "$REPO"/tests/host/*.sh; do
	[ -x "$t" ] || continue
	[ "$t" = "$fresh" ] && continue
	echo "# host: $(basename "$t" .sh)"
	r=0
	"$t" >"$log" 2>&1 || r=$?
	host_result "$t" "$log" "$r"
done


r=0
"$REPO"/tests/lib/vm.sh check "$@" | tee "$log" || r=$?
add_counts "$log"
[ "$r" -eq 0 ] || rc=1
rm -f "$log"

if [ -n "$fpid" ]; then
	echo
	echo "# host: fresh ($FRESH_RELEASES)"
	t0=$SECONDS
	r=0
	wait "$fpid" || r=$?
	echo "# host: fresh: waited $((SECONDS - t0))s for it after the VM suites"
	host_result "$fresh" "$flog" "$r"
fi
rm -f "$flog"

echo
echo "$tp passed, $tf failed, $ts skipped"
[ "$rc" -eq 0 ] && [ "$tf" -eq 0 ]
