#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: the host-side tests (tests/host/*.sh: what cannot run in
# the TCG guest, such as DKMS builds), then every kernel's VM suite
# (tests/lib/vm.sh check); ends with the combined line
# "N passed, N failed, N skipped" and a non-zero exit on any failure.
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

log=$(mktemp /tmp/pktgen-check.XXXXXX)
for t in "$REPO"/tests/host/*.sh; do
	[ -x "$t" ] || continue
	echo "# host: $(basename "$t" .sh)"
	r=0
	"$t" >"$log" 2>&1 || r=$?
	sed 's/^/    /' "$log"
	case $r in
	0) add_counts "$log" ;;
	4) ts=$((ts + 1)); echo "# host: $(basename "$t" .sh): skipped (a tool is missing)" ;;
	*) add_counts "$log"; rc=1 ;;
	esac
done

r=0
"$REPO"/tests/lib/vm.sh check "$@" | tee "$log" || r=$?
add_counts "$log"
[ "$r" -eq 0 ] || rc=1
rm -f "$log"

echo
echo "$tp passed, $tf failed, $ts skipped"
[ "$rc" -eq 0 ] && [ "$tf" -eq 0 ]
