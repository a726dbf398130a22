#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of bench/netns.sh: what creating and destroying network
# namespaces costs with no pktgen, the stock module and ours loaded.
# Each round adds N namespaces (one ip -batch), counts the kpktgend
# threads, deletes them (one ip -batch) and lets the kernel clean up
# (a workqueue, after `ip netns del` returns) for SETTLE seconds.  The
# cost is the CPU time the guest spent busy (/proc/stat: all but idle
# and iowait, both CPUs) while adding, and from the deletion to the end
# of the settling; with -icount, guest time counts instructions.
# Writes KEY=VALUE lines to $OUT/bench-netns-$KV/result.txt.
set -u
. "$(dirname "$0")/../tests/lib/lib.sh"

N=${NETNS_N:-1000}
dir=${OUT:-/tmp}/bench-netns-${KV:-$(uname -r)}
mkdir -p "$dir"
res=$dir/result.txt
: >"$res"

SETTLE=${NETNS_SETTLE:-60}
busy_ms() {	# CPU time not idle since boot, all CPUs, in ms
	local _ user nice sys idle iow irq sirq steal
	# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
	read -r _ user nice sys idle iow irq sirq steal _ </proc/stat
	echo $(( (user + nice + sys + irq + sirq + steal) * 1000 / $(getconf CLK_TCK) ))
}

round() {	# LABEL
	local b0 b1 b2 b3 threads
	for i in $(seq "$N"); do echo "netns add pgb$i"; done >/tmp/add.batch
	for i in $(seq "$N"); do echo "netns del pgb$i"; done >/tmp/del.batch
	b0=$(busy_ms)
	sleep "$SETTLE"
	b1=$(busy_ms)	# the idle guest's own work over SETTLE
	ip -batch /tmp/add.batch || return 1
	b2=$(busy_ms)
	threads=$(pg_kthreads)
	ip -batch /tmp/del.batch || return 1
	sleep "$SETTLE"
	b3=$(busy_ms)
	echo "$1 create_ms=$((b2 - b1)) destroy_ms=$(((b3 - b2) - (b1 - b0))) kthreads=$threads" |
		tee -a "$res"
}

echo "n=$N cpus=$(nproc) kernel=$(uname -r)" | tee -a "$res"
round none
pg_load_stock && round stock && pg_unload
pg_load && round ours && pg_unload
round none_again
ktap_pass "netns bench"
ktap_finish
