#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of the benchmark (make bench): build, boot the 6.12 VM with
# tests/lib/vm.sh (TCG, as the tests do), run bench/guest.sh there (stock
# pktgen.ko and ours alternately, in one guest) and save the report under
# bench/results/<date>-<kv>.{md,csv,png} plus the raw runs (-runs.csv).
#
#	bench/run.sh [--kernel 6.12|6.1|all|KV] [--quick] [--runs N]
#		[--secs S] [--cells 'GLOB...'] [--no-build] [--ipopt]
#		[--baseline REV] [--icount] [--cpu MODEL] [--tag TAG]
#		[--floor-burst N]
#
# --baseline REV: ours as of git revision REV (built into build/baseline)
# instead of the stock module: what a change bought, in one VM, ABBA, e.g.
# `bench/run.sh --baseline HEAD~1 --runs 9 --cells 'dummy/*/64/1t'`.
# Saved with a -vs-REV suffix.
# --icount: QEMU's clock counts guest instructions (-icount shift=0: 1 ns
# each; sleep=off: idle time does not follow the host's clock either), so
# a "second" is 10^9 instructions and pps is packets per 10^9
# instructions, whatever else the host runs: runs agree within 0.5%.  One
# thread only: the vCPUs then take turns on one host thread (the default
# cells are */1t).  Saved with an -icount suffix.
# --cpu MODEL: the guest CPU as QEMU's -cpu (vng's is max), e.g.
# max,-erms: 6.1's memset() is then not `rep stosb`, whose every byte
# TCG counts as an instruction.  Saved with a -cpu-MODEL suffix.
# --floor-burst N: the floor's burst (bench/guest.sh; 32 by default).
# --tag TAG: a -TAG suffix on the saved files, e.g. for a run of a few
# cells that must not replace the day's full report.
# --quick: one short run per cell (results saved with a -quick suffix).
# --ipopt: the IPv4 option forwarding benchmark (bench/ipopt-guest.sh, the
# PF_IPOPTION memo's measurement; make bench-ipopt) instead; saved as
# bench/results/<date>-<kv>-ipopt.{md,csv}.
# The default (5 runs of 1 s per module and cell) takes about 15 minutes
# per kernel under TCG.  Env: VM_TIMEOUT (s, per VM) as for vm.sh.
set -u

REPO=$(cd "$(dirname "$0")/.." && pwd)
BENCH=$REPO/bench
cmdline="bench/run.sh${*:+ $(printf '%q ' "$@")}"	# for the report
kernel=6.12 build=1 quick="" args=() guest=guest.sh base_rev="" icount="" cells_given=0 guest_cpu="" tag=""

usage() {
	sed -n '/^#	bench\/run.sh/,/^#		\[--floor-burst/p' "$0" | sed 's/^#//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--quick) quick=-quick; args+=(--quick) ;;
	--cells) cells_given=1; args+=("$1" "$2"); shift ;;
	--runs|--secs|--floor-burst) args+=("$1" "$2"); shift ;;
	--no-build) build=0 ;;
	--ipopt) guest=ipopt-guest.sh ;;
	--baseline) base_rev=$2; shift ;;
	--icount) icount=-icount ;;
	--cpu) guest_cpu=$2; shift ;;
	--tag) tag=-$2; shift ;;
	*) usage ;;
	esac
	shift
done

kernels() {	# the suite's and the cached kernels (headers + an image)
	# matching $kernel
	local kv
	for kv in $({ "$REPO/tests/lib/kernels.sh" suite
		      "$REPO/tests/lib/kernels.sh" list; } | sort -uV); do
		case $kernel in
		all|"$kv") echo "$kv" ;;
		*) [[ $kv == "$kernel".* ]] && echo "$kv" ;;
		esac
	done | sort -V
}

host_meta() {	# FILE LOAD_BEFORE
	local cpu
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	{
		echo "host_cpu=$cpu ($(nproc) cores)"
		echo "host_load=before: $2; after: $(uptime)"
		echo "command=${cmdline% } (at $(git -C "$REPO" describe --always --dirty))"
		echo "vm=virtme-ng $(vng --version 2>/dev/null | awk '{print $2}')," \
			"QEMU TCG (--disable-kvm, as tests/lib/vm.sh)" \
			"${icount:+with -icount shift=0,sleep=off: guest time counts instructions, pps = packets per 10^9 guest instructions}" \
			"${guest_cpu:+(-cpu $guest_cpu)}"
	} >"$1"
}

