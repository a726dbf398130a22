#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Test runner (inside the VM, as root): runs every executable tests/*.sh
# in order, prints KTAP with each script's output as an indented subtest,
# fails a script on a kernel splat, a kmemleak report (where the kernel has
# kmemleak) or a failing `rmmod pktgen` (or pf_ipoption), and writes
# "passed failed skipped" (subtest counts) to $OUT/counts-$KV.
#
# Env: KV (default uname -r), OUT (default /tmp), TESTS="a b" (only these
# scripts, names without .sh), STRESS=1 (also the stress tests, marked by a
# line "# suite: stress"), TEST_TIMEOUT (seconds per script, 600; a
# script that needs longer says so in a line "# test-timeout: SECONDS";
# TEST_TIMEOUT_EXACT=1: TEST_TIMEOUT all the same, for mutants).
set -u

TDIR=$(cd "$(dirname "$0")/.." && pwd)
KV=${KV:-$(uname -r)}
OUT=${OUT:-/tmp}
TEST_TIMEOUT=${TEST_TIMEOUT:-600}
# kernel WARN()s print "WARNING: CPU: N PID: ..." (pktgen's own pr_warn
# "pktgen: WARNING: trying to remove a running interface" is not a splat)
SPLAT='RIP:|Call Trace:|\] WARNING:|WARNING: CPU:|BUG:|ref_tracker:|unreferenced object|blocked for more than|general protection|KASAN|UBSAN|unregister_netdevice: waiting'
KMEMLEAK=/sys/kernel/debug/kmemleak

scripts=()
if [ -n "${TESTS:-}" ]; then
	for t in $TESTS; do
		scripts+=("$TDIR/${t%.sh}.sh")
	done
