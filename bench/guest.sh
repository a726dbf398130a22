#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark, inside the VM (as root): the kernel's own pktgen.ko (modprobe
# from the guest's /lib/modules) against ours ($PKTGEN_KO), alternately, in
# one guest.  Started by bench/run.sh (through tests/lib/vm.sh and
# bench/vm-entry.sh), by tests/bench-smoke.sh, or by hand in a guest:
#
#	bench/guest.sh [--quick] [--runs N] [--secs S] [--cells 'GLOB...']
#		[--baseline REV DIR] [--out DIR] [--list] [--no-floor]
#		[--floor-burst N] [--no-afpacket]
#
# --baseline: instead of the stock module, ours as built from revision REV
# (DIR/KV/pktgen.ko, built by bench/run.sh): what a change bought, measured
# in one VM as the stock comparison is.
#
# A cell is DEV/MODE/SIZE/THREADS (e.g. dummy/xmit/64/1t); --cells keeps
# the cells matching one of the globs (default: all 90).  The virtio and
# e1000e cells need the NIC pairs of a check VM (tests/lib/vm.sh); where a
# pair is absent its cells are left out, said on stderr.  Cells are grouped (device and
# thread count, and the rate cells); for each of the N passes of a group
# both modules run every cell of the group once, stock first in odd
# passes and ours first in even ones (ABBA), so a change in host load
# hits both alike.  Each run is count 0, stopped after S seconds by
# `stop` (see start_timed).
#
# The floor: in every 1t cell whose mode reaches the driver's start_xmit
# unpaced (xmit, xmit_clone100000, xmit_burst32, xmit_flows1024 and the
# *_nostamp ones), a third "module", bench/floor/pg_floor.ko ($FLOOR_KO;
# build/KV/floor/ next to $PKTGEN_KO by default): one prebuilt frame of
# the cell's device and size handed straight to start_xmit in bursts of
# 32, the same S seconds; the three rotate (floor stock ours, ours stock
# floor, stock ours floor, ...: every order position for each over six
# passes).  --no-floor leaves it out; --floor-burst N sets its burst.
#
# AF_PACKET: in the DEV/xmit/SIZE/1t cells, user space's fastest send
# joins the rotation too, as module "afpacket": bench/afp_send.c
# (build/helpers/afp_send), one prebuilt frame of the cell's size on a
# PACKET_QDISC_BYPASS socket (the driver's start_xmit, as pktgen's xmit
# mode) in sendmmsg(2) batches of 32, the same S seconds.
# --no-afpacket leaves it out.
#
# Writes DIR/runs.csv (one line per run and module) and DIR/meta.txt, then
# prints the Markdown table of bench/report.py.  Exit 0 if every run
# produced a Result (a mode a module refuses is reported, not an error).
. "$(dirname "$0")/../tests/lib/lib.sh"

# sleep without a fork (~0.1-0.5 s each under TCG); lib.sh's slowwait
# polls with it too.  The pipe is never written: read -t just times out.
exec {SLEEP_FD}<> <(:)
sleep() { read -r -t "$1" -u "$SLEEP_FD" _ || :; }

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
RUNS=5 SECS=1 CELLS="*" OUTDIR="" LIST=0 BASE_REV="" BASE_KO="" FLOOR=1 AFP=1
AFP_SEND=${AFP_SEND:-$BENCH_DIR/../build/helpers/afp_send}
FLOOR_KO=${FLOOR_KO:-$(dirname "${PKTGEN_KO:-.}")/floor/pg_floor.ko}
FLOOR_BURST=32		# the floor's burst, on every device (fresh clones on veth)
DST=198.18.0.1 DST_MAC=02:00:00:00:00:01
RATE_MBPS=100		# the `rate` cell: Mb/s of 1500-byte frames

usage() {
	sed -n '/^#	bench/,/^#		\[--floor-burst/p' "$0" | sed 's/^#//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--quick) RUNS=1 SECS=0.5 ;;
	--runs) RUNS=$2; shift ;;
	--secs) SECS=$2; shift ;;
	--cells) CELLS=$2; shift ;;
	--baseline) BASE_REV=$2 BASE_KO=$3/$(uname -r)/pktgen.ko; shift 2 ;;
	--out) OUTDIR=$2; shift ;;
	--list) LIST=1 ;;
	--no-floor) FLOOR=0 ;;
	--floor-burst) FLOOR_BURST=$2; shift ;;
	--no-afpacket) AFP=0 ;;
	*) usage ;;
	esac
	shift
