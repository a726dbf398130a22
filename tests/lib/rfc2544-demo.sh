#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The example run of Documentation/rfc2544.rst, in a guest (as root, the
# module built): tests/rfc2544.sh's topology, pktgen-rfc2544 against
#   1. a router shaped by tbf rate 3mbit: all four tests at 64, 512 and
#      1518 bytes (meant to finish in a few minutes);
#   2. netem loss 20%: throughput with --pdr 30;
#   3. netem delay 10ms: latency at 2000 pps;
# each run's terminal output, CSV, JSON and PNG into DIR (default
# $OUT/rfc2544-demo), timed.  Not a test: prints, checks nothing.
#	tests/lib/rfc2544-demo.sh [DIR]

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rx-lib.sh"

TOOLS=$(cd "$(dirname "$0")/../.." && pwd)/tools
D=${1:-${OUT:-/tmp}/rfc2544-demo}
mkdir -p "$D" || exit 1
pg_load && fwd_path_create 10.98 && rx_cmd "$RX" rx_disable || exit 1
MAC1=$(mac_of "$FWD" veth1)

dut() {
	ip netns exec "$FWD" tc qdisc del dev veth2 root 2>/dev/null
	[ $# -eq 0 ] || ip netns exec "$FWD" tc qdisc add dev veth2 root "$@"
}

run() {	# NAME OPTION...: the tool's command line and output into D/NAME.*
	local name=$1 t0=$SECONDS
	shift
	{
		echo "\$ ip netns exec S pktgen-rfc2544 -i veth0 -d 10.98.2.2 -m $MAC1 \\"
		echo "      --rx-netns K --rx-dev veth3 --csv $name.csv --json $name.json \\"
		echo "      --png $name.png $*"
		ip netns exec "$TX" /usr/bin/python3 "$TOOLS/pktgen-rfc2544" -i veth0 -d 10.98.2.2 -m "$MAC1" \
			--rx-netns "$RX" --rx-dev veth3 --csv "$D/$name.csv" \
			--json "$D/$name.json" --png "$D/$name.png" "$@" 2>&1
		echo "(exit $?, $((SECONDS - t0)) s)"
	} | tee "$D/$name.txt"
	ip netns exec "$FWD" tc -s qdisc show dev veth2 | tee -a "$D/$name.txt"
}

uname -r | tee "$D/kernel.txt"
dut tbf rate 3mbit burst 3000 limit 18000
run tbf --frame-size 64,512,1518 -D 1.5 --max-rate 3.9mbit -r 3.2 --pdr 1 --latency-loads 90 \
	--b2b-max 2000 all
dut netem loss 20%
run lossy --frame-size 64 -D 0.5 --max-rate 5000 -r 5 --pdr 30 throughput
dut netem delay 10ms
run delay --frame-size 64,512,1518 -D 1 --rate 2000 --latency-loads 100 latency
ls -l "$D"
