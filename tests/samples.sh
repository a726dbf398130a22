#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every script under samples/ runs to the end against dummy and veth
# devices with a small count: it exits 0, every Result it printed (each
# configuration write and the final statistics) is "Result: OK:", every
# device it configured sent exactly the requested packets (the Result's
# count and pkts-sofar), and the packets left: the dummy's tx_packets or
# the veth peer's rx_packets grew by the total.
#
#   netns A (NSA)                              netns B (NSB)
#   +----------------------------------+       +--------------------------+
#   | eth1, eth2 (dummy)               |       |                          |
#   | veth0 <- pktgen        veth      |<----->| veth1 (rx_packets)       |
#   +----------------------------------+       +--------------------------+
# The classic pktgen.conf-* scripts use their default names eth1/eth2 (or
# ETH1=veth0 from the environment); clone_skb and burst need the dummies
# (veth refuses shared skbs).  A case whose script writes a command or
# flag the module does not know ("No such parameter", "Flag -:X:- unknown")
# is skipped with that reason: those commands are still landing.

. "$(dirname "$0")/lib/lib.sh"

SAMPLES=$(cd "$(dirname "$0")/../samples" && pwd)
N=300		# packets per device (a multiple of the bursts below)
B=10		# burst of the burst samples

# The cases: NAME|SCRIPT|ENV|ARGS|DEVICES|PACKETS ON THE COUNTER|COUNTER.
# ARGS may use $MACB (veth1's MAC); COUNTER is "dev:tx" in NSA (dummy) or
# "veth1:rx" in NSB (netif_receive injects into veth0's own receive path:
# nothing may reach veth1).
CASES=(
	"conf-1-1|pktgen.conf-1-1|COUNT=$N||eth1|$N|eth1:tx"
	"conf-1-2|pktgen.conf-1-2|COUNT=$N||eth1 eth2|$((2 * N))|eth1:tx eth2:tx"
	"conf-2-1|pktgen.conf-2-1|COUNT=$N PKT_SIZE=100||eth1|$N|eth1:tx"
	"conf-2-2|pktgen.conf-2-2|COUNT=$N||eth1 eth2|$((2 * N))|eth1:tx eth2:tx"
	"conf-1-1-rdos|pktgen.conf-1-1-rdos|ETH1=veth0 COUNT=$N DST_MAC=\$MACB||veth0|$N|veth1:rx"
	"conf-1-1-ip6|pktgen.conf-1-1-ip6|COUNT=$N||eth1|$N|eth1:tx"
	"conf-1-1-ip6-rdos|pktgen.conf-1-1-ip6-rdos|ETH1=veth0 COUNT=$N DST_MAC=\$MACB RND=1||veth0|$N|veth1:rx"
	"conf-1-1-flows|pktgen.conf-1-1-flows|ETH1=veth0 COUNT=$N DST_MAC=\$MACB FLOWS=16||veth0|$N|veth1:rx"
	"sample01|pktgen_sample01_simple.sh||-i veth0 -m \$MACB -d 10.9.0.2 -n $N|veth0|$N|veth1:rx"
	"sample01 -6|pktgen_sample01_simple.sh||-6 -i veth0 -m \$MACB -d fd00::2 -n $N -k|veth0|$N|veth1:rx"
	"sample01 -b (ignored)|pktgen_sample01_simple.sh||-i veth0 -m \$MACB -d 10.9.0.2 -n $N -b 4|veth0|$N|veth1:rx"
	"sample02|pktgen_sample02_multiqueue.sh||-i eth1 -t 2 -n $N|eth1@0 eth1@1|$((2 * N))|eth1:tx"
	"sample02 -b (ignored)|pktgen_sample02_multiqueue.sh||-i eth1 -t 2 -n $N -b 4|eth1@0 eth1@1|$((2 * N))|eth1:tx"
	"sample03|pktgen_sample03_burst_single_flow.sh||-i eth1 -t 2 -b $B -n $N|eth1@0 eth1@1|$((2 * N))|eth1:tx"
	"sample04|pktgen_sample04_many_flows.sh|FLOWS=16 FLOWLEN=4|-i veth0 -m \$MACB -n $N|veth0@0|$N|veth1:rx"
	"sample04 -6|pktgen_sample04_many_flows.sh|FLOWS=16 FLOWLEN=4|-6 -i veth0 -m \$MACB -n $N|veth0@0|$N|veth1:rx"
	"sample05|pktgen_sample05_flow_per_thread.sh||-i eth2 -t 2 -b $B -n $N|eth2@0 eth2@1|$((2 * N))|eth2:tx"
	"sample07|pktgen_sample07_range_dos.sh||-i veth0 -t 2 -m \$MACB -d 10.0.0.0/8 -p 1024-65535 -n $N|veth0@0 veth0@1|$((2 * N))|veth1:rx"
	"sample08|pktgen_sample08_ipv6.sh||-i veth0 -m \$MACB -d fd00::/120 -n $N|veth0@0|$N|veth1:rx"
	"sample09|pktgen_sample09_imix.sh||-i veth0 -m \$MACB -n $N|veth0@0|$N|veth1:rx"
	"netif_receive|pktgen_bench_xmit_mode_netif_receive.sh||-i veth0 -b $B -n $N|veth0@0|0|veth1:rx"
	"netif_receive -c (ignored)|pktgen_bench_xmit_mode_netif_receive.sh||-i veth0 -b $B -n $N -c 5|veth0@0|0|veth1:rx"
	"queue_xmit|pktgen_bench_xmit_mode_queue_xmit.sh||-i veth0 -m \$MACB -n $N|veth0@0|$N|veth1:rx"
)