bench_one() {	# KV: one VM; report into bench/results
	local kv=$1 log out load dir name rc=0
	log=$(mktemp /tmp/pktgen-bench.XXXXXX)
	load=$(uptime)
	echo "bench: $kv, host: $load"
	TESTS=../bench/vm-entry TEST_TIMEOUT=${TEST_TIMEOUT:-1500} \
		VM_TIMEOUT=${VM_TIMEOUT:-1800} \
		VM_QEMU_OPTS="${icount:+-icount shift=0,sleep=off}${guest_cpu:+ -cpu $guest_cpu}" \
		VM_CPUS=${icount:+1} \
		"$REPO/tests/lib/vm.sh" check "$kv" |
		tee "$log"
	rc=${PIPESTATUS[0]}
	out=$(sed -n 's/^vm\.sh: output in //p' "$log" | head -n 1)
	rm -f "$log"
	dir=$out/bench-$kv
	if [ ! -s "$dir/runs.csv" ] || [ ! -s "$dir/meta.txt" ]; then
		echo "bench: $kv: no results in $dir (vm.sh exit $rc)" >&2
		return 1
	fi
	host_meta "$dir/host.txt" "$load"
	mkdir -p "$BENCH/results"
	name=$BENCH/results/$(date +%Y-%m-%d)-$kv$quick$icount${guest_cpu:+-cpu-$guest_cpu}
	[ -z "$base_rev" ] || name+=-vs-$(git -C "$REPO" rev-parse --short "$base_rev")
	name+=$tag
	if [ "$guest" = ipopt-guest.sh ]; then
		name+=-ipopt
		cp "$dir/runs.csv" "$name.csv"
		python3 -S "$BENCH/ipopt-report.py" "$dir/runs.csv" "$dir/meta.txt" \
			"$dir/host.txt" | tee "$name.md"
		echo "bench: saved $name.md, .csv"
		return "$rc"
	fi
	# /usr/bin/python3 with its site packages: the PNG needs Debian's matplotlib
	cp "$dir/runs.csv" "$name-runs.csv"
	echo
	/usr/bin/python3 "$BENCH/report.py" --meta "$dir/meta.txt" --meta "$dir/host.txt" \
		--md "$name.md" --csv "$name.csv" --png "$name.png" "$dir/runs.csv" ||
		rc=1
	echo "bench: saved $name.md, .csv, -runs.csv$([ -s "$name.png" ] && echo ', .png')"
	return "$rc"
}

# build_baseline REV: REV's sources in build/baseline, built for every
# kernel by its own build-all.sh (build/baseline/build/KV/pktgen.ko)
build_baseline() {
	local src=$REPO/build/baseline
	rm -rf "$src" && mkdir -p "$src" || return 1
	git -C "$REPO" archive "$1" | tar -x -C "$src" || {
		echo "bench: cannot export revision $1" >&2
		return 1
	}
	"$src/tests/lib/build-all.sh" | sed "s/^/baseline $1: /"
	return "${PIPESTATUS[0]}"
}

mapfile -t kvs < <(kernels)
if [ ${#kvs[@]} -eq 0 ]; then
	echo "bench: no installed kernel matches '$kernel'" >&2
	exit 1
fi
if [ "$build" = 1 ]; then
	"$REPO/tests/lib/build-all.sh" || exit 1
fi
if [ -n "$base_rev" ]; then
	build_baseline "$base_rev" || exit 1
	[ "$guest" = guest.sh ] || { echo "bench: --baseline is for make bench only" >&2; exit 2; }
	args+=(--baseline "$(git -C "$REPO" rev-parse --short "$base_rev")" "$REPO/build/baseline/build")
fi
[ -n "$icount" ] && [ "$cells_given" = 0 ] && args+=(--cells '*/1t')
conf="BENCH_ARGS=("
[ ${#args[@]} -gt 0 ] && conf+=$(printf '%q ' "${args[@]}")
echo "$conf)" >"$BENCH/.config"
echo "BENCH_GUEST=$guest" >>"$BENCH/.config"
rc=0
for kv in "${kvs[@]}"; do
	bench_one "$kv" || rc=1
done
exit "$rc"
