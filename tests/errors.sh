#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Malformed and refused writes: every case asserts the errno and, where the
# file has one, the Result text.  Expectations follow the v6.15+ upstream
# parser (which our module implements); where the stock module of an older
# kernel differs (pre-v6.15: no `param=value`, `rate 0` is a short write,
# ENOTSUPP 524 instead of EOPNOTSUPP, pgctrl drops the last byte), the
# stock expectation is asserted instead when PKTGEN_MODULE=stock.
#
#   netns $NS:  dum0 (dummy)   va <-> vb (veth)
#               kpktgend_<first cpu> <- dum0, va
. "$(dirname "$0")/lib/lib.sh"

EPERM=1 EINVAL=22 EOPNOTSUPP=95 ENOTSUPP=524

# The refusals of the later commands (VLAN, MPLS, tos, imix, xmit_mode,
# ...; ours only: stock < v6.15 answers
# most of them with success and an ERROR Result, or wraps the value).
# DEV | SETUP (;-separated, each must succeed) | CMD | ERRNO | RESULT (glob)
# Each case runs on a fresh pktgen device (DEV@<n>); the refused write must
# leave the Params block exactly as it was.  Where no exact text is
# specified, the Result must start with "ERROR: " and name the command.
I21=$(for s in $(seq 100 100 2100); do printf '%s,1 ' "$s"; done)
M17=$(printf '%x,' $(seq 1 17))
new_cases() {
	cat <<-EOF
	dum0 | | vlan_p 1 | EINVAL | ERROR: vlan_p must be 0-7
	dum0 | | vlan_cfi 1 | EINVAL | ERROR: vlan_cfi must be 0-1
	dum0 | | svlan_id 5 | EINVAL | ERROR: *svlan_id*
	dum0 | vlan_id 4096 | svlan_id 5 | EINVAL | ERROR: *svlan_id*
	dum0 | vlan_id 5;svlan_id 4096 | svlan_p 1 | EINVAL | ERROR: svlan_p must be 0-7
	dum0 | vlan_id 5 | svlan_cfi 1 | EINVAL | ERROR: svlan_cfi must be 0-1
	dum0 | vlan_id 5 | vlan_p 8 | EINVAL | ERROR: vlan_p must be 0-7
	dum0 | vlan_id 5 | vlan_cfi 2 | EINVAL | ERROR: vlan_cfi must be 0-1
	dum0 | vlan_id 5;svlan_id 6 | svlan_p 8 | EINVAL | ERROR: svlan_p must be 0-7
	dum0 | vlan_id 5;svlan_id 6 | svlan_cfi 2 | EINVAL | ERROR: svlan_cfi must be 0-1
	dum0 | vlan_id 5 | vlan_id 65536 | EINVAL | ERROR: *vlan_id*
	dum0 | mpls 0000000a;vlan_id 5 | vlan_p 8 | EINVAL | ERROR: vlan_p must be 0-7
	dum0 | tos 10 | tos 0ff | EINVAL | ERROR: tos must be 00-ff
	dum0 | tos 10 | tos g | EINVAL | ERROR: tos must be 00-ff
	dum0 | tos 10 | tos | EINVAL | ERROR: tos must be 00-ff
	dum0 | traffic_class b8 | traffic_class 100 | EINVAL | ERROR: traffic_class must be 00-ff
	dum0 | traffic_class b8 | traffic_class x | EINVAL | ERROR: traffic_class must be 00-ff
	dum0 | skb_priority 7 | skb_priority 1000000000 | EINVAL | ERROR: *skb_priority*
	dum0 | mpls 0000000a | mpls ${M17%,} | E2BIG | ERROR: *mpls*
	dum0 | mpls 0000000a | mpls | EINVAL | ERROR: *mpls*
	dum0 | mpls 0000000a | mpls 1,,2 | EINVAL | ERROR: *mpls*
	dum0 | mpls 0000000a | mpls 1, | EINVAL | ERROR: *mpls*
	dum0 | mpls 0000000a | mpls 123456789 | EINVAL | ERROR: *mpls*
	dum0 | mpls 0000000a | mpls 1,xyz | EINVAL | ERROR: *mpls*
	dum0 | imix_weights 100,1 200,2 | imix_weights 100,0 | EINVAL | ERROR: *imix_weights*
	dum0 | imix_weights 100,1 200,2 | imix_weights 100 | EINVAL | ERROR: *imix_weights*
	dum0 | imix_weights 100,1 200,2 | imix_weights 100, | EINVAL | ERROR: *imix_weights*
	dum0 | imix_weights 100,1 200,2 | imix_weights 300,1 400,x | EINVAL | ERROR: *imix_weights*
	dum0 | imix_weights 100,1 200,2 | imix_weights 70000,1 | EINVAL | ERROR: *imix_weights*
	dum0 | imix_weights 100,1 200,2 | imix_weights | EINVAL | ERROR: *imix_weights*
	dum0 | imix_weights 100,1 200,2 | imix_weights ${I21% } | E2BIG | ERROR: *imix_weights*
	dum0 | imix_weights 100,1 | clone_skb 1 | EINVAL | ERROR: *clone_skb*
	dum0 | clone_skb 1 | imix_weights 100,1 | EINVAL | ERROR: *imix_weights*
	dum0 | xmit_mode queue_xmit | xmit_mode nonsense | EINVAL | xmit_mode -:nonsense:- unknown\nAvailable modes: start_xmit, netif_receive, queue_xmit
	dum0 | xmit_mode netif_receive | clone_skb 1 | EOPNOTSUPP | ERROR: *clone_skb*
	dum0 | clone_skb 1 | xmit_mode netif_receive | EOPNOTSUPP | ERROR: *
	dum0 | xmit_mode queue_xmit | burst 2 | EOPNOTSUPP | ERROR: *burst*
	dum0 | burst 2 | xmit_mode queue_xmit | EOPNOTSUPP | ERROR: *
	va | xmit_mode netif_receive;burst 2 | xmit_mode start_xmit | EOPNOTSUPP | ERROR: *
	va | xmit_mode netif_receive;burst 2 | xmit_mode queue_xmit | EOPNOTSUPP | ERROR: *
	va | xmit_mode queue_xmit | clone_skb 1 | EOPNOTSUPP | ERROR: *clone_skb*
	dum0 | dst 10.0.0.1 | dst6 fd00::g | EINVAL | ERROR: *dst6*
	dum0 | dst6 fd00::1 | dst6 fd00::1/64 | EINVAL | ERROR: *dst6*
	dum0 | dst6 fd00::1 | src6 fd01:::1 | EINVAL | ERROR: *src6*
	dum0 | dst6_min fd00::1 | dst6_min x | EINVAL | ERROR: *dst6_min*
	dum0 | dst6_max fd00::1 | dst6_max 1:2:3:4:5:6:7:8:9 | EINVAL | ERROR: *dst6_max*
	dum0 | src6_min fd00::1 | src6_min fd00::1x | EINVAL | ERROR: *src6_min*
	dum0 | src6_max fd00::1 | src6_max : | EINVAL | ERROR: *src6_max*
	dum0 | flows 10 | flows 65537 | EINVAL | ERROR: *flows*
	dum0 | flowlen 10 | flowlen x | EINVAL | ERROR: *flowlen*
	dum0 | frags 2 | frags 2147483648 | EINVAL | ERROR: *frags*
	dum0 | node 0 | node 65536 | EINVAL | ERROR: *node*
	dum0 | queue_map_min 1 | queue_map_min 65536 | EINVAL | ERROR: *queue_map_min*
	dum0 | udp_src_min 10 | udp_src_min 65536 | EINVAL | ERROR: *udp_src_min*
	dum0 | udp_src_max 10 | udp_src_max 65536 | EINVAL | ERROR: *udp_src_max*
	dum0 | udp_dst_min 10 | udp_dst_min 65536 | EINVAL | ERROR: *udp_dst_min*
	dum0 | udp_dst_max 10 | udp_dst_max 65536 | EINVAL | ERROR: *udp_dst_max*
	dum0 | queue_map_max 1 | queue_map_max -1 | EINVAL | ERROR: *queue_map_max*
	dum0 | spi 5 | spi x | EINVAL | ERROR: *spi*
	EOF
}
NNEW=$(new_cases | wc -l)

