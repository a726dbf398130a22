#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The receiver's clock: "clock software|hardware [OFFSET_NS]", its
# errors, and which clock each stream's latency samples had.  No NIC
# here stamps received packets (QEMU's e1000e and virtio-net do not), so
# the hardware path runs on stamps that tests/kmod/pg_hwstamp_sim.ko
# writes at veth1's ingress, ahead of pgrx's hook, as a NIC's driver
# would before the stack: CLOCK_REALTIME + offset_ns on every Nth IPv4
# packet.  An offset of 3 s tells the two clocks apart: a sample timed
# by the device's stamp is 3 s longer.
#
#   netns TX                                netns RX
#   +---------------------------+           +-----------------------------+
#   | pktgen device "veth0"     |   veth    | veth1 <- pg_hwstamp_sim     |
#   |   flag NS_TIMESTAMP       |<--------->|       <- pgrx "rx veth1"    |
#   +---------------------------+           +-----------------------------+

. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/rx-lib.sh"

N=2000 SIZE=60 IPA=10.97.0.1 IPB=10.97.0.2
SIM_KO=$(cd "$(dirname "$0")/.." && pwd)/build/${KV:-$(uname -r)}/kmod/pg_hwstamp_sim.ko
OFF=3000000000		# the simulated device clock's lead, ns
SEC=1000000000

setup() {
	[ -f "$SIM_KO" ] || { echo "no $SIM_KO (tests/lib/build-all.sh builds it)"; return 1; }
	sim_unload
	pg_load && rx_pair_setup "$IPA" "$IPB" "count $N" "pkt_size $SIZE" "flag NS_TIMESTAMP" &&
		rx_cmd "$RX" "rx veth1" && rx_cmd "$RX" "display script"
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
{
# sim_load PARAM=VALUE...: the simulated stamps on RX's veth1
sim_load() {
	sim_unload && ip netns exec "$RX" insmod "$SIM_KO" ifname=veth1 "$@" &&
		defer sim_unload
}
sim_unload() {
	[ -e /sys/module/pg_hwstamp_sim ] || return 0
	rmmod pg_hwstamp_sim
}
sim_stamped() { [ "$(cat /sys/module/pg_hwstamp_sim/parameters/stamped)" -eq "$1" ]; }

# run: a fresh table, N packets, the figures into RX_TEXT
run() { rx_cmd "$RX" rx_reset && tx_run "$TX" && rx_snap "$RX"; }

offset_shown() {
	rx_cmd "$RX" "clock hardware -37000000000" && rx_snap "$RX" &&
		rx_expect clock hardware clock_offset_ns -37000000000
}

# under_1s KEY...: 0 <= each < 1 s (a software-timed latency here)
under_1s() {
	local k
	for k in "$@"; do rx_between "$k" 0 $((SEC - 1)) || return 1; done
}
# plus_off KEY...: each within 1 s above the simulated lead
plus_off() {
	local k
	for k in "$@"; do rx_between "$k" "$OFF" $((OFF + SEC - 1)) || return 1; done
}

no_stamps() {
	run && rx_expect latency_samples "$N" latency_hw_stamped 0 s0_latency_clock software \
		latency_negative 0 && under_1s latency_max_ns
}
all_hw() {
	run && rx_expect latency_samples "$N" latency_hw_stamped "$N" \
		s0_latency_clock hardware && plus_off latency_min_ns latency_max_ns
}
offset_back() {
	run && rx_expect latency_hw_stamped "$N" s0_latency_clock hardware latency_negative 0 &&
		under_1s latency_min_ns latency_max_ns
}
ignored() {
	run && rx_expect latency_samples "$N" latency_hw_stamped 0 s0_latency_clock software &&
		under_1s latency_max_ns
}
mixed() {
	rx_cmd "$RX" "clock hardware" && run &&
		rx_expect latency_samples "$N" latency_hw_stamped $((N / 2)) \
			s0_latency_hw_stamped $((N / 2)) s0_latency_clock mixed &&
		under_1s latency_min_ns && plus_off latency_max_ns
}
json_clock() {
	rxj_cmd "$RX" "display json" &&
		ip netns exec "$RX" /usr/bin/python3 -S - $((N / 2)) <<-'PY'
		import json, sys
		half = int(sys.argv[1])
		d = json.load(open("/proc/net/pktgen/pgrx"))
		s = d["streams"][0]
		got = (d["clock"], d["clock_offset_ns"], s["latency_clock"],
		       s["latency_hw_stamped"], d["total"]["latency_hw_stamped"])
		if got != ("hardware", 0, "mixed", half, half):
		    sys.exit("got %r" % (got,))
		PY
}
human_clock() {
	rx_cmd "$RX" "display human" &&
		in_ns "$RX" pg_read pgrx | grep -q "copies: 1  clock: hardware$" &&
		rx_cmd "$RX" "display script"
}
dev_gone() {
	ip -n "$RX" link del veth1 && sim_unload && rx_snap "$RX" && rx_expect devices ""
}
}

rx_begin 21

# 1. the command and its errors; the default
rx_snap "$RX"
check "default: clock software, offset 0" rx_expect clock software clock_offset_ns 0
check "clock bogus: EINVAL" rx_errno "$RX" "clock bogus" 22 \
	'^ERROR: clock takes software, or hardware \[OFFSET_NS\]'
check "clock (no word): EINVAL" rx_errno "$RX" "clock" 22 '^ERROR: clock takes'
check "clock software 5: EINVAL" rx_errno "$RX" "clock software 5" 22 '^ERROR: clock takes'
check "clock hardware 12x: EINVAL" rx_errno "$RX" "clock hardware 12x" 22 '^ERROR: clock takes'
check "clock hardware 2^40: EINVAL (|offset| < 2^40 ns)" \
	rx_errno "$RX" "clock hardware 1099511627776" 22 '^ERROR: clock takes'
check "clock hardware -37000000000: OK, in the header" offset_shown

# 2. hardware asked for, no stamps: every sample falls back to the software clock
check "clock hardware (no offset)" rx_cmd "$RX" "clock hardware"
check "no device stamps: $N samples, all on the software clock" no_stamps

# 3. every packet stamped by the "device" 3 s ahead: the samples are its
check "pg_hwstamp_sim on veth1, offset_ns=$OFF" sim_load offset_ns=$OFF every=1
check "all $N samples hardware-timed, 3 s <= latency < 4 s" all_hw
check "the module stamped exactly the $N packets" sim_stamped "$N"

# 4. the offset brings the device's clock back to the sender's
check "clock hardware -$OFF" rx_cmd "$RX" "clock hardware -$OFF"
check "offset applied: $N hardware samples, 0 <= latency < 1 s, none negative" offset_back

# 5. clock software ignores the stamps the packets carry
check "clock software" rx_cmd "$RX" "clock software"
check "software: the device's stamps unused, latency < 1 s" ignored

# 6. every other packet stamped: a mixed stream, counted exactly
check "pg_hwstamp_sim every=2" sim_load offset_ns=$OFF every=2
check "mixed: $((N / 2)) of $N samples hardware-timed; min < 1 s, max >= 3 s" mixed
check "display json: clock, clock_offset_ns, the stream's latency_clock and count" json_clock
check "display human: the header names the clock" human_clock

# 7. the device goes while stamped and received on: both let go of it
check "veth1 deleted under the stamps and the receiver: no hang, modules unload" dev_gone

ktap_finish
