#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: the module's files against the layers of
# Documentation/design.rst, read from its table by tests/lib/layers.py
# (which lists who uses what of whom: calls and data).  Every .c is in
# the table and every file there exists; no file uses one of a layer above
# it, nor one of its own layer without an arrow drawn; nothing goes round.
# Prints KTAP and "N passed, N failed, N skipped"; exit 4 without python3.

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tests/lib/lib.sh"

ktap_header
ktap_plan 6
if ! command -v python3 >/dev/null; then
	ktap_skip_rest "layers" "no python3"
fi

out=$(python3 "$REPO/tests/lib/layers.py" "$REPO" 2>&1)
ktap_diag "$out"

# SUBTEST PATTERN: pass if layers.py printed no line matching PATTERN
none_of() {
	local bad
	bad=$(grep -E -- "$2" <<<"$out")
	if [ -z "$bad" ]; then
		ktap_pass "$1"
	else
		ktap_fail "$1" "$bad"
	fi
}

if grep -q '^files: [1-9]' <<<"$out"; then
	ktap_pass "the sources read: $(grep '^files: ' <<<"$out")"
else
	ktap_fail "the sources read" "$out"
fi
none_of "design.rst's layers list every .c of the tree, and only those" \
	'^(table|unlisted|missing): '
none_of "no file uses a file of a layer above it" '^upward: '
none_of "files of one layer use each other only along design.rst's arrows" \
	'^sideways: '
none_of "no cycle between the files" '^cycle: '
none_of "pktgen.ko's and pf_ipoption.ko's files use nothing of each other" '^module: '

echo "$_KT_PASS passed, $_KT_FAIL failed, $_KT_SKIP skipped"
ktap_finish
