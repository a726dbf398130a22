#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-timeout: 900
#
# Differential test against the stock module: a fixed list of command
# sequences runs once on the stock pktgen and once on the module under
# test, each on a fresh device.  For every write the errno and the Result
# that follows are logged, then the whole device file; the two logs must be
# identical once the timing-dependent numbers are normalised (the
# started/stopped/idle microseconds and the statistics of a run's Result;
# pkts-sofar, errors, seq_num, packet size and frags stay exact).
# With PKTGEN_MODULE=stock both sides are stock: that checks the harness.
# In a sequence, "~cmd" writes cmd but leaves out the Result after it and
# "^cmd" leaves out its errno (on both sides: a documented difference of
# that one write; the device file is still compared).  A sequence in which
# ours answers `No such parameter` or `Flag -:..:- unknown` where stock
# does not is skipped: that command has not landed in ours yet.
#
#   netns $NS:  dum0 (dummy, fixed MAC 02:00:00:00:00:10)
#               kpktgend_<first cpu> <- dum0@1, dum0@2, ... (one per sequence)
. "$(dirname "$0")/lib/lib.sh"

# The commands of the foundation list.  A sequence is "name<TAB>cmd;cmd;..."
# and "@start" writes "start" to pgctrl (a run on a clean thread list).
SINGLE=(
	"count 1000" "clone_skb 10" "pkt_size 60" "min_pkt_size 100"
	"max_pkt_size 200" "delay 1000" "rate 100" "ratep 1000" "burst 8"
	"dst 10.0.0.1" "dst_min 10.0.0.1" "dst_max 10.0.0.9"
	"src_min 10.1.0.1" "src_max 10.1.0.5" "dst_mac 00:11:22:33:44:55"
	"src_mac 02:00:00:00:00:01" "udp_src_min 100" "udp_src_max 200"
	"udp_dst_min 300" "udp_dst_max 400"
	"flag IPSRC_RND" "flag !IPSRC_RND" "flag IPDST_RND" "flag UDPSRC_RND"
	"flag UDPDST_RND" "flag MACSRC_RND" "flag MACDST_RND" "flag TXSIZE_RND"
	"flag NO_TIMESTAMP" "flag SHARED" "flag !SHARED" "flag NOSUCH"
	"src_mac_count 4" "dst_mac_count 4" "clear_counters" "debug 0"
	"foo 1" "dst_mac zz" "dst_mac zz:zz" "count" "rate 0" "ratep 0"
	"count -1" "pkt_size abc" "min_pkt_size=1001" "min_pkt_size =2002"
	"min_pkt_size= 3003" "min_pkt_size = 4004" "pkt_size 10"
	"pkt_size 2000" "delay 0" "rate 1" "ratep 1"
)
# Deliberate divergences of ours from the stock module (see errors.sh):
# ours refuses these with EINVAL where stock accepts them ...
DIVERGE_OURS=("count -1" "pkt_size abc")
# Ours also sets an ERROR Result on every refused write and refuses unknown
# flags (Documentation/pktgen.rst, "Differences"); rate on a fresh
# device (min_pkt_size 0) uses the 58-byte default frame instead of giving delay 0; the list
# of flags in the unknown-flag Result ends with ours (NS_TIMESTAMP).
# These whole sequences are compared by errors.sh instead.
DIVERGE_OURS_SEQS=("flag NOSUCH" "unknown flag text" "dst_mac zz" "dst_mac zz:zz"
	"rate 100" "rate 1"
	"all commands in turn" "ratep then rate" "clone_skb then !SHARED"
	"burst then !SHARED" "!SHARED then clone_skb" "!SHARED then burst")
# ... and implements the v6.15 parser, which older stock kernels lack
# (v6.15 also made `mpls 0` clear the stack, as the HOWTO always said;
# older ones keep one label of value 0).
DIVERGE_PRE615=("rate 0" "ratep 0" "min_pkt_size=1001" "min_pkt_size= 3003"
	"mpls 0")
