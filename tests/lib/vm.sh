#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: boot each kernel in a virtme-ng VM (TCG) and run the tests
# (check) or the demo (run) there.
#
#	tests/lib/vm.sh check [KV...]	every kernel of `kernels.sh suite` by default
#	tests/lib/vm.sh run [KV]	the newest of them by default
#	tests/lib/vm.sh mutants KV VAR=value...	tests/lib/mutants-guest.sh
#					(make check-mutants, tests/lib/mutants.sh)
#	tests/lib/vm.sh figures [KV]	the documentation's example runs
#					(tests/lib/figures.sh, make figures)
# (those with headers in /lib/modules/KV/build and an image in /boot or
# unpacked by tests/lib/setup.sh into the cache)
# A KV without /boot/vmlinuz-KV boots its image in tests/lib/kernels.sh's
# cache, else /lib/modules/KV/build's bzImage (the debug kernel of `make
# debug-kernel`, never a default; nor are the cached kernels whose headers
# are in a build root, `make kernels`).
#
# A KV written KV:fast runs only the tests of FAST_TESTS (default: the
# differential subset below) in that VM; tests/lib/check.sh's matrix.
#
# Env passed into the guest: TESTS="a b" (only these tests), TEST_TIMEOUT,
# PKTGEN_MODULE=stock (test the distribution's pktgen), STRESS=1 (the
# stress tests too) and their FUZZ_*, RACE_SECONDS, FAULT_SECONDS,
# HOOK_SECONDS (rx-hooks), FUZZ_RX_SEED and FUZZ_RX_FRAMES (fuzz-rx),
# CONTRACT_STOCK=1 (contract.sh against PKTGEN_MODULE=stock), PIN_KEYS=0
# (run.sh: let the netdev ingress static key switch).
# VM_JOBS=N boots up to N kernels at once (1).
# VM_TIMEOUT is the limit per VM in seconds (2700); VM_VERBOSE=1 shows
# the kernel's console (always in
# $OUT/console-KV.log, and its end after a panic); VM_QEMU_OPTS adds QEMU
# options and VM_CPUS sets the vCPUs (2) (bench/run.sh --icount);
# VM_ASLR=1 keeps the guest's user-space address randomisation (off:
# see boot()).
# Every check and mutants VM carries three wired pairs of real NICs
# (tests/nic-drivers.sh, tests/nic-mq.sh): two virtio-net-pci on QEMU hub
# 2, two e1000e on hub 1, and two multiqueue virtio-net-pci on taps of a
# bridge in a network namespace of QEMU's own; no host network; VM_NICS=0
# leaves them all out.
set -u

REPO=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-}
shift || true
case $mode in
check|run|mutants|figures) ;;
*) echo "usage: $0 check|run|mutants|figures [KV...]" >&2; exit 2 ;;
esac

# The fast subset: the tests that compare with the kernel's own pktgen.ko
# (params-diff, the wire tests' stock cases) and the write contract, which
# is what differs between kernels, and the real NIC drivers' test (the
# drivers differ too; nic-mq, their multiqueue selection, runs with the
# rest of the suite on the newest kernel).
FAST_TESTS=${FAST_TESTS:-smoke contract params-diff errors wire-ipv4 wire-ranges nic-drivers}

# kernels unpacked by tests/lib/kernels.sh (never a default: named as KV)
KCACHE=${PKTGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pktgen}/kernels

# the vng tests/lib/setup.sh chose (a venv of its own, Debian's, or one on
# PATH), else one on PATH
VNG=${PKTGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pktgen}/bin/vng
[ -x "$VNG" ] ||
	VNG=$(command -v vng || ls "${PYENV_ROOT:-$HOME/.pyenv}/shims/vng" 2>/dev/null)
if [ -z "$VNG" ]; then
	echo "vm.sh: vng not found (run tests/lib/setup.sh)" >&2
	exit 1
fi
# vng runs virtme-run from PATH: a venv's bin is not on it
PATH=$(dirname "$(readlink -f "$VNG")"):$PATH

kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
	mapfile -t kernels < <("$REPO/tests/lib/kernels.sh" suite)
	case $mode in run | figures) [ ${#kernels[@]} -gt 0 ] && kernels=("${kernels[-1]}") ;; esac
fi
if [ ${#kernels[@]} -eq 0 ]; then
	echo "vm.sh: no kernel with /lib/modules/KV/build and an image (run tests/lib/setup.sh)" >&2
	exit 1
fi

# VM_OUT: an output directory of the caller's (tests/lib/mutants.sh
# boots again into the same one)
OUT=${VM_OUT:-$(mktemp -d /tmp/pktgen-vm.XXXXXX)}
mkdir -p "$OUT" || exit 1
chmod 755 "$OUT"
echo "vm.sh: output in $OUT"

# the tests' C programs (build/helpers/, which the guest sees at the
# same path): tests/lib/build-all.sh builds them; here too when missing
make -s --no-print-directory -C "$REPO" helpers ||
	{ echo "vm.sh: make helpers failed" >&2; exit 1; }

genv=()
for v in TESTS TEST_TIMEOUT PKTGEN_MODULE STRESS SLOW FUZZ_WRITES FUZZ_PROCS FUZZ_SEED \
	 FUZZ_SECONDS FUZZ_ACTIONS STATE_SEED STATE_SECONDS STATE_ACTIONS \
	 STATE_REPLAY RACE_SECONDS KCSAN_SKIP_WATCH KCSAN_UDELAY FAULT_SECONDS HOOK_SECONDS \
	 FUZZ_RX_SEED FUZZ_RX_FRAMES NIC_PAIRS NIC_STOCK CONTRACT_STOCK PIN_KEYS FIGURES \
	 RX_BENCH_STREAMS RX_BENCH_COUNT RX_BENCH_RUNS START_AT_RUNS START_AT_LEAD_MS \
	 START_AT_WIDE_SPIN_US START_AT_MEDIAN_MAX_NS; do
	[ -n "${!v:-}" ] && genv+=("$v=${!v}")
done

# the kernel image of KV: /boot/vmlinuz-KV, a kernel of tests/lib/kernels.sh's
# cache, or the bzImage of the build tree /lib/modules/KV/build points to
# (make debug-kernel)
kimage() {
	local img=/lib/modules/$1/build/arch/x86/boot/bzImage
	[ -e "$KCACHE/$1/vmlinuz" ] && img=$KCACHE/$1/vmlinuz
	[ -e "/boot/vmlinuz-$1" ] && img=/boot/vmlinuz-$1
	echo "$img"
}

# The real NICs of a check VM, each with a fixed MAC the tests find it by
# (tests/nic-drivers.sh, tests/nic-mq.sh): 52:54:00:00:P:N, P the pair
# (01 virtio hub, 02 e1000e hub, 03 virtio multiqueue), N 01 or 02.
# The hub pairs: each on a QEMU hub of its own (a hub forwards a frame to
# its other ports: the two NICs are wired to each other).  A hubport has
# one queue: no multiqueue virtio this way.
NIC_OPTS=""
for n in 1 2; do
	NIC_OPTS+=" -netdev hubport,id=pgv$n,hubid=2"
	NIC_OPTS+=" -device virtio-net-pci,netdev=pgv$n,mac=52:54:00:00:01:0$n"
	NIC_OPTS+=" -netdev hubport,id=pge$n,hubid=1"
	NIC_OPTS+=" -device e1000e,netdev=pge$n,mac=52:54:00:00:02:0$n"
done
# The multiqueue pair: two virtio-net-pci with mq=on, MQ_QUEUES queue
# pairs each (vectors: one per queue and direction, config, control), on
# two multi_queue taps of a bridge in a network namespace of the VM's own
# (QEMU runs in it: nothing of this touches the host's network, and it
# goes away with QEMU).  The bridge floods every frame (ageing 0: no
# learning), no STP, no forward delay.  Where the wiring fails (no tun,
# no bridge), the VM boots without this pair: nic-mq.sh skips.
MQ_QUEUES=4
MQ_OPTS=""
for n in 1 2; do
	MQ_OPTS+=" -netdev tap,id=pgq$n,ifname=pgmq$n,script=no,downscript=no,queues=$MQ_QUEUES"
	MQ_OPTS+=" -device virtio-net-pci,netdev=pgq$n,mq=on,vectors=$((2 * MQ_QUEUES + 2))"
	MQ_OPTS+=",mac=52:54:00:00:03:0$n"
done
# mq_wire: the bridge and its two taps, in the current network namespace;
# IPv6 off there first (else the bridge's router solicitations and MLD
# reports reach the NICs: a test counts every frame they receive)
mq_wire() {
	{ ! [ -d /proc/sys/net/ipv6 ] ||
		sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1; } &&
		ip link set lo up &&
		ip link add pgbr type bridge stp_state 0 forward_delay 0 ageing_time 0 \
			mcast_snooping 0 &&
		for n in 1 2; do
			ip tuntap add dev "pgmq$n" mode tap multi_queue &&
				ip link set "pgmq$n" master pgbr up || return 1
		done &&
		ip link set pgbr up
}
# mq_probe: can this host wire the multiqueue pair (in a throwaway netns)?
mq_probe() {
	command -v unshare >/dev/null &&
		unshare -n -- bash -c "$(declare -f mq_wire); mq_wire" >"$OUT/mq-wire.log" 2>&1
}
MQ_NETNS=()
if [ "$mode" != run ] && [ "$mode" != figures ] && [ "${VM_NICS:-1}" != 0 ]; then
	if mq_probe; then
		NIC_OPTS+=$MQ_OPTS
		# QEMU in a netns of its own, wired there first
		MQ_NETNS=(unshare -n -- bash -c "$(declare -f mq_wire)"'; mq_wire && exec "$@"' mq_wire)
	else
		echo "vm.sh: no multiqueue virtio pair (wiring its taps failed:" \
			"$OUT/mq-wire.log)"
	fi
fi

# Modules the guest never loads (boot() says why); a name a kernel does
# not have is harmless.
BOOT_BLACKLIST=kvm,kvm_amd,kvm_intel,ccp,ahci,sr_mod,sg,iTCO_wdt,intel_pmc_bxt
BOOT_BLACKLIST+=,i6300esb,pcspkr,i2c_i801,lpc_ich,psmouse,serio_raw,evdev,button
BOOT_BLACKLIST+=,powernow_k8,qemu_fw_cfg,aesni_intel,ghash_clmulni_intel
BOOT_BLACKLIST+=,crct10dif_pclmul,crc32_pclmul,crc32c_intel,sha1_ssse3
BOOT_BLACKLIST+=,sha256_ssse3,sha512_ssse3
# 9p at once: vng tries virtiofsd first and, with QEMU's C virtiofsd
# (Debian 12's /usr/lib/qemu/virtiofsd, which it cannot drive), waits
# 3.1 s for each of the two shares before it falls back to 9p
FORCE_9P=""
"$VNG" --help 2>/dev/null | grep -q -e '--force-9p' && FORCE_9P=--force-9p

boot() {	# KV MODE [VAR=value...]: run guest.sh MODE in a VM (the VARs
	# after genv's), console to $OUT/console-KV.log
	local kv=$1 m=$2 cmd rc t0 append attempt qopts=${VM_QEMU_OPTS:-}
	shift 2
	case $m in run | figures) ;; *) [ "${VM_NICS:-1}" != 0 ] && qopts+=$NIC_OPTS ;; esac
	cmd="bash $(printf '%q ' "$REPO/tests/lib/guest.sh" "$m" "$kv" "$OUT" "${genv[@]}" "$@")"
	# a cached kernel or one from its build tree: guest.sh makes its
	# modules loadable
	if [ -e "/boot/vmlinuz-$kv" ]; then
		:
	elif [ -e "$KCACHE/$kv/vmlinuz" ]; then
		cmd+=" $(printf '%q' "PG_KMODS=$KCACHE/$kv/lib/modules/$kv")"
	else
		cmd+=" $(printf '%q' "PG_KTREE=$(readlink -f "/lib/modules/$kv/build")")"
	fi
	echo "vm.sh: booting $kv ($m)"
	# The kernel's console always goes to the log (loglevel 4: errors and
	# worse; an oops prints everything); on stdout only with VM_VERBOSE.
	# KCSAN reports count as warnings, and it also reports the kernel's
	# own data races: a KCSAN kernel runs without panic_on_warn (run.sh
	# fails a test on a report that names pktgen)
	# On a distribution kernel a soft lockup panics, and the panic
	# prints the whole kernel log (stacks included, which loglevel 4
	# hides): a hung VM otherwise says nothing until its timeout.  Not
	# on our debug kernels (-pg*), 40-100 times slower under TCG.
	append="panic_on_warn=1"
	[[ $kv == *-pg* ]] || append+=" softlockup_panic=1 panic_print=0x20"
	grep -qsx CONFIG_KCSAN=y "/lib/modules/$kv/build/.config" && append=""
	[ -n "${VM_VERBOSE:-}" ] || append+=" loglevel=4"
	# No address-space randomisation for the guest's processes: TCG keys
	# its translated code by virtual address, so with ASLR every exec
	# translates ld.so and libc anew.  Measured on 6.12: 40 x (true, ip,
	# cat) and 4 python3 took 47-54 s with it, 15-28 s without.  Nothing
	# the tests check depends on it (the kernel's own KASLR stays);
	# VM_ASLR=1 keeps it.
	[ "${VM_ASLR:-0}" = 1 ] || append+=" norandmaps"
	# udev's coldplug loads a module for each of QEMU's q35 devices and
	# the CPU's features (KVM, AHCI and the CD-ROM, watchdogs, i2c,
	# input, the crypto accelerators): 9 s of a 21 s boot under TCG
	# (6.12), and no test uses them.  The NICs' drivers still load.
	append+=" modprobe.blacklist=$BOOT_BLACKLIST"
	# A kernel that panics before guest.sh ran (its "# guest:" line) has
	# run nothing of ours: the module is not loaded yet.  Seen once on a
	# CI machine, 6.12 at 5 s into the boot under QEMU 7.2's TCG (its
	# oops not kept; likely the class of the stale-translation hang in
	# testing.rst).  Such a VM boots once more, unless the oops lists
	# pktgen among its modules; its console is kept as
	# console-KV.boot1.log.
	for attempt in 1 2; do
		t0=$SECONDS
		"${MQ_NETNS[@]}" timeout -k 30 "${VM_TIMEOUT:-2700}" "$VNG" --run "$(kimage "$kv")" \
			--disable-kvm $FORCE_9P --cpus "${VM_CPUS:-2}" --memory 2G --append "$append" \
			--verbose ${qopts:+--qemu-opts "$qopts"} \
			--rwdir "$OUT" --cwd "$REPO" -- "$cmd" </dev/null 2>&1 |
			tee "$OUT/console-$kv.log" | kernel_lines_filter
		rc=${PIPESTATUS[0]}
		echo "vm.sh: $kv VM exited $rc after $((SECONDS - t0))s"
		[ "$rc" -eq 255 ] || break
		panic_summary "$kv"
		grep -aq -e '# guest: ' -e 'Modules linked in:.*pktgen' \
			"$OUT/console-$kv.log" && break
		[ "$attempt" = 2 ] && break
		mv "$OUT/console-$kv.log" "$OUT/console-$kv.boot1.log"
		echo "vm.sh: $kv panicked while booting, before guest.sh ran" \
			"(nothing of pktgen's loaded): booting it again"
	done
	return "$rc"
}

# after a panic: the oops (its first 40 lines), then the console's end
panic_summary() {	# KV
	local log=$OUT/console-$1.log
	echo "vm.sh: $1's oops ($log):"
	grep -a '^\[ *[0-9]*\.[0-9]*\]' "$log" |
		grep -a -m 1 -A 39 -e 'BUG:' -e 'Oops' -e 'general protection' \
			-e 'kernel BUG' -e 'watchdog:' -e 'RIP:'
	echo "vm.sh: the end of $1's console:"
	grep -a '^\[ *[0-9]*\.[0-9]*\]' "$log" | tail -n 80
}

# without VM_VERBOSE, drop the kernel's own lines ("[   12.345678] ...")
kernel_lines_filter() {
	if [ -n "${VM_VERBOSE:-}" ]; then
		cat
	else
		grep -a --line-buffered -v -e '^\[ *[0-9]*\.[0-9]*\] ' \
			-e '^Probing EDD' -e '^Memory KASLR' -e '^Poking KASLR'
	fi
}

if [ "$mode" = run ] || [ "$mode" = figures ]; then
	boot "${kernels[0]}" "$mode"
	exit
fi
# mutants KV VAR=value...: the VARs go into the guest
if [ "$mode" = mutants ]; then
	boot "${kernels[0]}" mutants "${kernels[@]:1}"
	exit
fi

# check_kernel ARG: one kernel's VM; writes "P F S BAD LINE" to
# $OUT/result-KV (BAD: the run itself broke)
check_kernel() {
	local arg=$1 kv vmenv=() sub="" rc=0 note="" p f s bad=0
	# KV:fast runs only $FAST_TESTS in that VM (check.sh's matrix)
	kv=${arg%:fast}
	[ "$kv" != "$arg" ] && vmenv=("TESTS=$FAST_TESTS") sub=" (fast subset)"
	boot "$kv" check "${vmenv[@]}" || rc=$?
	if [ -s "$OUT/counts-$kv" ]; then
		read -r p f s <"$OUT/counts-$kv"
	else
		p=0 f=1 s=0 note=" (no results)"
		bad=1
	fi
	case $rc in
	0) ;;
	1) [ -n "$note" ] && bad=1 ;;	# run.sh: some test failed
	255) note="$note (VM exit 255: kernel panic)"; bad=1 ;;
	124|137) note="$note (VM timed out)"; bad=1 ;;
	*) note="$note (VM exit $rc)"; bad=1 ;;
	esac
	# a broken VM run counts as a failure even if its tests all passed
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	echo "$p $f $s $bad $kv$sub: $p passed, $f failed, $s skipped$note" >"$OUT/result-$kv"
}