done

# ---------------------------------------------------------------- cells
# The modes: xmit_mode, clone_skb and burst of each; the modes per device.
declare -A MODE_XM=(
	[xmit]=start_xmit [xmit_clone100000]=start_xmit [xmit_burst32]=start_xmit
	[xmit_flows1024]=start_xmit
	[xmit_clone100000_nostamp]=start_xmit [xmit_burst32_nostamp]=start_xmit
	[netif_receive]=netif_receive [netif_receive_burst32]=netif_receive
	[queue_xmit]=queue_xmit)
declare -A MODE_CLONE=([xmit_clone100000]=100000 [xmit_clone100000_nostamp]=100000)
declare -A MODE_BURST=([xmit_burst32]=32 [netif_receive_burst32]=32 [xmit_burst32_nostamp]=32)
# *_nostamp: the same with flag NO_TIMESTAMP, what stamping every copy as
# it goes costs (stock stamps a packet once, when it is built); dummy's
# only, and only when a --cells glob names them ('dummy/*_nostamp/64/1t')
MODES_dummy_nostamp="xmit_clone100000_nostamp xmit_burst32_nostamp"
# veth has no IFF_TX_SKB_SHARING: no clone_skb, no start_xmit burst.
# (MODES_<dev> are read through group_cells' nameref.)
# shellcheck disable=SC2034
MODES_dummy="xmit xmit_clone100000 xmit_burst32 netif_receive
	netif_receive_burst32 queue_xmit xmit_flows1024"
# shellcheck disable=SC2034
MODES_veth="xmit netif_receive netif_receive_burst32 queue_xmit xmit_flows1024"
# Two threads on two devices (dummy0, dummy1: dummy2) and on the two
# transmit queues of one (dummymq0, each thread one queue by
# queue_map_min/max: dummymq), against dummy's 1t cells; the modes that
# reach the driver
# shellcheck disable=SC2034
MODES_dummy2="xmit xmit_clone100000 xmit_burst32 queue_xmit"
# shellcheck disable=SC2034
MODES_dummymq=$MODES_dummy2
# Real NICs: what reaches the driver; netif_receive never does (it is
# dummy's cell whatever the device)
MODES_virtio="xmit xmit_clone100000 xmit_burst32 queue_xmit xmit_flows1024"
# shellcheck disable=SC2034
MODES_e1000e=$MODES_virtio
# xmit_flows1024, the traffic users send: 1024 concurrent flows (a flow
# keeps its destination for FLOWLEN packets, as upstream's "flows" and
# "flowlen": only the destination address is per flow, so it needs a
# range of 1024 addresses), random destinations (IPDST_RND, as upstream's
# pktgen.conf-1-1-flows) and random UDP source ports (UDPSRC_RND, which
# needs udp_src_min < udp_src_max to do anything), clone_skb 0.
FLOWS=1024 FLOWLEN=10
FLOW_DST_MIN=198.18.0.0 FLOW_DST_MAX=198.18.3.255
FLOW_SPORT_MIN=1024 FLOW_SPORT_MAX=65535
SIZES="64 1500"

