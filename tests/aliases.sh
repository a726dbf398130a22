#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The old spellings the HOWTOs and the OLS 2005 paper use work
# and mean what today's command means.  For each alias the canonical form
# and the alias configure a fresh pktgen device the same way; then
#  - the alias answers with the canonical form's Result text
#    (`OK: dstmac ...`, `OK: delay=N`, `OK: flags=0x...`),
#  - the Params block of the device file is the same,
#  - the packets are the same, byte for byte (NO_TIMESTAMP; a fresh device
#    restarts the IP id), captured on the veth peer.
# max_before_softirq (thread file) must be accepted and change nothing;
# `inject` must send the device's count once, for that device alone, and
# return when done.  A row whose command the module refuses ("No such
# parameter", unknown flag) is skipped with that reason.
#
#   netns A (NSA)                          netns B (NSB)
#   +---------------------------+          +---------------------------+
#   | pktgen devices vA, vA@1   |   veth   | vB  <-- tcpdump           |
#   | (kpktgend_0)              |<-------->| ingress: drop all         |
#   +---------------------------+          +---------------------------+

. "$(dirname "$0")/lib/lib.sh"

K=20			# packets per run
THR=kpktgend_0
OTHER_MAC=02:00:00:00:00:99	# dst_mac of the device inject must not start

# alias rows (the first, name=value, is the v6.15 spelling the lead's
# parser accepts: it checks the comparison itself while the old names are
# still refused): NAME|CANONICAL CMDS (;-separated)|ALIAS CMDS|EXPECTED RESULT
# (an extended regex)|MODE (pcap_runs.py).  The last command of each list
# is the one whose Result is compared.
ROWS=(
	"dst_mac=|dst_mac 02:00:00:00:00:0c|dst_mac=02:00:00:00:00:0c|^OK: dstmac 02:00:00:00:00:0c$|bytes"
	"dstmac|dst_mac 02:00:00:00:00:0b|dstmac 02:00:00:00:00:0b|^OK: dstmac 02:00:00:00:00:0b$|bytes"
	"srcmac|src_mac 02:00:00:00:00:0a|srcmac 02:00:00:00:00:0a|^OK: srcmac 02:00:00:00:00:0a$|bytes"
	"ipg|delay 200000|ipg 200000|^OK: delay=200000$|bytes"
	"UDPDEST_RND|udp_dst_min 1000;udp_dst_max 1100;flag UDPDST_RND|udp_dst_min 1000;udp_dst_max 1100;flag UDPDEST_RND|^OK: flags=0x[0-9a-f]+$|dport"
	"NODE_ALLOC|node 0;flag NODE|node 0;flag NODE_ALLOC|^OK: flags=0x[0-9a-f]+$|bytes"
	"rate 300M|rate 300|rate 300M|^OK: rate=300$|bytes"
)

ktap_header
ktap_plan $((3 * ${#ROWS[@]} + 2 + 4))

TMP=$(lib_tmpdir)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_load || return 1
	setup_ns NSA NSB || return 1
	veth_create "$NSA" vA "$NSB" vB || return 1
	ip netns exec "$NSB" tc qdisc add dev vB clsact &&
		ip netns exec "$NSB" tc filter add dev vB ingress matchall action drop ||
		return 1
	MACB=$(ip netns exec "$NSB" cat /sys/class/net/vB/address)
	cap_start "$NSB" vB "$TMP/aliases.pcap"
}
ktap_setup setup

a() { in_ns "$NSA" "$@"; }	# pktgen I/O in NSA

# refusal TEXT: the refused command or flag named in a Result, if any.
refusal() {
	case $1 in
	"No such parameter"*) echo "${1#No such parameter }" ;;
	"Flag -:"*) local f=${1#Flag -:}; echo "flag ${f%%:- unknown*}" ;;
	*) return 1 ;;
	esac
}

# fresh DEV...: empty the thread, add each DEV and give it the base config.
fresh() {
	local d
	a pg_write "$THR" rem_device_all || return 1
	for d; do
		a pg_set "$THR" "add_device $d" &&
			a pg_set "$d" "count $K" &&
			a pg_set "$d" "pkt_size 64" &&
			a pg_set "$d" "dst 10.9.0.2" &&
			a pg_set "$d" "dst_mac $MACB" &&
			a pg_set "$d" "flag NO_TIMESTAMP" || return 1
	done
}

params() { a pg_read "$1" | sed -n '/^Params:/,/^Current:/p'; }

NRUNS=0 COMPS=()
# variant CMDS: fresh vA, write CMDS (";"-separated), keep the last one's
# errno/Result in V_RC/V_RES and the Params in V_PARAMS.  V_REFUSED names
# a refused command.  Does not start.
variant() {
	local c cmds
	IFS=';' read -r -a cmds <<<"$1"
	V_RC=0 V_RES="" V_PARAMS="" V_REFUSED=""
	fresh vA || { V_RC=-1; V_RES="base configuration failed"; return; }
	for c in "${cmds[@]}"; do
		V_RC=0
		a pg_write vA "$c" || V_RC=$?
		V_RES=$(a pg_result vA)
		V_REFUSED=$(refusal "$V_RES") && return
	done
	V_PARAMS=$(params vA)
}

run_vA() {	# start the thread's devices: one more run in the capture
	pg_start_ns "$NSA" && NRUNS=$((NRUNS + 1))
}

