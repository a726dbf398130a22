#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The stateful fuzzer (tests/lib/pgstate.py), short and with a fixed seed,
# in every make check: a grammar over every file and command interleaved
# with device, namespace, xfrm and tc/XDP events, most commands written
# while a device runs; then a clean run.  STATE_SEED (21), STATE_SECONDS
# (20) and STATE_ACTIONS (400) override.  The long, random-seed version is
# stress-state.sh.  Body: tests/lib/statefuzz.sh.
# test-timeout: 400
. "$(dirname "$0")/lib/lib.sh"

SF_SEED=${STATE_SEED:-21}
SF_SECONDS=${STATE_SECONDS:-20}
SF_ACTIONS=${STATE_ACTIONS:-400}
# shellcheck source=lib/statefuzz.sh
. "$LIB_DIR/statefuzz.sh"