# group_cells GROUP: the cells of GROUP, one "DEV/MODE/SIZE/THREADS" a line.
# The rate cells are dummy/xmit with pacing: ratepN (pps), ratep50pct (half
# the slower module's unpaced median of dummy/xmit/64/1t), rateNM (Mb/s).
group_cells() {
	local dev=${1%-*} t=${1#*-} m s
	if [ "$1" = rate ]; then
		printf '%s\n' dummy/ratep10000/64/1t dummy/ratep100000/64/1t \
			dummy/ratep50pct/64/1t "dummy/rate${RATE_MBPS}M/1500/1t"
		return
	fi
	if [ "$1" = veth-rate ]; then	# paced over veth, gaps captured
		printf '%s\n' veth/ratep10000/64/1t veth/ratep100000/64/1t
		return
	fi
	local -n modes=MODES_$dev
	local list=$modes
	[ "$dev" = dummy ] && [[ $CELLS = *nostamp* ]] && list+=" $MODES_dummy_nostamp"
	for m in $list; do
		for s in $SIZES; do
			echo "$dev/$m/$s/$t"
		done
	done
}

GROUPS_ALL="dummy-1t rate veth-rate veth-1t virtio-1t e1000e-1t dummy-2t veth-2t dummy2-2t
	dummymq-2t"

selected() {	# CELL: matches one of the --cells globs
	local g globs
	read -ra globs <<<"$CELLS"	# no pathname expansion
	for g in "${globs[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == $g ]] && return 0
	done
	return 1
}

# ---------------------------------------------------------------- setup
NS="" PEER_NS=""
# the interface of a cell's DEV in $NS, and the MAC its frames go to
# (dummy2: thread i's is dummy<i>)
declare -A IFNAME=([dummy]=dummy0 [veth]=veth0 [dummy2]=dummy0 [dummymq]=dummymq0)
declare -A PEER_MAC=([dummy]=$DST_MAC [veth]=$DST_MAC [dummy2]=$DST_MAC [dummymq]=$DST_MAC)
setup_net() {
	setup_ns NS PEER_NS || return 1
	dummy_create "$NS" dummy0 && dummy_create "$NS" dummy1 || return 1
	ip -n "$NS" link add dummymq0 numtxqueues 2 type dummy &&
		_dev_prep "$NS" dummymq0 || return 1
	veth_create "$NS" veth0 "$PEER_NS" veth1 || return 1
	# the peer takes the frames as its own and drops them in IP (no route)
	ip -n "$PEER_NS" link set veth1 address "$DST_MAC"
}

# The NIC pairs of a check VM, by the MACs tests/lib/vm.sh gives them
# (52:54:00:00:P:0N; P 01 virtio-net, 02 e1000e, each pair on a QEMU hub).
declare -A NIC_PAIR=([virtio]=01 [e1000e]=02)

nic_by_mac() {	# MAC: the interface of the initial netns with that MAC
	local d mac
	for d in /sys/class/net/*; do
		read -r mac <"$d/address" 2>/dev/null && [ "$mac" = "$1" ] &&
			{ echo "${d##*/}"; return 0; }
	done
	return 1
}

carrier_up() { [ "$(ip netns exec "$1" cat "/sys/class/net/$2/carrier")" = 1 ]; }

# setup_nic DEV: NIC 1 of DEV's pair into $NS to send, NIC 2 into $PEER_NS,
# up; the frames go to NIC 2's MAC, so the peer takes them as its own and
# drops them in IP, as veth1 does: the same work per frame as the veth
# cells on the receiving side, in the same guest.  Only when a cell of
# DEV is selected: bench-smoke's VM keeps its NICs where nic-drivers.sh
# looks for them, and spends no time on them.
setup_nic() {
	local p=${NIC_PAIR[$1]} tx rx
	[ -z "${IFNAME[$1]:-}" ] || return 0
	if ! tx=$(nic_by_mac "52:54:00:00:$p:01") ||
	   ! rx=$(nic_by_mac "52:54:00:00:$p:02"); then
		echo "# bench: no $1 pair (52:54:00:00:$p:0N): its cells left out" >&2
		return 1
	fi
	if ! { ip link set "$tx" netns "$NS" && ip link set "$rx" netns "$PEER_NS" &&
	       _dev_prep "$NS" "$tx" && _dev_prep "$PEER_NS" "$rx" &&
	       slowwait 15 carrier_up "$NS" "$tx" &&
	       slowwait 15 carrier_up "$PEER_NS" "$rx"; }; then
		echo "# bench: $1 pair ($tx, $rx) not up" >&2
		return 1
	fi
	IFNAME[$1]=$tx PEER_MAC[$1]=52:54:00:00:$p:02
	echo "# bench: $1: $tx ($(ip netns exec "$NS" readlink "/sys/class/net/$tx/device/driver" |
		sed 's|.*/||'), qdisc $(tc -n "$NS" qdisc show dev "$tx" | head -n 1 |
		cut -d' ' -f2)) -> $rx in the peer netns"
}

# load MODULE: stock (modprobe) or ours (insmod $PKTGEN_KO), checked by
# the taint flags: ours is out of tree ("O"), the stock module is not.
load() {
	local taint=""
	if [ "$1" = stock ] && [ -n "$BASE_KO" ]; then
		PKTGEN_MODULE=ours PKTGEN_KO=$BASE_KO pg_load
		return
	fi
	PKTGEN_MODULE=$1 pg_load || return 1
	read -r taint </sys/module/pktgen/taint
	case $1:$taint in
	stock:*O*) echo "# bench: modprobe pktgen loaded an out-of-tree module" \
		"($(modinfo -n pktgen)): install ours elsewhere" >&2; return 1 ;;
	ours:*O*|stock:*) ;;
	*) echo "# bench: $PKTGEN_KO is not out of tree?" >&2; return 1 ;;
	esac
}

