# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The body of fuzz-state.sh and stress-state.sh (the stateful fuzzer of
# tests/lib/pgstate.py), sourced after lib.sh with SF_SEED, SF_SECONDS and
# SF_ACTIONS set (STATE_REPLAY=LOG: the actions of LOG instead).  Subtests: module loads, static keys, the fuzzer (no
# hang, every read text, user namespaces refused), the Results of failed
# writes, and afterwards a clean 1000-packet run on a fresh dummy (Result,
# counters, frames captured on the wire).
#
#   netns $NS: d0 (dummy, 4 tx queues), d1 (dummy), ns0 (netdevsim, 4
#              queues, if it loads), v0 -- veth, 4 queues -- v1 (netns
#              $NS2, where pgrx receives)

ktap_header
ktap_plan 7

if ! pg_is_ours; then
	ktap_skip "stateful fuzzer" "ours only: pgrx, ipopt and the review's fixes"
	ktap_finish
fi
if ! pg_load; then
	ktap_fail "module loads"
	ktap_finish
fi
ktap_pass "module loads"
pin_static_keys
t_keys=$SECONDS
_pgw_init
tmp=$(lib_tmpdir)
setup_ns NS
setup_ns NS2
ip -n "$NS" link add d0 numtxqueues 4 type dummy && _dev_prep "$NS" d0
dummy_create "$NS" d1
# 4 queues each way: ethtool -L changes a veth's queue count (5.16+)
ip -n "$NS" link add v0 numtxqueues 4 numrxqueues 4 type veth peer name v1 \
	netns "$NS2" numtxqueues 4 numrxqueues 4 &&
	_dev_prep "$NS" v0 && _dev_prep "$NS2" v1

# netdevsim: the one device here whose queue count ethtool -L changes
nsim=""
if modprobe netdevsim 2>/dev/null && [ -w /sys/bus/netdevsim/new_device ]; then
	ktap_diag "netdevsim loaded"
	id=$((SRANDOM % 30000 + 1000))
	if echo "$id 1 4" >/sys/bus/netdevsim/new_device 2>/dev/null; then
		defer eval "echo $id >/sys/bus/netdevsim/del_device"
		# shellcheck disable=SC2012 # interface names: no odd characters
		nsim_dev() { ls "/sys/bus/netdevsim/devices/netdevsim$id/net/" 2>/dev/null | head -n 1; }
		slowwait 10 test -n "$(nsim_dev)" || :
		n=$(nsim_dev)
		if [ -n "$n" ] && ip link set "$n" netns "$NS" &&
		   ip -n "$NS" link set "$n" name ns0 && _dev_prep "$NS" ns0; then
			nsim=ns0
		fi
	fi
fi

t_devs=$SECONDS
# a pinned XDP program for the xdpgeneric attach/detach events
xdp="" tc=""
BPFDIR=$tmp/bpf
mkdir -p "$BPFDIR"
if mount -t bpf bpf "$BPFDIR" 2>/dev/null; then
	defer umount "$BPFDIR"
	python3 -S "$LIB_DIR/bpfprog.py" xdp-pass "$BPFDIR/xdp" 2>/dev/null && xdp=$BPFDIR/xdp
	python3 -S "$LIB_DIR/bpfprog.py" tc-grow "$BPFDIR/tc" 2>/dev/null && tc=$BPFDIR/tc
fi
ktap_diag "devices: d0 d1 v0${nsim:+ $nsim (netdevsim)}; XDP: ${xdp:-none}; tc: ${tc:-none}"
ktap_diag "setup $SECONDS s (load+keys $t_keys, devices $((t_devs - t_keys)))"

