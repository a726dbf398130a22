#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The stateful fuzzer (tests/lib/pgstate.py), long: FUZZ_SECONDS (600) or
# FUZZ_ACTIONS... actions with seed FUZZ_SEED (random; printed), then a
# clean run.  A failing seed replays with FUZZ_SEED=N, and the action log
# (printed on failure) with pgstate.py --replay.  Body:
# tests/lib/statefuzz.sh.
# test-timeout: 1500
# suite: stress
. "$(dirname "$0")/lib/lib.sh"

SF_SEED=${FUZZ_SEED:-$SRANDOM}
SF_SECONDS=${FUZZ_SECONDS:-600}
SF_ACTIONS=${FUZZ_ACTIONS:-1000000}
# shellcheck source=lib/statefuzz.sh
. "$LIB_DIR/statefuzz.sh"