# ---------------------------------------------------------------- one run
# A group's devices are added once per module load; a cell then writes
# only the settings that differ from what the device has (CUR), lowering
# clone_skb and burst before xmit_mode, which refuses them in some modes.
RUN_DEVS=()
declare -A CUR=()

pgs() {	# DEV CMD: configure in $NS; the module's Result on failure
	in_ns "$NS" pg_set "$1" "$2" >"$TMP/err" && return 0
	ERR=$(<"$TMP/err")
	return 1
}

pgs_cached() {	# DEV KEY VALUE: "KEY VALUE" unless the device has it
	[ "${CUR[$1 $2]:-}" = "$3" ] && return 0
	pgs "$1" "$2 $3" || return 1
	CUR[$1 $2]=$3
}

add_devices() {	# GROUP: dev@i on kpktgend_i for its threads
	local kind=${1%-*} t=${1#*-} i d mac dev
	[ "$1" = rate ] && kind=dummy t=1t
	[ "$1" = veth-rate ] && kind=veth t=1t
	mac=${PEER_MAC[$kind]} dev=${IFNAME[$kind]}
	RUN_DEVS=() CUR=()
	for ((i = 0; i < ${t%t}; i++)); do
		d=$dev@$i
		[ "$kind" = dummy2 ] && d=dummy$i@$i
		pgs "kpktgend_$i" "add_device $d" && pgs "$d" "count 0" &&
			pgs "$d" "dst $DST" && pgs "$d" "dst_mac $mac" || return 1
		if [ "$kind" = dummymq ]; then
			pgs "$d" "queue_map_min $i" && pgs "$d" "queue_map_max $i" || return 1
		fi
		CUR[$d xmit_mode]=start_xmit CUR[$d clone_skb]=0 CUR[$d burst]=1
		CUR[$d flows]=0
		RUN_DEVS+=("$d")
	done
}

# configure CELL REQ: every device of the run; REQ is the requested pps or
# Mb/s of a rate cell.
configure() {
	local mode size d clone burst
	IFS=/ read -r _ mode size _ <<<"$1"
	clone=${MODE_CLONE[$mode]:-0} burst=${MODE_BURST[$mode]:-1}
	for d in "${RUN_DEVS[@]}"; do
		if [ "${CUR[$d clone_skb]}" != "$clone" ]; then
			pgs_cached "$d" clone_skb 0 || return 1
		fi
		if [ "${CUR[$d burst]}" != "$burst" ]; then
			pgs_cached "$d" burst 1 || return 1
		fi
		pgs_cached "$d" xmit_mode "${MODE_XM[$mode]:-start_xmit}" &&
			pgs_cached "$d" pkt_size $((size - 4)) &&
			pgs_cached "$d" clone_skb "$clone" &&
			pgs_cached "$d" burst "$burst" &&
			set_flows "$d" "$mode" && set_stamp "$d" "$mode" || return 1
		case $mode in
		ratep*) pgs "$d" "ratep $2" || return 1 ;;
		rate*) pgs "$d" "rate $2" || return 1 ;;
		esac
	done
}

# set_stamp DEV MODE: flag NO_TIMESTAMP on DEV for the *_nostamp modes,
# off again after them
set_stamp() {
	local want=0
	[[ $2 = *_nostamp ]] && want=1
	[ "${CUR[$1 nostamp]:-0}" = "$want" ] && return 0
	CUR[$1 nostamp]=$want
	if [ "$want" = 1 ]; then
		pgs "$1" "flag NO_TIMESTAMP"
	else
		pgs "$1" "flag !NO_TIMESTAMP"
	fi
}

