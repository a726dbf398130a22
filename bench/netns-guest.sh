#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of bench/netns.sh: what creating and destroying network
# namespaces costs with no pktgen, the stock module and ours loaded.
# Each round adds N namespaces (one ip -batch), counts the kpktgend
# threads, deletes them (one ip -batch) and waits until the kernel has
# freed them (the net_namespace cache's objects back to where they were): the
# cleanup runs in a workqueue after `ip netns del` returns.  Times in ms,
# guest clock (with -icount, guest instructions: 1 ms = 10^6).
# Writes KEY=VALUE lines to $OUT/bench-netns-$KV/result.txt.
set -u
. "$(dirname "$0")/../tests/lib/lib.sh"

N=${NETNS_N:-1000}
dir=${OUT:-/tmp}/bench-netns-${KV:-$(uname -r)}
mkdir -p "$dir"
res=$dir/result.txt
: >"$res"

now_ms() { echo $(( ${EPOCHREALTIME/./} / 1000 )); }
# struct net objects in use: SLUB's count (the cache may be merged with
# others of its size; those stay put meanwhile)
netns_objs() { read -r n _ </sys/kernel/slab/net_namespace/objects && echo "$n"; }

round() {	# LABEL
	local t0 t1 t2 base threads
	base=$(netns_objs)
	for i in $(seq "$N"); do echo "netns add pgb$i"; done >/tmp/add.batch
	for i in $(seq "$N"); do echo "netns del pgb$i"; done >/tmp/del.batch
	t0=$(now_ms)
	ip -batch /tmp/add.batch || return 1
	t1=$(now_ms)
	threads=$(pg_kthreads)
	ip -batch /tmp/del.batch || return 1
	wait_until 600 test "$(netns_objs)" -le "$base" || echo "# $1: namespaces not freed in 600 s"
	t2=$(now_ms)
	echo "$1 create_ms=$((t1 - t0)) destroy_ms=$((t2 - t1)) kthreads=$threads" | tee -a "$res"
}

ktap_header
ktap_plan 1
echo "n=$N cpus=$(nproc) kernel=$(uname -r)" | tee -a "$res"
round none
pg_load_stock && round stock && pg_unload
pg_load && round ours && pg_unload
round none_again
ktap_pass "netns bench"
ktap_finish
