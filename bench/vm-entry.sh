#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of bench/run.sh: tests/lib/vm.sh runs this as the only "test"
# (TESTS=../bench/vm-entry), so the VM, the splat scan and the final rmmod
# are the test harness's.  vm.sh passes no environment of ours, so run.sh
# leaves the guest script (bench/guest.sh or bench/ipopt-guest.sh) and its
# arguments in bench/.config; the results go to
# $OUT/bench-$KV (OUT is vm.sh's output directory, writable in the guest).
set -u

dir=$(cd "$(dirname "$0")" && pwd)
args=() BENCH_GUEST=guest.sh
if [ -f "$dir/.config" ]; then
	# shellcheck source=/dev/null
	. "$dir/.config"	# sets BENCH_ARGS=(...)
	args=("${BENCH_ARGS[@]}")
fi
exec "$dir/$BENCH_GUEST" "${args[@]}" --out "${OUT:-/tmp}/bench-${KV:-$(uname -r)}"
