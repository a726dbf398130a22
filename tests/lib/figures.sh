#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make figures` inside the VM: the example runs and figures of
# Documentation/tools.rst (pktgen-sweep on a veth pair and on a dummy)
# and Documentation/rfc2544.rst (tests/lib/rfc2544-demo.sh), drawn by
# the tools themselves, into $OUT/figures; the host copies the PNGs into
# Documentation/images.  Not a test: prints, checks nothing.
#
#   netns A                          netns B
#   sw-veth0 (MTU 9000) ---- veth ---- sw-veth1
#   sw-dummy0
. "$(dirname "$0")/lib.sh"

TOOLS=$(cd "$(dirname "$0")/../.." && pwd)/tools
D=${OUT:-/tmp}/figures
mkdir -p "$D" || exit 1
pg_load || exit 1
uname -r | tee "$D/kernel.txt"

setup_ns A
setup_ns B
veth_create "$A" sw-veth0 "$B" sw-veth1 &&
	ip -n "$A" link set sw-veth0 mtu 9000 && ip -n "$B" link set sw-veth1 mtu 9000 &&
	dummy_create "$A" sw-dummy0 || exit 1
mac=$(ip netns exec "$B" cat /sys/class/net/sw-veth1/address)

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

sizes=64,128,256,512,1024,1280,1518,9000
sweep sweep-veth0 -i sw-veth0 -m "$mac" -n 10000 -r 3 -l 10000 --frame-size $sizes
sweep sweep-dummy0 -i sw-dummy0 -n 20000 -r 3 -l 10000 --frame-size $sizes
pg_unload

OUT=$D bash "$(dirname "$0")/rfc2544-demo.sh" "$D/rfc2544"
ls -l "$D" "$D/rfc2544"