# From v6.15 stock refuses rate 0 and ratep 0 with EINVAL too, but leaves
# the Result as it was ("Idle"); ours says why (ERROR: rate must be 1 or
# more Mb/s), the README's "every failed write leaves a Result" (7.3.4).
DIVERGE_615=("rate 0" "ratep 0")

DIVERGE=()
if pg_is_ours; then
	DIVERGE=("${DIVERGE_OURS[@]}")
	if kver_ge 6 15; then
		DIVERGE+=("${DIVERGE_615[@]}")
	else
		DIVERGE+=("${DIVERGE_PRE615[@]}")
	fi
fi
# lookups without a loop or a fork per sequence: bash is slow under TCG
declare -A DIVERGE_SET=() DIVERGE_SEQ_SET=()
for d in "${DIVERGE[@]}"; do DIVERGE_SET[$d]=1; done
pg_is_ours && for d in "${DIVERGE_OURS_SEQS[@]}"; do DIVERGE_SEQ_SET[$d]=1; done
diverges() {	# CMD...: true if one of them is a deliberate divergence
	local c
	for c in "$@"; do
		[ -n "${DIVERGE_SET[$c]+set}" ] && return 0
	done
	return 1
}

# The later commands (IPv6, VLAN, MPLS, tos, imix, ...), well formed: stock and ours must agree.
new_seqs() {
	cat <<-'EOF'
	dst6	dst6 fd00::1
	dst6 long form	dst6 FD00:0000:0::0001
	src6	src6 fd00::2
	dst6 range	dst6_min fd00::10;dst6_max fd00::20
	ipv6 all	dst6 fd00::1;src6 fd00::2;dst6_min fd00::10;dst6_max fd00::20;traffic_class b8
	ipv6 then !IPV6	dst6 fd00::1;flag !IPV6
	vlan	vlan_id 5;vlan_p 3;vlan_cfi 1
	vlan 4095	vlan_id 4095;vlan_p 7
	qinq	vlan_id 5;svlan_id 7;svlan_p 2;svlan_cfi 1
	qinq + RND	vlan_id 5;svlan_id 7;flag VID_RND;flag SVID_RND
	vlan off	vlan_id 5;svlan_id 7;~vlan_id 4096;count 1000
	svlan off	vlan_id 5;svlan_id 7;~svlan_id 4096;count 1000
	mpls	mpls 0000000a,00000014
	mpls one	mpls 00000001
	mpls RND	mpls 0000000a,00000114
	mpls clears vlan	vlan_id 5;mpls 0000000a
	vlan clears mpls	mpls 0000000a;vlan_id 5
	mpls 0	mpls 0000000a;mpls 0
	tos	tos 10
	tos ff	tos ff
	traffic_class	traffic_class b8
	skb_priority	skb_priority 999
	frags	frags 3
	node	node 0
	node + flag NODE	node 0;flag NODE
	queue_map	queue_map_min 1;queue_map_max 2
	queue_map RND	queue_map_min 1;queue_map_max 3;flag QUEUE_MAP_RND
	queue_map CPU	flag QUEUE_MAP_CPU
	flows	flows 10;flowlen 5
	flows FLOW_SEQ	flows 10;flowlen 5;flag FLOW_SEQ
	flows FLOW_RND	flows 10;flag FLOW_SEQ;flag FLOW_RND
	flows !FLOW_RND	flows 10;flag !FLOW_RND
	FLOW_SEQ without flows	flag FLOW_SEQ
	UDPCSUM	flag UDPCSUM
	UDPCSUM off	flag UDPCSUM;flag !UDPCSUM
	MPLS_RND flag	flag MPLS_RND
	imix	~imix_weights 64,7 576,4 1500,1;count 1000
	imix one	~imix_weights 1500,1;count 1000
	xmit_mode netif_receive	xmit_mode netif_receive
	xmit_mode queue_xmit	xmit_mode queue_xmit
	xmit_mode back	xmit_mode queue_xmit;xmit_mode start_xmit
	netif_receive + burst	xmit_mode netif_receive;burst 8
	spi	spi 100
	spi + IPSEC	spi 100;flag IPSEC
	EOF
	# last: the unknown-flag text, once ours has every flag
	printf 'unknown flag text\t^flag NOSUCH\n'
}

