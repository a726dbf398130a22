#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: the receiver's sequence and statistics logic (pktgen_rxstat.c,
# the same file the module is built from) compiled with tests/host/rxstat.c
# by make helpers into build/helpers/rxstat
# and compared with the reference model of rxstat_model.c: fixed
# cases with their exact figures, then RXSTAT_SEQUENCES generated
# sequences (50000 by default, a few seconds; the long run of
# Documentation/testing.rst uses 10000000) from RXSTAT_SEED.  Prints KTAP
# and "N passed, N failed, N skipped".
#
#	tests/host/rxstat.sh	(make check-rxstat; make check runs it)

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tests/lib/lib.sh"

bin=$REPO/build/helpers/rxstat
if [ ! -x "$bin" ]; then
	ktap_header
	ktap_fail "build/helpers/rxstat built" "missing: make helpers (make check-rxstat and modules-all build it)"
	echo "0 passed, 1 failed, 0 skipped"
	ktap_finish
fi
"$bin" "${RXSTAT_SEQUENCES:-50000}" "${RXSTAT_SEED:-28}"
