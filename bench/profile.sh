#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a cell's instructions go: perf in an --icount guest.
#
#	bench/profile.sh [--kernel 6.1|6.12] [--stock] [--veth] [--secs S]
#		MODE [SIZE]
#
# MODE: xmit, clone (clone_skb 100000), burst (burst 32), receive
# (netif_receive), receive_burst (netif_receive, burst 32) or queue
# (queue_xmit), on dummy0 (--veth: veth0, whose peer in another netns
# takes the frames, as bench/guest.sh's veth cells) with one thread; SIZE
# is the frame with FCS (64).  The guest's clock counts instructions
# (QEMU -icount shift=0), so perf's cpu-clock samples fall once per so
# many instructions: the flat profile is where instructions go, not
# time.  Perf's own sampling costs
# instructions too (~15-20% at 5 kHz): compare profiles, not their pps
# with bench/run.sh's.  Prints the flat profile; perf.data, the guest's
# kallsyms and the report stay in the directory it names (with them
# `perf annotate` or perf script finds the hot instructions of ours).
set -eu

REPO=$(cd "$(dirname "$0")/.." && pwd)

guest() {	# KO DEV MODE SIZE SECS DIR: inside the VM
	local ko=$1 dev=$2 mode=$3 size=$4 secs=$5 dir=$6
	pg() { local f=$1; shift; echo "$*" >"/proc/net/pktgen/$f"; }

	if [ "$dev" = veth0 ]; then
		ip netns add peer
		ip link add veth0 type veth peer name veth1 netns peer
		ip -n peer link set veth1 address 02:00:00:00:00:01 up
	else
		ip link add dummy0 type dummy
	fi
	ip link set "$dev" up
	if [ "$ko" = stock ]; then modprobe pktgen; else insmod "$ko"; fi
	pg kpktgend_0 add_device "$dev"
	pg "$dev" "count 0"
	pg "$dev" "pkt_size $((size - 4))"
	pg "$dev" "dst 198.18.0.1"
	pg "$dev" "dst_mac 02:00:00:00:00:01"
	case $mode in
	clone) pg "$dev" "clone_skb 100000" ;;
	burst) pg "$dev" "burst 32" ;;
	receive) pg "$dev" "xmit_mode netif_receive" ;;
	receive_burst) pg "$dev" "xmit_mode netif_receive"; pg "$dev" "burst 32" ;;
	queue) pg "$dev" "xmit_mode queue_xmit" ;;
	esac
	echo 0 >/proc/sys/kernel/kptr_restrict
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	cat /proc/kallsyms >"$dir/kallsyms"
	echo start >/proc/net/pktgen/pgctrl &
	sleep 0.3
	perf record -q -a -e cpu-clock -F 5000 -o "$dir/perf.data" -- sleep "$secs"
	echo stop >/proc/net/pktgen/pgctrl
	wait
	grep -h -A1 '^Result' "/proc/net/pktgen/$dev" >"$dir/result"
	rmmod pktgen
	# kallsyms only: the stock module's file would name ours' symbols
	perf report -i "$dir/perf.data" --symfs=/nonexistent --kallsyms="$dir/kallsyms" \
		--sort sym --stdio 2>/dev/null | grep '%' >"$dir/report" || :
}

if [ "${1:-}" = --guest ]; then
	shift
	guest "$@"
	exit
fi

kernel=6.12 stock=0 secs=2 dev=dummy0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--stock) stock=1 ;;
	--veth) dev=veth0 ;;
	--secs) secs=$2; shift ;;
	-*) sed -n '/^#	bench/,/^#		MODE/p' "$0" | sed 's/^#//' >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
mode=${1:?MODE: xmit, clone, burst, receive, receive_burst or queue}
size=${2:-64}
case $mode in
xmit|clone|burst|receive|receive_burst|queue) ;;
*) echo "profile.sh: unknown mode $mode" >&2; exit 2 ;;
esac

# shellcheck disable=SC2012 # kernel releases: no odd characters
	kv=$(ls -d /lib/modules/"$kernel".*-amd64 2>/dev/null | sort -V | tail -n 1)
kv=${kv##*/}
[ -n "$kv" ] || { echo "profile.sh: no kernel $kernel installed" >&2; exit 1; }
command -v perf >/dev/null || { echo "profile.sh: perf not found (apt install linux-perf)" >&2; exit 1; }
VNG=$(command -v vng || ls "${PYENV_ROOT:-$HOME/.pyenv}/shims/vng")
"$REPO/tests/lib/build-all.sh" >/dev/null
ko=$REPO/build/$kv/pktgen.ko
[ "$stock" = 0 ] || ko=stock

dir=$(mktemp -d /tmp/pktgen-profile.XXXXXX)
chmod 777 "$dir"
"$VNG" --run "/boot/vmlinuz-$kv" --disable-kvm --cpus 1 --memory 2G \
	--qemu-opts "-icount shift=0,sleep=off" --rwdir "$dir" -- \
	"bash $(printf '%q ' "$REPO/bench/profile.sh" --guest "$ko" "$dev" "$mode" "$size" "$secs" "$dir")" \
	</dev/null >"$dir/vm.log" 2>&1 || { tail -n 20 "$dir/vm.log"; exit 1; }
echo "profile: $kv, ${ko##*/}, $dev, $mode, $size B, $secs s; files in $dir"
cat "$dir/result"
head -n 40 "$dir/report"