log=$tmp/actions.log
t0=$SECONDS
timeout -k 5 $((SF_SECONDS + 180)) ip netns exec "$NS" python3 -S "$LIB_DIR/pgstate.py" \
	--seed "$SF_SEED" --seconds "$SF_SECONDS" --actions "$SF_ACTIONS" \
	${STATE_REPLAY:+--replay "$STATE_REPLAY"} \
	--log "$log" --ns1 "$NS" --ns2 "$NS2" ${nsim:+--nsim "$nsim"} ${xdp:+--xdp "$xdp"} \
	${tc:+--tc "$tc" --bpfprog "$LIB_DIR/bpfprog.py"} \
	--helper "$PG_WRITE_HELPER" >"$tmp/out" 2>&1
frc=$?
ktap_diag "$(cat "$tmp/out")"
ktap_diag "$((SECONDS - t0)) s"
if [ "$frc" -eq 0 ]; then
	ktap_pass "stateful fuzzer, seed $SF_SEED: no hang, reads text, user namespaces refused"
else
	ktap_fail "stateful fuzzer, seed $SF_SEED (exit $frc; replay: pgstate.py --replay LOG)" \
		"$(tail -n 60 "$log" 2>/dev/null)"
fi
# the action log (replayable) kept in the runner's output dir (vm.sh's)
[ -d "${OUT:-}" ] && cp "$log" "$OUT/statefuzz-${KV:-$(uname -r)}-$SF_SEED.log" 2>/dev/null
check "the fuzzer did actions, writes and events" \
	grep -qE '^figures: actions [1-9][0-9]* writes [1-9][0-9]* events [1-9]' "$tmp/out"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "every failed write left a Result 'ERROR...' (or was EPERM/EACCES)" \
	eval '! grep "^result after a failed write" "$tmp/out"'

# afterwards, on a fresh device: a clean run, counters right, frames on the wire
clean_run() {
	local tx0 tx1 res sum
	ip -n "$NS" link add c0 type dummy && _dev_prep "$NS" c0 || return 1
	_PG_NS=$NS pg_write pgctrl reset || return 1
	# queue_xmit: the frames pass dev_queue_xmit's taps (tcpdump sees them)
	for c in "count 1000" "pkt_size 60" "xmit_mode queue_xmit" "dst 198.18.0.1" \
		 "dst_mac 02:00:00:00:00:01"; do
		[ "$c" = "count 1000" ] && { _PG_NS=$NS pg_set kpktgend_0 "add_device c0" || return 1; }
		_PG_NS=$NS pg_set c0 "$c" || return 1
	done
	tx0=$(ip netns exec "$NS" cat /sys/class/net/c0/statistics/tx_packets)
	cap_start "$NS" c0 "$tmp/clean.pcap" || return 1
	pg_start_ns "$NS" 60 || { echo "start: exit $?"; return 1; }
	cap_stop
	tx1=$(ip netns exec "$NS" cat /sys/class/net/c0/statistics/tx_packets)
	res=$(_PG_NS=$NS pg_result c0)
	sum=$(python3 -S "$PCAP_PY" --summary "$tmp/clean.pcap")
	if [[ "$res" == "OK: "* ]] && [ $((tx1 - tx0)) -eq 1000 ] &&
	   python3 -S -c 'import json,sys; s=json.loads(sys.argv[1]); sys.exit(not (s["frames"] == 1000 and s.get("pktgen") == 1000 and s.get("seq_in_order")))' "$sum"; then
		return 0
	fi
	echo "Result '$res', c0 sent $((tx1 - tx0)); capture: $sum"
	return 1
}
t0=$SECONDS
check "afterwards: reset and a clean 1000-packet run (counters, 1000 frames captured)" clean_run

files_ok() {
	local want have
	want=$( { printf "%s\n" pgctrl c0; ip netns exec "$NS" ls "$PG_PROC" | grep '^kpktgend_'; pg_own_files; } | sort)
	have=$(ip netns exec "$NS" ls "$PG_PROC" | sort)
	[ "$want" = "$have" ] && return 0
	echo "files:"
	ip netns exec "$NS" ls -b "$PG_PROC"
	return 1
}
ktap_diag "clean run: $((SECONDS - t0)) s"
check "afterwards: only pgctrl, the threads, c0 (and ours) in the proc dir" files_ok

ktap_finish