# set_flows DEV MODE: the flow settings of xmit_flows1024 on DEV, or
# their undo after it (only then: the other cells write nothing more)
set_flows() {
	local c cmds
	if [ "$2" = xmit_flows1024 ]; then
		[ "${CUR[$1 flows]}" = "$FLOWS" ] && return 0
		cmds=("flows $FLOWS" "flowlen $FLOWLEN" "dst_min $FLOW_DST_MIN"
		      "dst_max $FLOW_DST_MAX" "udp_src_min $FLOW_SPORT_MIN"
		      "udp_src_max $FLOW_SPORT_MAX" "flag IPDST_RND" "flag UDPSRC_RND")
		CUR[$1 flows]=$FLOWS
	else
		[ "${CUR[$1 flows]}" = 0 ] && return 0
		cmds=("flows 0" "flag !IPDST_RND" "flag !UDPSRC_RND" "dst_min $DST"
		      "dst_max $DST" "udp_src_min 9" "udp_src_max 9")
		CUR[$1 flows]=0
	fi
	for c in "${cmds[@]}"; do
		pgs "$1" "$c" || return 1
	done
}

# start_timed: `start` in the background; once every device runs, $SECS
# seconds, then `stop`, and wait for every device's Result.  Not a timed
# signal to the writer of `start`: the stock module's start returns at
# once when its threads take more than 125 ms to notice it (TCG on a busy
# host), and a stop that comes before the thread started the device is
# lost (the device then runs on, count 0, after the stop).
start_timed() {
	local d pid rc=0
	start_writer &
	pid=$!
	if slowwait 15 all_running; then
		sleep "$SECS"
	else
		ERR="devices not running 15 s after start" rc=1
	fi
	in_ns "$NS" pg_write pgctrl stop
	wait "$pid"
	[ "$rc" -eq 0 ] || return 1
	for d in "${RUN_DEVS[@]}"; do
		slowwait 15 result_ok "$d" || { ERR="no Result for $d"; return 1; }
	done
}

start_writer() {	# blocking `start`, bounded like pg_start_ns
	local t=$((${SECS%.*} + 60))
	if [ -x "${PG_WRITE_HELPER:-}" ]; then
		timeout -k 5 -s INT "$t" "$PG_WRITE_HELPER" -n "/run/netns/$NS" \
			"$PG_PROC/pgctrl" <<<start
	else
		timeout -k 5 -s INT "$t" ip netns exec "$NS" \
			sh -c "echo start >$PG_PROC/pgctrl"
	fi
}

all_running() {	# every device of the run on its thread's "Running:" line
	local d _PG_NS=$NS _PG_TEXT
	for d in "${RUN_DEVS[@]}"; do
		_pg_read_var "kpktgend_${d##*@}" || return 1
		[[ ${_PG_TEXT%%$'\n'*} == *" $d "* ]] || return 1
	done
}