TMP=$(lib_tmpdir)
SEQS=$TMP/seqs
{
	printf 'fresh\t\n'
	for c in "${SINGLE[@]}"; do
		printf '%s\t%s\n' "$c" "$c"
	done
	all=""
	for c in "${SINGLE[@]}"; do
		case "$c" in "count -1" | "pkt_size abc" | "rate 0" | "ratep 0" | \
			"min_pkt_size=1001" | "min_pkt_size= 3003") continue ;; esac
		all="$all${all:+;}$c"
	done
	printf 'all commands in turn\t%s\n' "$all"
	cat <<-'EOF'
	rate after pkt_size	pkt_size 1000;rate 100
	rate after min/max	min_pkt_size 200;max_pkt_size 100;rate 50
	ratep then rate	ratep 1000;rate 10
	delay then ratep	delay 5000;ratep 100
	clone_skb then !SHARED	clone_skb 10;flag !SHARED
	burst then !SHARED	burst 8;flag !SHARED
	!SHARED then clone_skb	flag !SHARED;clone_skb 10
	!SHARED then burst	flag !SHARED;burst 8
	!SHARED then burst 1	flag !SHARED;burst 1;burst 0;clone_skb 0
	min above max	min_pkt_size 300;max_pkt_size 100
	dst range + IPDST_RND	dst_min 10.0.0.1;dst_max 10.0.0.9;flag IPDST_RND
	mac counts	dst_mac 00:11:22:33:44:55;dst_mac_count 4;src_mac_count 3;flag MACDST_RND
	run frags qinq tos	count 100;pkt_size 1000;frags 3;vlan_id 5;vlan_p 3;svlan_id 7;tos 10;skb_priority 7;@start
	run ipv6 mpls	count 100;pkt_size 200;dst6 fd00::1;src6 fd00::2;traffic_class 20;mpls 0000000a,00000014;@start
	udp ranges + RND	udp_src_min 100;udp_src_max 200;udp_dst_min 300;udp_dst_max 400;flag UDPSRC_RND;flag UDPDST_RND
	all flags on and off	flag IPSRC_RND;flag IPDST_RND;flag UDPSRC_RND;flag UDPDST_RND;flag MACSRC_RND;flag MACDST_RND;flag TXSIZE_RND;flag NO_TIMESTAMP;flag !IPSRC_RND;flag !IPDST_RND;flag !UDPSRC_RND;flag !UDPDST_RND;flag !MACSRC_RND;flag !MACDST_RND;flag !TXSIZE_RND;flag !NO_TIMESTAMP;flag !SHARED;flag SHARED
	run count 100	count 100;@start
	run clone_skb	count 100;clone_skb 10;pkt_size 100;@start
	run burst	count 100;burst 8;@start
	run sizes	count 100;min_pkt_size 100;max_pkt_size 200;@start
	run ranges	count 100;dst_min 10.0.0.1;dst_max 10.0.0.9;src_min 10.1.0.1;src_max 10.1.0.5;udp_src_min 100;udp_src_max 200;udp_dst_min 300;udp_dst_max 400;dst_mac 00:11:22:33:44:55;dst_mac_count 4;src_mac_count 4;@start
	run NO_TIMESTAMP	count 100;flag NO_TIMESTAMP;@start
	run then clear_counters	count 100;@start;clear_counters
	run twice	count 50;@start;count 100;@start
	EOF
	new_seqs
} >"$SEQS"
NSEQ=$(wc -l <"$SEQS")

ktap_header
ktap_plan $((NSEQ + 2))