# row NAME CANON ALIAS RESULT_RE MODE: the 3 subtests of one alias.
row() {
	local name=$1 canon=$2 alias=$3 re=$4 mode=$5 crc cres cparams r0
	variant "$canon"
	crc=$V_RC cres=$V_RES cparams=$V_PARAMS
	if [ -z "$V_REFUSED" ] && [ "$crc" -eq 0 ]; then
		run_vA
		r0=$((NRUNS - 1))
		variant "$alias"
	fi
	if [ -z "$V_REFUSED" ] && [ "$crc" -ne 0 ]; then
		for t in "Result" "same Params" "same packets"; do
			ktap_fail "$name: $t" "canonical form: errno $crc, Result: $cres"
		done
		return
	fi
	if [ -n "$V_REFUSED" ]; then
		ktap_skip "$name: Result of the canonical form" "module refuses $V_REFUSED"
		ktap_skip "$name: same Params" "module refuses $V_REFUSED"
		ktap_skip "$name: same packets" "module refuses $V_REFUSED"
		return
	fi
	check "$name: Result '$cres' ($re), alias the same" \
		same_result "$crc" "$cres" "$V_RC" "$V_RES" "$re"
	check "$name: same Params" diff <(echo "$cparams") <(echo "$V_PARAMS")
	if [ "$V_RC" -eq 0 ] && run_vA; then
		COMPS+=("{\"name\": \"$name: same packets ($mode)\", \"a\": $r0, \"b\": $((NRUNS - 1)), \"n\": $K, \"mode\": \"$mode\", \"lo\": 1000, \"hi\": 1100}")
	else
		ktap_fail "$name: same packets" "alias write errno $V_RC or start failed"
	fi
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
same_result() {	# CRC CRES ARC ARES RE
	[ "$1" -eq 0 ] && [ "$3" -eq 0 ] && [ "$2" = "$4" ] &&
		grep -Eq "$5" <<<"$2" && return 0
	echo "canonical: errno $1 Result '$2'; alias: errno $3 Result '$4'"
	return 1
}

for r in "${ROWS[@]}"; do
	IFS='|' read -r -a f <<<"$r"
	row "${f[@]}"
done

# ---- max_before_softirq: accepted, OK:, nothing changes
softirq() {	# prints "errno N, Result: R" and "unchanged" or a diff
	local before after rc=0
	fresh vA || { echo "base configuration failed"; return; }
	before=$(a pg_read "$THR" | grep -v '^Result:'; params vA)
	a pg_write "$THR" "max_before_softirq 10000" || rc=$?
	echo "errno $rc, Result: $(a pg_result "$THR")"
	after=$(a pg_read "$THR" | grep -v '^Result:'; params vA)
	[ "$before" = "$after" ] && echo unchanged && return
	diff <(echo "$before") <(echo "$after")
}
out=$(softirq 2>&1)
check "max_before_softirq 10000: accepted with Result OK:" \
	grep -q '^errno 0, Result: OK:' <<<"$out"
check "max_before_softirq: thread and device files unchanged" \
	grep -qx unchanged <<<"$out"
ktap_diag "$out"

# ---- inject: vA alone, once, returns when done
INJ_RC=0 INJ_RES="" INJ_REF="" INJ_OK=""
inject_test() {
	local r0
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	fresh vA && run_vA || { echo "canonical run (start) failed"; return 1; }
	r0=$((NRUNS - 1))
	fresh vA vA@1 && a pg_set vA@1 "dst_mac $OTHER_MAC" || return 1
	a pg_write vA inject || INJ_RC=$?
	INJ_RES=$(a pg_result vA)
	INJ_REF=$(refusal "$INJ_RES") && return 0
	a pg_read vA >"$TMP/inj-vA"
	a pg_read vA@1 >"$TMP/inj-other"
	NRUNS=$((NRUNS + 1))
	COMPS+=("{\"name\": \"inject: the packets of start, none from vA@1\", \"a\": $r0, \"b\": $((NRUNS - 1)), \"n\": $K, \"mode\": \"bytes\", \"no_foreign\": true}")
	INJ_OK=1
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
stats_ok() {	# RESULT: the two lines of statistics of a K-packet run
	local re="^OK: [0-9]+\\(c[0-9]+\\+d[0-9]+\\) usec, $K \\(64byte,-?[0-9]+frags\\)"
	re+=$'\n'"  [0-9]+pps [0-9]+Mb/sec \\([0-9]+bps\\) errors: 0$"
	[[ $1 =~ $re ]]
}
INJ_T=("returns 0 with pkts-sofar $K" "Result statistics" "vA@1 did not send (pkts-sofar 0)"
	"the packets of start, none from vA@1")
inject_test >"$TMP/inj.log" 2>&1
if [ -n "$INJ_REF" ]; then
	for t in "${INJ_T[@]}"; do
		ktap_skip "inject: $t" "module refuses $INJ_REF"
	done
elif [ -z "$INJ_OK" ]; then
	for t in "${INJ_T[@]}"; do
		ktap_fail "inject: $t" "$(cat "$TMP/inj.log")"
	done
else
	check "inject: ${INJ_T[0]}" test "$INJ_RC" -eq 0 -a \
		-n "$(grep "pkts-sofar: $K  errors: 0" "$TMP/inj-vA")"
	ktap_diag "inject Result: $INJ_RES"
	check "inject: ${INJ_T[1]}" stats_ok "$INJ_RES"
	check "inject: ${INJ_T[2]}" grep -q "pkts-sofar: 0  errors: 0" "$TMP/inj-other"
fi

cap_stop
comps=$(IFS=,; echo "[${COMPS[*]}]")
out=$(python3 -S "$LIB_DIR/pcap_runs.py" "$TMP/aliases.pcap" "$NRUNS" \
	"[\"$OTHER_MAC\"]" "$comps" 2>&1)
ktap_report <<<"$out"

ktap_finish
