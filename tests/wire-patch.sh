#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A netif_receive burst leaves its skb as it was built (every injection
# after the first relies on that), so where no field varies but the
# per-packet ones, ours writes only those into the next packet: IPv4 id
# and checksum, pktgen seq and time (pg_patch_frame()).  Every other
# configuration builds the whole frame.
#
#   netns A [ d0 (dummy), netif_receive, burst 32 ] <- packet socket
#
# d0's checksum offload is off, so that UDPCSUM sums the whole datagram.
# The packet socket's filter takes only the frames of every SAMPLE-th
# packet (seq 1, 1+SAMPLE, ...), so the skb is not held in between and
# those packets are patched ones (from the second on).  Checked on them:
# every copy of a burst is the same frame; the seqs, IP ids and
# checksums; the pktgen time is that of arrival; with nothing varying, every byte outside
# the per-packet fields is the first frame's; with one range or flag
# that varies the frame, the field does vary.  The stock module builds
# every frame whole and passes the same checks.

. "$(dirname "$0")/lib/lib.sh"

BURST=32 SAMPLE=8192 N=$((8192 * 8)) DST=10.96.0.2

# the sampler (tests/lib/pktsock_sample.py) and its checker (wire_patch_check.py)


# name|what|seq offset|commands beyond the common ones
CASES=(
	"IPv4, nothing varies|fixed|46|"
	"IPv4, 1500 bytes|fixed|46|pkt_size 1496"
	"IPv4, UDPCSUM|fixed-udpcsum|46|flag UDPCSUM"
	"IPv6, nothing varies|fixed|66|dst6 fd00:96::2;src6 fd00:96::1"
	"UDP source ports|vary:sport|46|udp_src_min 9;udp_src_max 16"
	"IPv4 sources|vary:saddr|46|src_min 10.96.0.10;src_max 10.96.0.16"
	"IPv4 destinations|vary:daddr|46|dst_min 10.96.1.10;dst_max 10.96.1.16"
	"source MACs|vary:smac|46|src_mac_count 5"
	"destination MACs|vary:dmac|46|dst_mac_count 5"
	"sizes|vary:len|46|min_pkt_size 60;max_pkt_size 100"
	"IPv6 destinations|vary:daddr|66|dst6_min fd00:96::10;dst6_max fd00:96::16;src6 fd00:96::1"
)

ktap_header
ktap_plan $((2 * ${#CASES[@]}))

TMP=$(lib_tmpdir)

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_load || return 1
	setup_ns NSA || return 1
	dummy_create "$NSA" d0 || return 1
	# UDPCSUM: the sum computed here, not left to the device
	ip netns exec "$NSA" ethtool -K d0 tx off >/dev/null || return 1
	THR=$(pg_first_thread "$NSA")
}

ktap_setup setup

# run NAME WHAT OFF CMDS: configure d0 from scratch, sample, check.
run() {
	local name=$1 what=$2 off=$3 cmds=$4 c res pid
	local -a extra=()
	IFS=';' read -ra extra <<<"$cmds"
	rm -f "$TMP/ready" "$TMP/go" "$TMP/out"
	ip netns exec "$NSA" python3 -S "$LIB_DIR/pktsock_sample.py" d0 "$off" "$SAMPLE" \
		"$TMP/ready" "$TMP/go" "$TMP/out" &
	pid=$!
	if ! slowwait 30 test -e "$TMP/ready"; then
		ktap_fail "$name: packet socket on d0"
		ktap_skip "$name: sampled frames" "no packet socket"
		kill "$pid"
		return
	fi
	for c in "rem_device_all" "add_device d0"; do
		in_ns "$NSA" pg_set "$THR" "$c" || break
	done
	for c in "xmit_mode netif_receive" "burst $BURST" "count $N" "pkt_size 60" \
		"dst $DST" "dst_mac 02:00:00:00:00:01" "${extra[@]}"; do
		in_ns "$NSA" pg_set d0 "$c" || break
	done
	pg_start_ns "$NSA" 120
	res=$(in_ns "$NSA" pg_result d0)
	touch "$TMP/go"
	wait "$pid"
	case $res in
	"OK: "*" $N ("*) ktap_pass "$name: $N sent" ;;
	*) ktap_fail "$name: $N sent" "Result: $res" ;;
	esac
	# checked after the runs, all in one Python
	mv "$TMP/out" "$TMP/out.${#SAMPLED[@]}"
	CHECKS+="$N $BURST $SAMPLE $what $TMP/out.${#SAMPLED[@]}"$'\n'
	SAMPLED+=("$name: sampled frames ($what)")
}

CHECKS="" SAMPLED=()
for c in "${CASES[@]}"; do
	IFS='|' read -r name what off cmds <<<"$c"
	run "$name" "$what" "$off" "$cmds"
done
verdicts=()
[ ${#SAMPLED[@]} -eq 0 ] ||
	mapfile -t verdicts < <(python3 -S "$LIB_DIR/wire_patch_check.py" batch <<<"${CHECKS%$'\n'}" 2>&1)
for i in "${!SAMPLED[@]}"; do
	if [ "${verdicts[i]:-}" = ok ]; then
		ktap_pass "${SAMPLED[i]}"
	else
		ktap_fail "${SAMPLED[i]}" "${verdicts[i]:-no verdict: ${verdicts[*]}}"
	fi
done

in_ns "$NSA" pg_write pgctrl reset
ktap_finish