ktap_header
ktap_plan $((42 + NNEW))

# v6.15+ parsing: ours always, the stock module from v6.15 on.
hardened() { pg_is_ours || kver_ge 6 15; }
if hardened; then ENOTSUP_WANT=$EOPNOTSUPP; else ENOTSUP_WANT=$ENOTSUPP; fi

# wr_is ERRNO FILE BYTES: pg_write_is in $N for exact bytes (printf %b escapes).
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
wr_is() {
	local rc=0
	in_ns "$N" pg_write_raw "$2" "$3" || rc=$?
	[ "$rc" -eq "$1" ] && return 0
	echo "write '$3' (raw) to $2: errno $rc, want $1"
	return 1
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
res_is() {	# FILE TEXT
	local got
	got=$(in_ns "$N" pg_result "$1")
	[ "$got" = "$2" ] && return 0
	echo "$1 Result: '$got', want '$2'"
	return 1
}
# w_res ERRNO FILE CMD RESULT: errno and the Result afterwards.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
w_res() { pg_write_is "$N" "$1" "$2" "$3" && res_is "$2" "$4"; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
wr_res() { wr_is "$1" "$2" "$3" && res_is "$2" "$4"; }
# w_ret FILE BYTES: print write(2)'s return value (or -errno).
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
w_ret() {
	printf '%b' "$2" | ip netns exec "$N" /usr/bin/python3 -S "$LIB_DIR/write_ret.py" "$PG_PROC/$1"
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
param() {	# DEV NAME: the value after "NAME: " in the Params lines
	in_ns "$N" pg_read "$1" | sed -n "s/.* $2:\? \([^ ]*\).*/\1/p" | head -n1
}

if ! pg_load; then
	ktap_fail "module loads"
	ktap_finish
fi
ktap_pass "module loads"

CPU0=$(cut -d, -f1 </sys/devices/system/cpu/online)
T0=kpktgend_${CPU0%%-*}
setup_ns NS
dummy_create "$NS" dum0
veth_create "$NS" va "$NS" vb
N=$NS
in_ns "$N" pg_read pgctrl >/dev/null	# starts lib's write helper (no fork later)
setup() {
	in_ns "$N" pg_set "$T0" "add_device dum0" && in_ns "$N" pg_set "$T0" "add_device va" &&
		in_ns "$N" pg_set dum0 "count 1000"
}
if ! setup; then
	ktap_fail "add dum0 and va"
	ktap_finish
fi
ktap_pass "add dum0 and va"

# Where stock leaves the previous Result after a failed write, ours says
# why the write failed (no write leaves a stale Result): ours_or RES TEXT
ours_or() { if pg_is_ours; then echo "$2"; else echo "$1"; fi; }

# --- device file
check "unknown command: EINVAL, Result 'No such parameter \"foo\"'" \
	w_res "$EINVAL" dum0 "foo 1" 'No such parameter "foo"'
in_ns "$N" pg_set dum0 "count 1000"
check "empty write to the device: EINVAL, Result unchanged (ours: says why)" \
	wr_res "$EINVAL" dum0 '' "$(ours_or "OK: count=1000" "ERROR: empty write")"
check "dst_mac zz: EINVAL, Result unchanged (ours: says why)" \
	w_res "$EINVAL" dum0 "dst_mac zz" \
	"$(ours_or "OK: count=1000" "ERROR: dst_mac takes a MAC address (xx:xx:xx:xx:xx:xx)")"
check "src_mac 00:11:22:33:44: EINVAL, Result unchanged (ours: says why)" \
	w_res "$EINVAL" dum0 "src_mac 00:11:22:33:44" \
	"$(ours_or "OK: count=1000" "ERROR: src_mac takes a MAC address (xx:xx:xx:xx:xx:xx)")"

# --- one write grammar for every file (ours): 1-1023 bytes, E2BIG beyond,
# EINVAL for an empty write, and the Result says which.
E2BIG=7
LONG="ERROR: a command is at most 1023 bytes"
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
padded() { printf '%-*s' "$2" "$1"; }	# CMD N: CMD and blanks, N bytes
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
size_limits() {	# FILE CMD OK_RESULT
	wr_res 0 "$1" "$(padded "$2" 1023)" "$3" &&
		wr_res "$E2BIG" "$1" "$(padded "$2" 1024)" "$LONG" &&
		wr_res "$EINVAL" "$1" '' "ERROR: empty write"
}
if pg_is_ours; then
	check "device file: 1023 bytes taken, 1024 E2BIG, empty EINVAL, each with a Result" \
		size_limits dum0 "count 7" "OK: count=7"
	check "thread file: the same limits and Results" \
		size_limits "$T0" max_before_softirq \
		"OK: Note! max_before_softirq is obsoleted -- Do not use"
	check "pgrx: the same limits and Results" size_limits pgrx rx_reset "OK: rx_reset"
	check "ipopt: the same limits and Results" size_limits ipopt reset "OK: reset"
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	check "pgctrl: 1023 bytes read (EINVAL: no such command), 1024 E2BIG" \
		eval 'wr_is "$EINVAL" pgctrl "$(padded stop 1023)" && wr_is "$E2BIG" pgctrl "$(padded stop 1024)"'
	check "pgrx and ipopt split at the device files' separators (= and quotes)" \
		eval 'w_res 0 pgrx "statistics=\"basic\"" "OK: statistics=basic" &&
		      w_res 0 ipopt "display=\"human\"" "OK: display=human"'
else
	for i in 1 2 3 4 5 6; do ktap_skip "one write grammar ($i)" "ours only"; done
fi
in_ns "$N" pg_set dum0 "count 1000"

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
rate0() {	# CMD OURS_RESULT: refused, nothing changes (stock < 6.15: a 1-byte write)
	local ret d0 d1
	d0=$(param dum0 delay)
	ret=$(w_ret dum0 "$1\n")
	d1=$(param dum0 delay)
	[ "$d0" = "$d1" ] || { echo "delay changed: $d0 -> $d1"; return 1; }
	res_is dum0 "$(ours_or "OK: count=1000" "$2")" || return 1
	if hardened; then
		[ "$ret" = "-$EINVAL" ] && return 0
		echo "'$1': write returned $ret, want -$EINVAL"
	else
		[ "$ret" = 1 ] && return 0
		echo "'$1': write returned $ret, want 1 (stock < 6.15 short write)"
	fi
	return 1
}
in_ns "$N" pg_set dum0 "count 1000"
check "rate 0: refused (EINVAL), Result and delay unchanged" rate0 "rate 0" \
	"ERROR: rate must be 1 or more Mb/s"
in_ns "$N" pg_set dum0 "count 1000"
check "ratep 0: refused (EINVAL), Result and delay unchanged" rate0 "ratep 0" \
	"ERROR: ratep must be 1 or more packets/s"

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
prefixes_einval() {	# FILE WORD: every prefix of WORD, with and without "\n"
	local i p
	for ((i = 1; i <= ${#2}; i++)); do
		p=${2:0:i}
		wr_is "$EINVAL" "$1" "$p" && pg_write_is "$N" "$EINVAL" "$1" "$p" || return 1
	done
}
check "device: every prefix of forsurewrongcommand: EINVAL" \
	prefixes_einval dum0 forsurewrongcommand
# the device command name is cut at 15 characters
check "device: Result names the command cut to 15 chars" \
	res_is dum0 'No such parameter "forsurewrongcom"'

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
min_pkt() {	# BYTES VALUE: accepted and shown in Params
	local v
	in_ns "$N" pg_write_raw dum0 "min_pkt_size 60" || return 1
	wr_res 0 dum0 "$1" "OK: min_pkt_size=$2" || return 1
	v=$(param dum0 min_pkt_size)
	[ "$v" = "$2" ] && return 0
	echo "Params min_pkt_size: $v, want $2"
	return 1
}
# stock < 6.15 has no '=' separator: "name=" and "name= " are unknown words
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
min_pkt_refused() {	# BYTES WORD
	wr_res "$EINVAL" dum0 "$1" "No such parameter \"$2\""
}
for nul in "" '\0'; do
	sfx=${nul:+ + NUL}
	if hardened; then
		check "min_pkt_size=1001$sfx: accepted" min_pkt "min_pkt_size=1001$nul" 1001
	else
		check "min_pkt_size=1001$sfx: EINVAL on stock < 6.15" \
			min_pkt_refused "min_pkt_size=1001$nul" "min_pkt_size=10"
	fi
	check "'min_pkt_size =2002'$sfx: accepted" min_pkt "min_pkt_size =2002$nul" 2002
	if hardened; then
		check "'min_pkt_size= 3003'$sfx: accepted" min_pkt "min_pkt_size= 3003$nul" 3003
	else
		check "'min_pkt_size= 3003'$sfx: EINVAL on stock < 6.15" \
			min_pkt_refused "min_pkt_size= 3003$nul" "min_pkt_size="
	fi
	check "'min_pkt_size = 4004'$sfx: accepted" min_pkt "min_pkt_size = 4004$nul" 4004
done

# an exit status cannot carry 524: read the errno from write(2) itself
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
wret_res() {	# ERRNO FILE CMD RESULT
	local ret
	ret=$(w_ret "$2" "$3\n")
	[ "$ret" = "-$1" ] || { echo "write '$3' to $2: returned $ret, want -$1"; return 1; }
	res_is "$2" "$4"
}
check "clone_skb 1 on veth: EOPNOTSUPP ($ENOTSUP_WANT), Result unchanged" \
	wret_res $ENOTSUP_WANT va "clone_skb 1" \
	"$(ours_or Idle "ERROR: clone_skb > 0 needs a device with IFF_TX_SKB_SHARING")"
check "burst 2 on veth: EOPNOTSUPP ($ENOTSUP_WANT), Result unchanged" \
	wret_res $ENOTSUP_WANT va "burst 2" \
	"$(ours_or Idle "ERROR: burst > 1 needs a device with IFF_TX_SKB_SHARING")"
in_ns "$N" pg_set dum0 "clone_skb 10"
if pg_is_ours || kver_ge 6 7; then
	check "flag !SHARED with clone_skb 10 on dummy: EINVAL, Result unchanged" \
		w_res "$EINVAL" dum0 "flag !SHARED" \
		"$(ours_or "OK: clone_skb=10" "ERROR: flag !SHARED needs clone_skb 0 and burst 1")"
else	# no SHARED flag before v6.7: an unknown flag (write succeeds)
	# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
	unknown_shared() {
		pg_write_is "$N" 0 dum0 "flag !SHARED" &&
			in_ns "$N" pg_result dum0 | head -n1 | grep -qx 'Flag -:!SHARED:- unknown'
	}
	check "flag !SHARED on stock < 6.7: unknown flag, write succeeds" \
		unknown_shared
fi
in_ns "$N" pg_set dum0 "clone_skb 0"

# deliberate divergences: our parser refuses what stock silently accepts.
# No upstream Result text exists for these: the value must not change and
# the Result must not claim success.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
ours_refuses() {	# CMD PARAM: PARAM (a Params field) keeps its value
	local v0 v1 res
	v0=$(param dum0 "$2")
	pg_write_is "$N" "$EINVAL" dum0 "$1" || return 1
	v1=$(param dum0 "$2")
	[ "$v0" = "$v1" ] || { echo "'$1' changed $2: $v0 -> $v1"; return 1; }
	res=$(in_ns "$N" pg_result dum0)
	case "$res" in OK:*) echo "'$1': Result '$res'"; return 1 ;; esac
}
for c in "pkt_size abc:min_pkt_size" "count -1:count" "dst_mac zz:zz:dst_mac"; do
	if pg_is_ours; then
		check "ours: '${c%:*}': EINVAL, value kept, no OK Result" ours_refuses "${c%:*}" "${c##*:}"
	else
		ktap_skip "ours: '${c%:*}': EINVAL, value kept, no OK Result" "stock accepts it"
	fi
done

# --- thread file
check "thread: every prefix of forsureawrongcommand: EINVAL" \
	prefixes_einval "$T0" forsureawrongcommand
check "thread: Result unchanged by unknown commands (ours: names it)" \
	res_is "$T0" "$(ours_or "OK: add_device=va" 'No such parameter "forsureawrongcommand"')"
check "thread: max_before_softir (truncated): EINVAL" \
	pg_write_is "$N" "$EINVAL" "$T0" max_before_softir
MBS="OK: Note! max_before_softirq is obsoleted -- Do not use"
check "thread: max_before_softirq: OK + obsolete note" \
	w_res 0 "$T0" max_before_softirq "$MBS"
check "thread: max_before_softirq + NUL: OK + obsolete note" \
	wr_res 0 "$T0" 'max_before_softirq\0' "$MBS"

# --- pgctrl (no Result line)
junk=$(printf 'x%.0s' $(seq 130))
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
pgctrl_einval() {
	local w
	for w in 'Start\n' 'start \n' 'start\n\n' '' "$1" "$1\n" 'foo\n'; do
		wr_is "$EINVAL" pgctrl "$w" || return 1
	done
}
check "pgctrl: Start, 'start ', start+2 newlines, 130 bytes, empty: EINVAL" \
	pgctrl_einval "$junk"
check "pgctrl: stop\\n accepted" wr_is 0 pgctrl 'stop\n'
check "pgctrl: stop\\0 accepted" wr_is 0 pgctrl 'stop\0'
if hardened; then
	check "pgctrl: stop (no newline) accepted" wr_is 0 pgctrl 'stop'
else
	check "pgctrl: stop (no newline): EINVAL on stock < 6.15" \
		wr_is "$EINVAL" pgctrl 'stop'
fi

# --- the later commands: errno, Result, configuration unchanged
params_of() {	# DEV: its Params block (the lines before "Current:")
	local t
	t=$(in_ns "$N" pg_read "$1") || return 1
	printf '%s\n' "${t%%$'\n'Current:*}"
}
# landed RESULT: false if it says the command or flag does not exist yet
not_landed() { [[ "$1" == "No such parameter"* || "$1" == "Flag -:"* ]]; }
new_case() {	# DEV SETUP CMD ERRNO RESULT: prints "SKIP why" or a failure
	local dev=$1 c rc=0 before after res arr
	pg_write_is "$N" 0 "$T0" "add_device $dev" >/dev/null || { echo "add_device $dev failed"; return 1; }
	IFS=';' read -ra arr <<<"$2"
	for c in "${arr[@]}"; do
		in_ns "$N" pg_write "$dev" "$c" || rc=$?
		res=$(in_ns "$N" pg_result "$dev")
		not_landed "$res" && { echo "SKIP not landed: $res"; return 0; }
		[ "$rc" -eq 0 ] || { echo "setup '$c': errno $rc, Result '$res'"; return 1; }
	done
	before=$(params_of "$dev")
	in_ns "$N" pg_write "$dev" "$3" || rc=$?
	res=$(in_ns "$N" pg_result "$dev")
	not_landed "$res" && { echo "SKIP not landed: $res"; return 0; }
	after=$(params_of "$dev")
	# shellcheck disable=SC2053 # RESULT is a glob
	[ "$rc" -eq "$4" ] && [[ "$res" == $5 ]] && [ "$before" = "$after" ] && return 0
	echo "'$3': errno $rc (want $4), Result '$res' (want '$5')"
	[ "$before" = "$after" ] ||
		diff -u <(echo "$before") <(echo "$after") | tail -n +3 | sed 's/^/params: /'
	return 1
}
run_new_cases() {
	local line d s c e r out n=0
	declare -A E=([EINVAL]="$EINVAL" [E2BIG]=7 [EOPNOTSUPP]=$EOPNOTSUPP)
	while IFS='|' read -r d s c e r; do
		read -r d <<<"$d"; read -r s <<<"$s"; read -r c <<<"$c"
		read -r e <<<"$e"; read -r r <<<"$r"
		printf -v r '%b' "$r"
		if ! pg_is_ours; then
			ktap_skip "$c after '$s': $e" "ours only (stock < v6.15 accepts it or differs)"
			continue
		fi
		n=$((n + 1))	# not inside $(...): a subshell would not count
		out=$(new_case "$d@$n" "$s" "$c" "${E[$e]}" "$r")
		case $? in
		0) if [[ "$out" == SKIP* ]]; then
			ktap_skip "$c after '$s': $e" "${out#SKIP }"
		   else
			ktap_pass "$c after '$s': $e"
		   fi ;;
		*) ktap_fail "$c after '$s': $e" "$out" ;;
		esac
	done < <(new_cases)
}
run_new_cases

# --- capabilities: root of a child user namespace lacks CAP_NET_ADMIN
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
userns_write() {	# FILE CMD: write "CMD\n" as root of a new user ns
	_pgw_init
	if [ "$_PGW" = python ]; then
		printf '%s\n' "$2" | ip netns exec "$N" unshare -U -r /usr/bin/python3 -S -c "$_PGW_PY" "$PG_PROC/$1"
	else
		printf '%s\n' "$2" | ip netns exec "$N" unshare -U -r "$_PGW" "$PG_PROC/$1"
	fi
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
un_is() {	# ERRNO FILE CMD
	local rc=0
	userns_write "$2" "$3" || rc=$?
	[ "$rc" -eq "$1" ] && return 0
	echo "userns write '$3' to $2: errno $rc, want $1"
	return 1
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
pgctrl_eperm() {
	local c
	for c in stop start reset foo ""; do
		un_is "$EPERM" pgctrl "$c" || return 1
	done
}
check "userns root: every pgctrl write: EPERM" pgctrl_eperm
in_ns "$N" pg_set dum0 "count 1000"
if pg_is_ours; then
	want="$EPERM"
else
	want=0	# stock checks no capability on thread and device files
fi
check "userns root: thread write errno $want" \
	un_is $want "$T0" max_before_softirq
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
un_dev() {
	un_is "$1" dum0 "count 5" || return 1
	if [ "$1" -eq 0 ]; then res_is dum0 "OK: count=5"; else res_is dum0 "OK: count=1000"; fi
}
check "userns root: device write errno $want (Result follows)" un_dev $want

in_ns "$N" pg_write pgctrl reset
pg_unload
ktap_finish