else
	# stress tests ("# suite: stress") only with STRESS=1 (check-debug),
	# slow ones ("# suite: slow") with SLOW=1 (check-all) or STRESS=1
	for t in "$TDIR"/*.sh; do
		[ -x "$t" ] || continue
		if [ "${STRESS:-0}" != 1 ] && grep -qx '# suite: stress' "$t"; then
			continue
		fi
		if [ "${STRESS:-0}" != 1 ] && [ "${SLOW:-0}" != 1 ] &&
		   grep -qx '# suite: slow' "$t"; then
			continue
		fi
		scripts+=("$t")
	done
fi

# Hold on, for the whole VM, the static keys that tests switch while
# packets arrive: a clsact qdisc on pin0 in a netns of its own (not pgt-:
# the runner never deletes it) holds the tc ingress and egress keys, an
# XDP program on it the generic XDP key, and tests/kmod/pg_keypin.ko the
# netfilter ones (netdev ingress on pin0, the five IPv4 hooks), which
# unloading pktgen (its receiver's hooks) or pf_ipoption gives up
# otherwise.  Under TCG (QEMU 7.2) patching a jump
# label while the other vCPU runs through it can leave that vCPU on a
# stale int3 in __netif_receive_skb_core(): a soft lockup at +0xe9 (the
# stock module hangs the same way), an "Oops: int3" at the netdev ingress
# key (a make check panicked so on 7.3.4 at ipopt-classify's "rmmod
# pktgen" while it sent).  Documentation/testing.rst, "A hang under TCG".
# PIN_KEYS=0 leaves them switching.
# A runner run again in the same guest (tests/lib/mutants-guest.sh) finds
# them held.
export PIN_KEYS=${PIN_KEYS:-1}
if [ "$PIN_KEYS" = 1 ] && ! [ -e /run/netns/pgpin ]; then
	{ ip netns add pgpin && ip -n pgpin link add pin0 type dummy &&
		tc -n pgpin qdisc add dev pin0 clsact; } >/dev/null 2>&1 ||
		echo "# run.sh: could not hold the tc ingress static key (pgpin)"
	ip netns exec pgpin insmod "$TDIR/../build/$KV/kmod/pg_keypin.ko" ifname=pin0 ||
		echo "# run.sh: could not hold the netfilter static keys (pg_keypin)"
	# the generic XDP key (fuzz-state attaches and detaches programs)
	pin_bpf=$(mktemp -d /tmp/pgpin-bpf.XXXXXX)
	{ mount -t bpf bpf "$pin_bpf" &&
		python3 -S "$TDIR/lib/bpfprog.py" xdp-pass "$pin_bpf/xdp" &&
		ip -n pgpin link set dev pin0 xdpgeneric pinned "$pin_bpf/xdp"; } >/dev/null 2>&1 ||
		echo "# run.sh: could not hold the generic XDP static key (pgpin)"
fi

pass=0 fail=0 skip=0 n=0
log=$(mktemp /tmp/run-test.XXXXXX)
echo "TAP version 13"
echo "1..${#scripts[@]}"

# the CPU time of the whole guest (user, nice, system, irq, softirq of
# every CPU, in USER_HZ): beside a script's wall time it tells waiting
# from work
cpu_busy() {	# into BUSY
	local _c user nice sys _idle _iow irq soft _rest
	read -r _c user nice sys _idle _iow irq soft _rest </proc/stat
	BUSY=$((user + nice + sys + irq + soft))
}

# The kernel log seen so far: each script's new lines are those past
# it.  One dmesg per script (an exec costs 50-150 ms under TCG; the
# runner's own work between scripts once took 1.7 s a script).
mapfile -t klog < <(dmesg)
klines=${#klog[@]}

for t in "${scripts[@]}"; do
	n=$((n + 1))
	name=${t##*/}
	name=${name%.sh}
	if [ ! -x "$t" ]; then
		echo "not ok $n $name # no such executable test: $t"
		fail=$((fail + 1))
		continue
	fi
	echo "# $name"
	[ -w "$KMEMLEAK" ] && echo clear >"$KMEMLEAK"
	start=${EPOCHREALTIME/./}
	cpu_busy
	busy0=$BUSY
	# timeout makes its own process group: kill what the script left
	# behind (it would hold the output open); stream the log meanwhile
	limit=$TEST_TIMEOUT
	[ "${TEST_TIMEOUT_EXACT:-0}" = 1 ] ||
		{ [[ $'\n'$(<"$t")$'\n' =~ $'\n'"# test-timeout: "([0-9]+)$'\n' ]] &&
		[ "${BASH_REMATCH[1]}" -gt "$TEST_TIMEOUT" ] && limit=${BASH_REMATCH[1]}; }
	timeout -k 10 "$limit" "$t" </dev/null >"$log" 2>&1 &
	pid=$!
	tail -s 0.2 -n +1 -f --pid="$pid" "$log" | sed -u 's/^/    /'
	wait "$pid"
	rc=$?
	kill -KILL -- "-$pid" 2>/dev/null
	secs=$(( (${EPOCHREALTIME/./} - start) / 1000 ))
	printf -v secs '%d.%03d' $((secs / 1000)) $((secs % 1000))
	cpu_busy
	busy=$((BUSY - busy0))
	printf -v secs '%ss, cpu %d.%02d' "$secs" $((busy / 100)) $((busy % 100))

	reason=""
	case $rc in
	0) ;;
	4) ;;
	124|137) reason="timeout after ${limit}s" ;;
	*) reason="exit code $rc" ;;
	esac

	# leftovers a killed script could not clean up
	for ns in /run/netns/pgt-*; do
		[ -e "$ns" ] || continue
		echo "# $name left netns ${ns##*/} behind: deleting it"
		ip netns del "${ns##*/}"
	done
	if [ -e /sys/module/pktgen/initstate ] && ! rmmod pktgen; then
		reason="${reason:+$reason, }rmmod pktgen failed"
	fi
	# the next test loads its own (ipo_load keeps a loaded one): a
	# mutant's pf_ipoption.ko must not stay for the next mutant's tests
	if [ -e /sys/module/pf_ipoption/initstate ] && ! rmmod pf_ipoption; then
		reason="${reason:+$reason, }rmmod pf_ipoption failed"
	fi
	leaks=""
	if [ -w "$KMEMLEAK" ]; then
		# an object is reported once unreferenced and older than 5 s
		sleep 6
		echo scan >"$KMEMLEAK"
		leaks=$(cat "$KMEMLEAK")
	fi
	mapfile -t klog < <(dmesg)
	[ "${#klog[@]}" -lt "$klines" ] && klines=0	# ring buffer wrapped
	knew=("${klog[@]:klines}")
	klines=${#klog[@]}
	# on a KCSAN kernel (make kcsan-kernel) a data race between two
	# functions of the kernel's own is its business: pktgen's count
	splat=0
	for line in "${knew[@]}"; do
		if [[ $line =~ BUG:\ KCSAN:\ data-race\ in\  ]]; then
			[[ $line =~ BUG:\ KCSAN:\ .*(pg_|pktgen) ]] && splat=1
		elif [[ $line =~ $SPLAT ]]; then
			splat=1
		fi
	done
	if [ "$splat" = 1 ]; then
		echo "# kernel splat during $name:"
		printf '# %s\n' "${knew[@]}"
		reason="${reason:+$reason, }kernel splat"
	fi
	if [ -n "$leaks" ]; then
		echo "# kmemleak after $name:"
		# shellcheck disable=SC2001 # every line of it
		sed 's/^/# /' <<<"$leaks"
		reason="${reason:+$reason, }kmemleak report"
	fi

	read -r sp ss sf < <(awk '/^ok [0-9]+/ { if (/# SKIP/) s++; else p++ }
		/^not ok [0-9]+/ { f++ } END { print p + 0, s + 0, f + 0 }' "$log")
	if [ -z "$reason" ] && [ "$sf" -gt 0 ]; then
		reason="subtests failed but exit code $rc"
	fi
	if [ -n "$reason" ] && [ "$rc" -eq 4 ]; then
		rc=1	# a skip with a splat or a stuck module is a failure
	fi
	if [ -z "$reason" ] && [ "$rc" -eq 4 ]; then
		[ $((sp + sf + ss)) -eq 0 ] && ss=1
		echo "# $name: ${secs}"
		echo "ok $n $name # SKIP"
	elif [ -z "$reason" ]; then
		[ $((sp + sf + ss)) -eq 0 ] && sp=1
		echo "# $name: ${secs}"
		echo "ok $n $name"
	else
		[ "$sf" -eq 0 ] && sf=1
		echo "# $name: ${secs}, $reason"
		echo "not ok $n $name"
	fi
	pass=$((pass + sp)) fail=$((fail + sf)) skip=$((skip + ss))
done
rm -f "$log"

echo "$pass $fail $skip" >"$OUT/counts-$KV"
echo "$KV: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
