#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: the lint gates of tests/lib/style.sh (make style), one subtest
# each: checkpatch --strict on the module's sources, shellcheck on every
# shell script, no version-number conditional in the C sources (versions),
# sparse against every kernel make modules-all builds.  A
# subtest is skipped only when its tool is missing (or, for sparse, too old
# for that kernel's headers).  Prints KTAP and "N passed, N failed, N
# skipped"; exit 4 when every subtest was skipped.

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tests/lib/lib.sh"

STYLE=$REPO/tests/lib/style.sh
# diagnostics kept per failed subtest; make style prints them all
MAX_LINES=60

mapfile -t checks < <("$STYLE" list)
ktap_header
ktap_plan "${#checks[@]}"
for c in "${checks[@]}"; do
	out=$("$STYLE" "$c" 2>&1)
	st=$?
	case $st in
	0)
		ktap_diag "$(tail -n 1 <<<"$out")"
		ktap_pass "$c"
		;;
	4)
		ktap_skip "$c" "$(tail -n 1 <<<"$out")"
		;;
	*)
		n=$(wc -l <<<"$out")
		if [ "$n" -gt "$MAX_LINES" ]; then
			out="$(head -n "$MAX_LINES" <<<"$out")
... $((n - MAX_LINES)) lines more (make style)
$(tail -n 1 <<<"$out")"
		fi
		ktap_fail "$c" "$out"
		;;
	esac
done

echo "$_KT_PASS passed, $_KT_FAIL failed, $_KT_SKIP skipped"
ktap_finish