ktap_header
ktap_plan $((2 * ${#CASES[@]} + 4))

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_load || return 1
	setup_ns NSA NSB || return 1
	# devices born without IPv6: nothing but pktgen may send on them
	ip netns exec "$NSA" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 || return 1
	dummy_create "$NSA" eth1 && dummy_create "$NSA" eth2 || return 1
	veth_create "$NSA" veth0 "$NSB" veth1 || return 1
	MACB=$(ip netns exec "$NSB" cat /sys/class/net/veth1/address)
}

# A process parked in each netns: its /proc/PID/net/dev gives the
# counters of that netns's devices without starting a process per read.
park() {	# NS VAR
	local pid ns
	ip netns exec "$1" sleep 100000 &
	pid=$!
	defer kill "$pid"
	printf -v "$2" '%s' "$pid"
	# until ip(8) has entered the netns, /proc/PID/net is the root one's
	ns=$(ip netns exec "$1" readlink /proc/self/ns/net)
	slowwait 10 in_netns "$pid" "$ns"
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
in_netns() { [ "$(readlink "/proc/$1/ns/net" 2>/dev/null)" = "$2" ]; }

TMP=$(lib_tmpdir)
ktap_setup setup
park "$NSA" PIDA
park "$NSB" PIDB

counter() {	# DEV:tx|veth1:rx: the packet counter behind it
	local dev=${1%:*} dir=${1#*:} pid=$PIDA name rxb rxp f
	[ "$dir" = rx ] && pid=$PIDB
	# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
	while read -r name rxb rxp f f f f f f f txp f; do
		[ "$name" = "$dev:" ] || continue
		[ "$dir" = rx ] && echo "$rxp" || echo "$txp"
		return 0
	done <"/proc/$pid/net/dev"
	echo "no $dev in netns" >&2
	echo -1
}

counters_sum() {	# COUNTERS: the sum of the counters named
	local c sum=0
	for c in $1; do
		sum=$((sum + $(counter "$c")))
	done
	echo "$sum"
}

# refused LOG: print the command or flag the module refused, if any.
refused() {
	sed -n -e 's/.*No such parameter "\([^"]*\)".*/\1/p' \
		-e 's/.*Flag -:\(.*\):- unknown.*/flag \1/p' "$1" | head -n 1
}

# results_ok LOG RC DEVS COUNT: exit 0, every Result line OK, and each
# device's final Result and pkts-sofar show COUNT packets.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
results_ok() {
	local log=$1 rc=$2 devs=$3 count=$4 line cur="" d bad=""
	local -A sofar=() sent=()
	[ "$rc" -eq 0 ] || bad="script exited $rc"
	while IFS= read -r line; do
		case $line in
		"Device: "*) cur=${line#Device: } ;;
		*"ifname: "*) cur=${line##*ifname: } ;;
		*"pkts-sofar: "*)
			line=${line#*pkts-sofar: }
			sofar[$cur]=${line%% *} ;;
		"Result: OK: "*usec,*)
			line=${line#*usec, }
			sent[$cur]=${line%% *} ;;
		"Result: OK:"*) ;;
		*Result:*) bad="${bad:+$bad; }not OK: $line" ;;
		esac
	done <"$log"
	for d in $devs; do
		[ "${sent[$d]:-}" = "$count" ] && [ "${sofar[$d]:-}" = "$count" ] ||
			bad="${bad:+$bad; }$d: Result count '${sent[$d]:-}', pkts-sofar '${sofar[$d]:-}'"
	done
	[ -z "$bad" ] && return 0
	echo "$bad"
	echo "--- output:"
	cat "$log"
	return 1
}

run_case() {	# the fields of one CASES entry
	local name=$1 script=$2 envs=$3 args=$4 devs=$5 total=$6 ctrs=$7
	local log=$TMP/out.log rc=0 c0 c1 why per
	per=$N
	envs=${envs//\$MACB/$MACB} args=${args//\$MACB/$MACB}
	in_ns "$NSA" pg_write pgctrl reset
	c0=$(counters_sum "$ctrs")
	# shellcheck disable=SC2086	# word splitting of ENV and ARGS wanted
	timeout -s INT 60 ip netns exec "$NSA" env $envs \
		"$SAMPLES/$script" $args >"$log" 2>&1 </dev/null || rc=$?
	why=$(refused "$log")
	if [ -n "$why" ]; then
		ktap_skip "$name: runs to Result: OK: on $devs" "module refuses $why"
		ktap_skip "$name: $total packets counted on $ctrs" "module refuses $why"
		return
	fi
	check "$name: runs to Result: OK: with $per packets on $devs" \
		results_ok "$log" "$rc" "$devs" "$per"
	c1=$(counters_sum "$ctrs")
	check "$name: $total packets counted on $ctrs" test $((c1 - c0)) -eq "$total"
}

for c in "${CASES[@]}"; do
	IFS='|' read -r -a f <<<"$c"
	run_case "${f[@]}"
done

# validate_addr6 refuses what upstream's refuses, before touching pktgen
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
addr6_refused() {	# ADDR
	local out rc=0
	out=$(ip netns exec "$NSA" "$SAMPLES/pktgen_sample08_ipv6.sh" -i veth0 \
		-m "$MACB" -d "$1" -n 1 2>&1 </dev/null) || rc=$?
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[ "$rc" -eq 5 ] && grep -q "invalid IPv6 address $1" <<<"$out" ||
		{ echo "exit $rc: $out"; return 1; }
}
check "sample08 -d 1::2::3: refused (exit 5)" addr6_refused 1::2::3
check "sample08 -d fd00:::1: refused (exit 5)" addr6_refused fd00:::1

# the classic rdos script sends to random destinations by default, as
# the original did: on the wire, 200 packets to (nearly) 200 addresses
# of 10.0.0.0/8, not in increasing order
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
rdos_random() {
	local cap=$TMP/rdos.pcap
	in_ns "$NSA" pg_write pgctrl reset
	cap_start "$NSB" veth1 "$cap" || return 1
	ip netns exec "$NSA" env ETH1=veth0 COUNT=200 DST_MAC="$MACB" \
		"$SAMPLES/pktgen.conf-1-1-rdos" >"$TMP/rdos.log" 2>&1 </dev/null ||
		{ cat "$TMP/rdos.log"; return 1; }
	cap_stop
	python3 -S "$LIB_DIR/pcap_check.py" rdos "$cap"
}
check "pktgen.conf-1-1-rdos: random destinations by default (captured)" rdos_random
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "pktgen.conf-1-1-rdos RND=0: in order (Params: no IPDST_RND)" eval '
	in_ns "$NSA" pg_write pgctrl reset
	ip netns exec "$NSA" env ETH1=veth0 COUNT=10 DST_MAC="$MACB" RND=0 \
		"$SAMPLES/pktgen.conf-1-1-rdos" </dev/null >/dev/null 2>&1 &&
	! in_ns "$NSA" pg_read veth0 | grep -q IPDST_RND'

ktap_finish
