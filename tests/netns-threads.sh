#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kpktgend threads exist only where pktgen is used: the initial
# namespace's from module load (as upstream's), another namespace's from
# the first write to one of its kpktgend_N files, whose files exist from
# the start.  An unprivileged user who creates and holds network
# namespaces (through user namespaces) makes no kthread at all; a
# namespace's threads go with it.  The stock module starts one thread
# per CPU in every namespace: it is not run here.
. "$(dirname "$0")/lib/lib.sh"

ktap_header
ktap_plan 9

HOLD=20		# namespaces the unprivileged user holds
NOBODY=(setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps=-all)

pg_is_ours || ktap_skip_rest "threads" "the stock module starts threads in every namespace"
pg_load || { ktap_fail "module loads"; ktap_finish; }
TMP=$(lib_tmpdir)
CPUS=$(nproc)

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
threads_are() { [ "$(pg_kthreads)" -eq "$1" ]; }

check "the initial namespace has one thread per CPU ($CPUS) from load" threads_are "$CPUS"

if command -v setpriv >/dev/null && "${NOBODY[@]}" unshare -U -r -n true 2>/dev/null; then
	chmod 0777 "$TMP"
	for i in $(seq "$HOLD"); do
		"${NOBODY[@]}" unshare -U -r -n sh -c "touch $TMP/up.$i; exec sleep 60" &
		echo $! >>"$TMP/holders"
	done
	# shellcheck disable=SC2012 # our own files up.N
	slowwait 30 test "$(ls "$TMP"/up.* 2>/dev/null | wc -l)" -eq "$HOLD"
	ktap_diag "kpktgend threads with $HOLD namespaces held by nobody: $(pg_kthreads)"
	check "$HOLD namespaces of an unprivileged user: no thread more" threads_are "$CPUS"
	read -r -d '' -a holders <"$TMP/holders"
	kill "${holders[@]}" 2>/dev/null
	wait "${holders[@]}" 2>/dev/null
else
	ktap_skip "namespaces of an unprivileged user" "no setpriv or no unprivileged user namespaces"
fi

setup_ns NS
dummy_create "$NS" d0
check "a new namespace has its thread files" \
	ip netns exec "$NS" test -e "/proc/net/pktgen/kpktgend_$((CPUS - 1))"
check "... and no thread" threads_are "$CPUS"
check "pgctrl start there returns (no device, no thread)" \
	timeout 10 ip netns exec "$NS" sh -c 'echo start > /proc/net/pktgen/pgctrl'
check "add_device d0 on its kpktgend_0" in_ns "$NS" pg_set kpktgend_0 "add_device d0"
check "... starts that thread alone" threads_are "$((CPUS + 1))"

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
run() {
	local res
	in_ns "$NS" pg_set d0 "count 100" || return 1
	pg_start_ns "$NS" 30 || return 1
	res=$(in_ns "$NS" pg_result d0)
	ktap_diag "Result: $res"
	[ "${res#OK: }" != "$res" ] && [[ $res == *" 100 ("* ]]
}
check "it sends: 100 packets, Result OK" run

ip netns del "$NS"
check "the namespace deleted, its thread is gone" slowwait 20 threads_are "$CPUS"

pg_unload || ktap_fail "unload"
ktap_finish
