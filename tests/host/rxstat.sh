#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: the receiver's sequence and statistics logic (pktgen_rxstat.c,
# the same file the module is built from) compiled into tests/host/rxstat.c
# and compared with the reference model of rxstat_model.c: fixed
# cases with their exact figures, then RXSTAT_SEQUENCES generated
# sequences (50000 by default, a few seconds; the long run of
# Documentation/testing.rst uses 10000000) from RXSTAT_SEED.  Prints KTAP
# and "N passed, N failed, N skipped"; exit 4 without a C compiler.
#
#	tests/host/rxstat.sh	(make check-rxstat; make check runs it)

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tests/lib/lib.sh"

CC=${CC:-cc}
if ! command -v "$CC" >/dev/null; then
	ktap_header
	ktap_skip "rxstat" "no C compiler ($CC)"
	echo "0 passed, 0 failed, 1 skipped"
	ktap_finish
fi
bin=$(lib_tmpdir)/rxstat
if ! out=$("$CC" -O2 -Wall -Wextra -Wno-unused-function -o "$bin" \
	"$REPO/tests/host/rxstat.c" 2>&1); then
	ktap_header
	ktap_fail "build tests/host/rxstat.c" "$out"
	echo "0 passed, 1 failed, 0 skipped"
	ktap_finish
fi
"$bin" "${RXSTAT_SEQUENCES:-50000}" "${RXSTAT_SEED:-28}"
