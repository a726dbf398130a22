#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: the method of tools/pktgen-rfc2544 (tools/rfc2544.py: the
# binary searches for NDR, PDR and back-to-back, the frame loss steps,
# the latency summary, sizes, rates, CSV, JSON and PNG) against simulated
# devices under test with known answers (tests/lib/rfc2544_model.py), in
# a second.  Prints KTAP and "N passed, N failed, N skipped"; exit 4
# without python3.

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tests/lib/lib.sh"

ktap_header
if ! command -v python3 >/dev/null; then
	ktap_plan 1
	ktap_skip "rfc2544 model" "no python3"
	echo "0 passed, 0 failed, 1 skipped"
	exit 4
fi
out=$(python3 "$REPO/tests/lib/rfc2544_model.py" 2>&1)
st=$?
ktap_plan "$(grep -c -e '^PASS ' -e '^FAIL ' <<<"$out")"
ktap_report <<<"$out"
[ "$st" -eq 0 ] || ktap_fail "rfc2544_model.py exited $st"
echo "$_KT_PASS passed, $_KT_FAIL failed, $_KT_SKIP skipped"
ktap_finish