# VM_JOBS=N: up to N kernels' VMs at once, each VM's output printed whole
# when it ends.  A whole suite keeps 1.24 of two cores busy on average,
# but two TCG guests on two cores slowed rx-capture from 24 s to 70 s and
# two full suites side by side beside one more VM ran 2.5 times slower
# each: not make check's default.
jobs=${VM_JOBS:-1}
if [ "$jobs" -le 1 ]; then
	for arg in "${kernels[@]}"; do
		check_kernel "$arg"
	done
else
	pending=()
	for arg in "${kernels[@]}"; do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
			wait -n
		done
		echo "vm.sh: ${arg%:fast} in the background: $OUT/stdout-${arg%:fast}.log"
		check_kernel "$arg" >"$OUT/stdout-${arg%:fast}.log" 2>&1 &
		pending+=("$arg")
	done
	wait
	for arg in "${pending[@]}"; do
		echo
		echo "vm.sh: --- ${arg%:fast} ---"
		cat "$OUT/stdout-${arg%:fast}.log"
	done
fi

tp=0 tf=0 ts=0 bad=0 lines=()
for arg in "${kernels[@]}"; do
	kv=${arg%:fast}
	if [ -s "$OUT/result-$kv" ]; then
		read -r p f s b line <"$OUT/result-$kv"
	else
		p=0 f=1 s=0 b=1 line="$kv: no result"
	fi
	lines+=("$line")
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	[ "$b" -eq 0 ] || bad=1
done

echo
echo "vm.sh: results in $OUT"
printf '%s\n' "${lines[@]}"
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ] && [ "$bad" -eq 0 ]