# record OUTDIR THREAD: run every sequence, one log per sequence.  Runs in
# the netns; reads use bash builtins (forks are slow under TCG).
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
threads_empty() {
	local t l
	for t in "$PG_PROC"/kpktgend_*; do
		mapfile -t l <"$t"
		[ "${l[1]}" = "Stopped: " ] || return 1
	done
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
result_of() {	# FILE: print its "Result: ..." line and those after it
	local l i
	mapfile l <"$PG_PROC/$1"
	for ((i = 0; i < ${#l[@]}; i++)); do
		[[ "${l[i]}" == "Result: "* ]] && break
	done
	printf '%s' "${l[@]:i}"
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
run_done() {	# DEV: pkts-sofar reached count and the run's Result is set
	local l count="" sofar=""
	mapfile -t l <"$PG_PROC/$1"
	[[ "${l[0]}" =~ ^Params:\ count\ ([0-9]+) ]] && count=${BASH_REMATCH[1]}
	# pkts-sofar's line moves down with each optional Params line (vlan,
	# mpls, IPv6, burst): found by name, not by index
	[[ "${l[*]}" =~ \ pkts-sofar:\ ([0-9]+) ]] && sofar=${BASH_REMATCH[1]}
	# at or past count: a burst sends whole bursts (count 100, burst 8:
	# 104, stock and ours; waiting for 100 exactly waited out the 20 s)
	[ -n "$count" ] && [ -n "$sofar" ] && [ "$sofar" -ge "$count" ] &&
		[[ "${l[*]}" =~ Result:\ OK:\ [0-9]+\(c ]]
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
record() {
	local out=$1 t=$2 i=0 name cmds c rc dev arr l r
	mkdir -p "$out"
	while IFS=$'\t' read -r name cmds; do
		i=$((i + 1)) dev=dum0@$i
		if [[ "$cmds" == *@start* ]]; then	# a run starts every device
			pg_write pgctrl reset
			slowwait 20 threads_empty || echo "# devices left after reset"
		fi
		IFS=';' read -ra arr <<<"$cmds"
		{
			rc=0
			pg_write "$t" "add_device $dev" || rc=$?
			echo "add_device $dev: errno $rc"
			for c in "${arr[@]}"; do
				rc=0
				if [ "$c" = @start ]; then
					pg_write pgctrl start || rc=$?
					echo "start: errno $rc"
					# start only sleeps 125 ms before it waits for
					# running devices: a slow guest can return
					# before the thread even began the run
					slowwait 20 run_done "$dev" ||
						echo "run did not complete"
					continue
				fi
				case $c in
				"~"*) pg_write "$dev" "${c#\~}" || rc=$?
					echo "[$c]: errno $rc"
					r=$(result_of "$dev")
					case $r in	# still show "not implemented"
					"Result: No such parameter"* | "Result: Flag -:"*)
						echo "$r" ;;
					*) echo "(Result not compared)" ;;
					esac ;;
				"^"*) pg_write "$dev" "${c#^}" || rc=$?
					echo "[$c]: errno (not compared)"
					result_of "$dev" ;;
				*) pg_write "$dev" "$c" || rc=$?
					echo "[$c]: errno $rc"
					result_of "$dev" ;;
				esac
			done
			echo "--- $dev:"
			mapfile l <"$PG_PROC/$dev"
			printf '%s' "${l[@]}"
		} >"$out/$i.log" 2>&1
	done <"$SEQS_FILE"
	pg_write pgctrl reset
}
export SEQS_FILE=$SEQS

# compare STOCKDIR TESTDIR N MASK: for each sequence 1..N print "i ok" or
# "i diff" + the unified diff as "# " lines, after normalising the timing
# numbers.  Stock before v6.7 has no SHARED flag (fresh devices show
# "Flags: ", another unknown-flag list): with MASK=1 the SHARED bit is
# masked out of both sides.
compare() {
	/usr/bin/python3 -S "$LIB_DIR/params_compare.py" "$@"
}

setup_ns NS
dummy_create "$NS" dum0
ip -n "$NS" link set dum0 address 02:00:00:00:00:10
T0=kpktgend_$(cut -d, -f1 </sys/devices/system/cpu/online | cut -d- -f1)

side() {	# LOADER DIR
	local t0=$SECONDS bad
	"$1" || return 1
	in_ns "$NS" record "$2" "$T0"
	echo "# $1: recorded in $((SECONDS - t0)) s"
	pg_unload || return 1
	# every run completes (else both sides' logs would compare two
	# timeouts): the sequences whose wait ran out
	bad=$(grep -l "run did not complete" "$2"/*.log) || return 0
	# shellcheck disable=SC2086 # a list of file names
	echo "# runs that did not complete: $(basename -a -s .log $bad | sort -n | tr '\n' ' ')"
	return 1
}
if side pg_load_stock "$TMP/stock"; then
	ktap_pass "record the sequences on the stock module"
else
	ktap_fail "record the sequences on the stock module"
ktap_finish
fi
if side pg_load "$TMP/test"; then
	ktap_pass "record the sequences on the module under test"
else
	ktap_fail "record the sequences on the module under test"
ktap_finish
fi

# not_landed I: ours' first "unknown command/flag" answer in sequence I
# that stock did not give (a later command not implemented yet)
not_landed() {
	local l
	l=$(grep -E '^Result: (No such parameter "|Flag -:)' "$TMP/test/$1.log" |
		grep -vxF -f "$TMP/stock/$1.log" | head -n1) || return 1
	[ -n "$l" ] || return 1
	echo "${l#Result: }"
}
# not_in_stock I: stock's first "unknown command/flag" answer in sequence
# I that ours did not give (a command newer than this kernel, e.g. imix
# on 5.10): nothing to compare with
not_in_stock() {
	local l
	l=$(grep -E '^Result: (No such parameter "|Flag -:)' "$TMP/stock/$1.log" |
		grep -vxF -f "$TMP/test/$1.log" | head -n1) || return 1
	[ -n "$l" ] || return 1
	echo "${l#Result: }"
}
FLAG_MISSING=0
verdict() {	# I DIFF: the subtest of sequence I
	local name=${SEQ_NAME[$1 - 1]} cmds=${SEQ_CMDS[$1 - 1]} arr why
	IFS=';' read -ra arr <<<"$cmds"
	if [ -n "${DIVERGE_SEQ_SET[$name]+set}" ]; then
		ktap_skip "$name" "deliberate divergence of ours (Documentation/pktgen.rst)"
	elif diverges "${arr[@]}"; then
		ktap_skip "$name" "deliberate divergence from this kernel's stock (errors.sh)"
	elif [ -z "$2" ]; then
		ktap_pass "$name"
	elif [ "$NO_SHARED" = 1 ] && [[ "$cmds" == *SHARED* || "$cmds" == *NOSUCH* ]]; then
		ktap_skip "$name" "stock < v6.7 has no SHARED flag"
	elif pg_is_ours && why=$(not_in_stock "$1"); then
		ktap_skip "$name" "not in this kernel's stock: ${why%%$'\n'*}"
	elif pg_is_ours && why=$(not_landed "$1"); then
		[[ "$why" == "Flag -:"* ]] && FLAG_MISSING=1
		ktap_skip "$name" "not landed in ours: ${why%%$'\n'*}"
	elif [ "$name" = "unknown flag text" ] && [ "$FLAG_MISSING" = 1 ]; then
		ktap_skip "$name" "ours does not have every flag yet"
	else
		ktap_fail "$name" "$2"
	fi
}
NO_SHARED=0
if pg_is_ours && ! grep -q '^     Flags: SHARED' "$TMP/stock/1.log"; then
	NO_SHARED=1
	echo "# stock module has no SHARED flag (< v6.7): SHARED bit masked"
fi
compare "$TMP/stock" "$TMP/test" "$NSEQ" "$NO_SHARED" >"$TMP/cmp"
mapfile -t SEQ_NAME < <(cut -f1 "$SEQS")
mapfile -t SEQ_CMDS < <(cut -f2 "$SEQS")
i=0 d=""
while IFS= read -r line; do
	case $line in
	"# "*) d+="${line#\# }"$'\n'; continue ;;
	esac
	[ "$i" -gt 0 ] && verdict "$i" "$d"
	i=${line%% *} d=""
done <"$TMP/cmp"
[ "$i" -gt 0 ] && verdict "$i" "$d"

ktap_finish
