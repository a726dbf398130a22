#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make figures` inside the VM: the example runs and figures of
# Documentation/tools.rst (pktgen-sweep on a veth pair and on a dummy)
# and Documentation/rfc2544.rst (tests/lib/rfc2544-demo.sh), drawn by
# the tools themselves, into $OUT/figures; the host copies the PNGs into
# Documentation/images.  Not a test: prints, checks nothing.
# FIGURES="sweep rfc2544" (the default: both) chooses.
#
#   netns A                          netns B
#   sw-veth0 (MTU 9000) ---- veth ---- sw-veth1
#   sw-dummy0
. "$(dirname "$0")/lib.sh"

TOOLS=$(cd "$(dirname "$0")/../.." && pwd)/tools
D=${OUT:-/tmp}/figures
mkdir -p "$D" || exit 1
FIGURES=${FIGURES:-sweep rfc2544}
# the guest's root is read-only: matplotlib's cache elsewhere, not a
# warning in the runs' output
MPLCONFIGDIR=$(mktemp -d) && export MPLCONFIGDIR
uname -r | tee "$D/kernel.txt"

sweep() {	# NAME OPTION...: the command and its output into D/NAME.txt
	local name=$1 t0=$SECONDS
	shift
	{
		echo "\$ ip netns exec A tools/pktgen-sweep $* --csv $name.csv --png $name.png"
		ip netns exec "$A" /usr/bin/python3 "$TOOLS/pktgen-sweep" "$@" \
			--csv "$D/$name.csv" --png "$D/$name.png" 2>&1
		echo "(exit $?, $((SECONDS - t0)) s)"
		echo "\$ cat $name.csv"
		cat "$D/$name.csv"
	} | tee "$D/$name.txt"
}

sweeps() {	# pktgen-sweep on a veth pair (MTU 9000) and on a dummy
	local mac sizes=64,128,256,512,1024,1280,1518,9000
	pg_load || return 1
	setup_ns A B || return 1
	veth_create "$A" sw-veth0 "$B" sw-veth1 &&
		ip -n "$A" link set sw-veth0 mtu 9000 && ip -n "$B" link set sw-veth1 mtu 9000 &&
		dummy_create "$A" sw-dummy0 || return 1
	mac=$(ip netns exec "$B" cat /sys/class/net/sw-veth1/address)
	sweep sweep-veth0 -i sw-veth0 -m "$mac" -n 10000 -r 3 -l 10000 --frame-size $sizes
	sweep sweep-dummy0 -i sw-dummy0 -n 20000 -r 3 -l 10000 --frame-size $sizes
	pg_unload
}

case " $FIGURES " in *" sweep "*) sweeps || exit 1 ;; esac
case " $FIGURES " in
*" rfc2544 "*) OUT=$D bash "$(dirname "$0")/rfc2544-demo.sh" "$D/rfc2544" || exit 1 ;;
esac
ls -lR "$D"
