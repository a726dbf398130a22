#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multiqueue, NUMA and IRQ aware: the threads of the CPUs of DEV's NUMA
# node, thread i (CPU cpu_i) driving "$DEV@cpu_i" on TX queue i
# (queue_map_min = queue_map_max = i, and QUEUE_MAP_CPU: the queue of the
# sending CPU), and the IRQ of queue i bound to that CPU
# (/proc/irq/N/smp_affinity_list), 1:1; random UDP source port 9-109.
#   ./pktgen_sample06_numa_awared_queue_irq_affinity.sh -i eth1 -t 2 -m 00:11:22:33:44:55
# -f offsets into the node's CPUs; -n is per thread (default 20000000).
# The IRQs: functions.sh's get_iface_irqs (TxRx vectors; virtio_net's
# virtioN-output.Q).
. "$(dirname "$0")/functions.sh"
. "$(dirname "$0")/parameters.sh"

[ -z "${BURST:-}" ] || warn "burst (-b) is not used by this sample: ignored"
: "${CLONE_SKB:=0}"
: "${COUNT:=20000000}"

node=$(get_iface_node "$DEV")
read -ra irq_array <<<"$(get_iface_irqs "$DEV")"
mapfile -t cpu_array < <(get_node_cpus "$node")
# shellcheck disable=SC2015 # the || branch is meant for a failure of either
[ "$THREADS" -le ${#irq_array[@]} ] && [ "$THREADS" -le ${#cpu_array[@]} ] ||
	err 1 "Thread number $THREADS exceeds: min (${#irq_array[@]},${#cpu_array[@]})"

default_dest 198.18.0.42 FD00::1
: "${DST_MAC:=90:e2:ba:ff:ff:ff}"
setup_dest

[ -n "${APPEND:-}" ] || pg_ctrl reset
devs=()
for ((i = 0; i < THREADS; i++)); do
	thread=${cpu_array[i + F_THREAD]}
	[ -n "$thread" ] || err 1 "no CPU $((i + F_THREAD)) in node $node"
	dev=$DEV@$thread
	echo "$thread" >"/proc/irq/${irq_array[i]}/smp_affinity_list" ||
		err 1 "cannot bind IRQ ${irq_array[i]} to CPU $thread"
	read -r aff <"/proc/irq/${irq_array[i]}/smp_affinity_list"
	info "irq ${irq_array[i]} is set affinity to $aff"

	[ -n "${APPEND:-}" ] || pg_thread "$thread" rem_device_all
	pg_thread "$thread" "add_device $dev"
	devs+=("$dev")

	# queue i for thread i; QUEUE_MAP_CPU picks the CPU's own queue
	info "queue number is $i"
	pg_set "$dev" "queue_map_min $i"
	pg_set "$dev" "queue_map_max $i"
	pg_set "$dev" "flag QUEUE_MAP_CPU"
	base_config "$dev"
	udp_src_range "$dev"
done
run_devs "${devs[@]}"