RESULT=""
result_ok() {	# DEV: its Result is final (OK: ...); text in $RESULT
	local _PG_NS=$NS _PG_TEXT
	_pg_result_var "$1" || return 1
	RESULT=$_PG_TEXT
	[[ $RESULT =~ ^OK:\ [0-9]+\(c ]]	# not a command's "OK: ..."
}

# measure: sum the Results of the run's devices into M_* (pps, bps, sofar,
# errors; usec is the longest device's).
measure() {
	local d re='^OK: ([0-9]+)\(.*usec, ([0-9]+) .*[^0-9]([0-9]+)pps [0-9]+Mb/sec \(([0-9]+)bps\) errors: ([0-9]+)'
	M_PPS=0 M_BPS=0 M_SOFAR=0 M_ERR=0 M_USEC=0
	for d in "${RUN_DEVS[@]}"; do
		result_ok "$d" || return 1
		if ! [[ ${RESULT//$'\n'/ } =~ $re ]]; then
			ERR="unparsed Result of $d: $RESULT"
			return 1
		fi
		[ "${BASH_REMATCH[1]}" -gt "$M_USEC" ] && M_USEC=${BASH_REMATCH[1]}
		M_SOFAR=$((M_SOFAR + BASH_REMATCH[2]))
		M_PPS=$((M_PPS + BASH_REMATCH[3]))
		M_BPS=$((M_BPS + BASH_REMATCH[4]))
		M_ERR=$((M_ERR + BASH_REMATCH[5]))
	done
	return 0
}

# timed_run CELL: start_timed; for a paced veth cell with a capture on the
# peer (nanosecond timestamps, taken as veth hands the frame over), whose
# gaps (bench/gaps.py) go into M_GAPS: samples,avg_ns,stddev_ns.  Both
# modules are measured alike: the stock one has no receiver of its own.
timed_run() {
	local pcap=$TMP/gaps.pcap
	case $1 in
	veth/rate*) ;;
	*) start_timed; return ;;
	esac
	rm -f "$pcap"
	CAP_SNAPLEN=64 CAP_EXTRA="--time-stamp-precision=nano" \
		cap_start "$PEER_NS" veth1 "$pcap" || { ERR="tcpdump did not start"; return 1; }
	start_timed || { cap_stop 2>/dev/null; return 1; }
	cap_stop 2>/dev/null
	M_GAPS=$(python3 -S "$BENCH_DIR/gaps.py" "$pcap") || {
		ERR="unreadable capture" M_GAPS=",,"
		return 1
	}
	M_GAPS=${M_GAPS// /,}
}

# run_cell CELL MODULE PASS: one run, one line of runs.csv (status ok, or
# refused/failed with the reason).
run_cell() {
	local cell=$1 req="" st=ok m t0=${EPOCHREALTIME/./}
	IFS=/ read -r _ m _ _ <<<"$cell"
	case $m in
	ratep50pct) req=$HALF_PPS ;;
	ratep*) req=${m#ratep} ;;
	rate*) req=${m#rate}; req=${req%M} ;;
	esac
	ERR="" M_PPS="" M_BPS="" M_SOFAR="" M_ERR="" M_USEC="" M_GAPS=",,"
	if [ "$req" = none ]; then
		st=skipped ERR="no unpaced dummy/xmit/64/1t median"
	elif ! configure "$cell" "$req"; then
		st=refused
	elif ! timed_run "$cell" || ! measure; then
		st=failed
	fi
	ERR=${ERR//$'\n'/ }
	printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,"%s",%s\n' "$cell" "$2" "$3" \
		"$req" "$M_PPS" "$M_BPS" "$M_SOFAR" "$M_ERR" "$M_USEC" "$st" \
		"${ERR//\"/\'}" "$M_GAPS" >>"$CSV"
	t0=$(( (${EPOCHREALTIME/./} - t0) / 100000 ))
	printf '# %-32s %-5s pass %d: %s (%d.%ds)\n' "$cell" "$2" "$3" \
		"${M_PPS:+$M_PPS pps}${ERR:+ $st: $ERR}" $((t0 / 10)) $((t0 % 10))
	[ "$st" != failed ]
}

# ---------------------------------------------------------------- the floor
# has_floor CELL: a 1t cell whose mode reaches start_xmit unpaced
has_floor() {
	local dev mode t
	IFS=/ read -r dev mode _ t <<<"$1"
	[ "$t" = 1t ] && [ "${MODE_XM[$mode]:-}" = start_xmit ] && [ -n "${IFNAME[$dev]:-}" ]
}

floor_load() {
	[ -e /sys/module/pg_floor/initstate ] && return 0
	insmod "$FLOOR_KO" || { ERR="insmod $FLOOR_KO failed"; return 1; }
}

floor_unload() {
	[ -e /sys/module/pg_floor/initstate ] || return 0
	rmmod pg_floor || { echo "# bench: rmmod pg_floor failed" >&2; return 1; }
}

# run_floor CELL PASS: one floor run of CELL's device and size, $SECS
# seconds, one line of runs.csv (module floor; pps, packets, errors and
# usec from /proc/net/pg_floor's "pps N packets N ns N" and the line after)
run_floor() {
	local dev size st=ok out t0=${EPOCHREALTIME/./}
	local re='^pps ([0-9]+) packets ([0-9]+) ns ([0-9]+) .* errors ([0-9]+) '
	# shellcheck disable=SC2016 # the inner shell's $1
	local wr='echo "$1" >/proc/net/pg_floor'
	IFS=/ read -r dev _ size _ <<<"$1"
	ERR="" M_PPS="" M_BPS="" M_SOFAR="" M_ERR="" M_USEC=""
	if ! floor_load; then
		st=failed
	elif ! out=$(ip netns exec "$NS" sh -c "$wr" sh \
		"${IFNAME[$dev]} $((size - 4)) $SECS burst $FLOOR_BURST dst_mac ${PEER_MAC[$dev]} dst $DST" 2>&1); then
		st=failed ERR="write: $out"
	elif ! out=$(ip netns exec "$NS" cat /proc/net/pg_floor) ||
	     ! [[ ${out//$'\n'/ } =~ $re ]]; then
		st=failed ERR="unparsed result: $out"
	else
		peer_figures "$size"
		ERR=$(sed -n '2{s/^dev [^ ]* //;p}' <<<"$out")	# size, burst, send
	fi
	peer_row "$1" floor "$2" "$st" "$t0"
}

# peer_figures SIZE: M_* of a run of the floor or afp_send, from
# BASH_REMATCH's pps, packets, ns and errors
peer_figures() {
	M_PPS=${BASH_REMATCH[1]} M_SOFAR=${BASH_REMATCH[2]}
	M_USEC=$((BASH_REMATCH[3] / 1000)) M_ERR=${BASH_REMATCH[4]}
	M_BPS=$((M_PPS * ($1 - 4) * 8))
}

# peer_row CELL MODULE PASS STATUS T0: the run's line of runs.csv and of
# the log (T0: its start, EPOCHREALTIME without the dot); 0 if ok
peer_row() {
	local t
	ERR=${ERR//$'\n'/ }
	printf '%s,%s,%s,,%s,%s,%s,%s,%s,%s,"%s",,,\n' "$1" "$2" "$3" "$M_PPS" "$M_BPS" \
		"$M_SOFAR" "$M_ERR" "$M_USEC" "$4" "${ERR//\"/\'}" >>"$CSV"
	t=$(( (${EPOCHREALTIME/./} - $5) / 100000 ))
	printf '# %-32s %-5s pass %d: %s (%d.%ds)\n' "$1" "${2:0:5}" "$3" \
		"${M_PPS:+$M_PPS pps}${ERR:+ $4: $ERR}" $((t / 10)) $((t % 10))
	[ "$4" = ok ]
}

# order PASS MODULES...: the modules of pass PASS, reversed on even
# passes; three also rotate by one every two passes
order() {
	local p=$1 r=0
	shift
	local m=("$@") n=$# i out=()
	[ "$n" -gt 2 ] && r=$(( (p - 1) / 2 % n ))
	for ((i = 0; i < n; i++)); do
		out+=("${m[(i + r) % n]}")
	done
	if [ $((p % 2)) -eq 0 ]; then
		for ((i = n - 1; i >= 0; i--)); do printf '%s ' "${out[i]}"; done
	else
		printf '%s ' "${out[@]}"
	fi
}

# ---------------------------------------------------------------- AF_PACKET
has_afp() {	# CELL: a 1t xmit cell, of a device in $NS
	local dev mode t
	IFS=/ read -r dev mode _ t <<<"$1"
	[ "$t" = 1t ] && [ "$mode" = xmit ] && [ -n "${IFNAME[$dev]:-}" ]
}

# run_afp CELL PASS: one run of afp_send on CELL's device and size, $SECS
# seconds, one line of runs.csv (module afpacket; pps, packets, ns and
# errors from its "pps N packets N ns N errors N")
run_afp() {
	local dev size st=ok out t0=${EPOCHREALTIME/./}
	local re='^pps ([0-9]+) packets ([0-9]+) ns ([0-9]+) errors ([0-9]+)$'
	IFS=/ read -r dev _ size _ <<<"$1"
	ERR="" M_PPS="" M_BPS="" M_SOFAR="" M_ERR="" M_USEC=""
	if ! out=$(ip netns exec "$NS" "$AFP_SEND" "${IFNAME[$dev]}" $((size - 4)) "$SECS" \
		"${PEER_MAC[$dev]}" "$DST" 2>&1) || ! [[ $out =~ $re ]]; then
		st=failed ERR="afp_send: $out"
	else
		peer_figures "$size"
		ERR="sendmmsg 32, PACKET_QDISC_BYPASS"
	fi
	peer_row "$1" afpacket "$2" "$st" "$t0"
}

# ---------------------------------------------------------------- groups
HALF_PPS=none

# half_pps: 50% of the slower module's median pps of dummy/xmit/64/1t
half_pps() {
	python3 -S "$BENCH_DIR/report.py" --half-pps dummy/xmit/64/1t "$CSV" 2>/dev/null ||
		echo none
}

run_group() {	# GROUP
	local cells=() c p mod rc=0
	for c in $(group_cells "$1"); do
		selected "$c" && cells+=("$c")
	done
	[ ${#cells[@]} -gt 0 ] || return 0
	if [ "$LIST" = 1 ]; then
		printf '%s\n' "${cells[@]}"
		return 0
	fi
	case $1 in
	virtio-*|e1000e-*) setup_nic "${1%-*}" || return 0 ;;
	esac
	[ "$1" = rate ] && HALF_PPS=$(half_pps)
	local mods=(stock ours) fcells=() acells=()
	if [ "$FLOOR" = 1 ]; then
		for c in "${cells[@]}"; do
			has_floor "$c" && fcells+=("$c")
		done
		[ ${#fcells[@]} -gt 0 ] && mods=(floor "${mods[@]}")
	fi
	if [ "$AFP" = 1 ]; then
		for c in "${cells[@]}"; do
			has_afp "$c" && acells+=("$c")
		done
		[ ${#acells[@]} -gt 0 ] && mods+=(afpacket)
	fi
	for ((p = 1; p <= RUNS; p++)); do
		for mod in $(order "$p" "${mods[@]}"); do
			if [ "$mod" = floor ]; then
				pg_unload || return 1
				for c in "${fcells[@]}"; do
					run_floor "$c" "$p" || rc=1
				done
				continue
			fi
			if [ "$mod" = afpacket ]; then
				pg_unload && floor_unload || return 1
				for c in "${acells[@]}"; do
					run_afp "$c" "$p" || rc=1
				done
				continue
			fi
			floor_unload || return 1
			load "$mod" && add_devices "$1" || return 1
			for c in "${cells[@]}"; do
				run_cell "$c" "$mod" "$p" || rc=1
			done
			in_ns "$NS" pg_write pgctrl reset
		done
	done
	pg_unload && floor_unload || rc=1
	return "$rc"
}

write_meta() {
	local cpu mem
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	mem=$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
	{
		echo "kernel=$(uname -r)"
		echo "guest_cpu=$cpu"
		echo "guest_vcpus=$(nproc)"
		echo "guest_mem=$mem"
		echo "runs=$RUNS"
		echo "secs=$SECS"
		echo "ours=$(modinfo -F version "$PKTGEN_KO" 2>/dev/null) ($PKTGEN_KO)"
		if [ -n "$BASE_KO" ]; then
			echo "stock=$(modinfo -F version "$BASE_KO" 2>/dev/null) ($BASE_KO)"
			echo "baseline=$BASE_REV"
		else
			echo "stock=$(modinfo -n pktgen 2>/dev/null)"
		fi
		[ "$FLOOR" = 1 ] && echo "floor=$FLOOR_KO, burst $FLOOR_BURST"
		[ "$AFP" = 1 ] && echo "afpacket=$AFP_SEND, sendmmsg 32, PACKET_QDISC_BYPASS"
		echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	} >"$OUTDIR/meta.txt"
}

main() {
	local g rc=0
	if [ "$LIST" = 1 ]; then
		for g in $GROUPS_ALL; do run_group "$g"; done
		return 0
	fi
	if [ "$FLOOR" = 1 ] && [ ! -f "$FLOOR_KO" ]; then
		echo "# bench: no floor module $FLOOR_KO (tests/lib/build-all.sh" \
			"builds it; --no-floor to go without)" >&2
		return 1
	fi
	if [ "$AFP" = 1 ] && [ ! -x "$AFP_SEND" ]; then
		echo "# bench: no $AFP_SEND (make helpers builds it; --no-afpacket" \
			"to go without)" >&2
		return 1
	fi
	if [ -n "$BASE_KO" ] && [ ! -f "$BASE_KO" ]; then
		echo "# bench: no baseline module $BASE_KO" >&2
		return 1
	fi
	TMP=$(mktemp -d /tmp/bench.XXXXXX) || return 1
	defer rm -rf "$TMP"
	[ -n "$OUTDIR" ] || OUTDIR=$TMP/out
	mkdir -p "$OUTDIR" || return 1
	CSV=$OUTDIR/runs.csv
	echo "cell,module,pass,requested,pps,bps,sofar,errors,usec,status,note,gap_samples,gap_avg_ns,gap_sd_ns" >"$CSV"
	write_meta
	setup_net || { echo "# bench: network setup failed" >&2; return 1; }
	for g in $GROUPS_ALL; do
		run_group "$g" || rc=1
	done
	python3 -S "$BENCH_DIR/report.py" --meta "$OUTDIR/meta.txt" "$CSV" || rc=1
	return "$rc"
}

main
