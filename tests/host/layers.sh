#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: the module's files as layers (Documentation/design.rst).  No
# call cycle between the .c files (tests/lib/layers.py lists who calls
# whom), the table of contents (pktgen_main.c) called by no other file,
# the write grammar (pktgen_cmd.c) and the registry (pktgen_dev.c) calling
# none of the files above them.  Prints KTAP and "N passed, N failed, N
# skipped"; exit 4 without python3.

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tests/lib/lib.sh"

ktap_header
ktap_plan 4
if ! command -v python3 >/dev/null; then
	for n in 1 2 3 4; do ktap_skip "layers $n" "no python3"; done
	echo "0 passed, 0 failed, 4 skipped"
	exit 4
fi

out=$(python3 "$REPO/tests/lib/layers.py" "$REPO")
st=$?
ktap_diag "$out"

if grep -q '^files: [1-9]' <<<"$out"; then
	ktap_pass "the sources read: $(head -n 1 <<<"$out")"
else
	ktap_fail "the sources read" "$out"
fi

if [ "$st" -eq 0 ]; then
	ktap_pass "no call cycle between the .c files"
else
	ktap_fail "no call cycle between the .c files" "$(grep '^cycle:' <<<"$out")"
fi

up=$(grep -- '-> pktgen_main.c:' <<<"$out")
if [ -z "$up" ]; then
	ktap_pass "pktgen_main.c is called by no other file"
else
	ktap_fail "pktgen_main.c is called by no other file" "$up"
fi

# what the bottom files may call: each other's layer below only
up=$(grep -e '^pktgen_cmd.c -> ' -e '^pktgen_dev.c -> pktgen_\(main\|proc\|thread\|rx\|ipopt\|build\)' <<<"$out")
if [ -z "$up" ]; then
	ktap_pass "pktgen_cmd.c and pktgen_dev.c call no file above them"
else
	ktap_fail "pktgen_cmd.c and pktgen_dev.c call no file above them" "$up"
fi

echo "$_KT_PASS passed, $_KT_FAIL failed, $_KT_SKIP skipped"
ktap_finish
