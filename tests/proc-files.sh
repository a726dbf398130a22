#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /proc/net/pktgen layout and texts: the per-netns directory, file modes,
# the pgctrl and kpktgend_<cpu> texts (exact bytes, trailing spaces
# included), add_device naming (dev@N) and errors, rem_device_all, pgctrl
# reset, namespace isolation and removal on module unload.  The expected
# texts are those of the stock module (6.1 and 6.12).
#
#   netns $NS:  dum0 (dummy, up)   dum1 (dummy, DOWN)
#               kpktgend_<first cpu> <- dum0, kpktgend_<last cpu> <- dum0@1
#   netns $NS2: dum0 (dummy, up)   (its own, independent /proc/net/pktgen)
. "$(dirname "$0")/lib/lib.sh"

EBUSY=16 ENODEV=19 ENETDOWN=100
BANNER="Packet Generator for packet performance testing. Version: 2.75"

ktap_header
ktap_plan 33

# The helpers act in the netns $N (pg_* through in_ns do not fork a shell).
# is FILE TEXT: the file's bytes are exactly TEXT plus one newline.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
is() {
	local got
	got=$(in_ns "$N" pg_read "$1" && echo x) || return 1
	got=${got%x}
	[ "$got" = "$2"$'\n' ] && return 0
	echo "--- want $1 / +++ got"
	diff -u <(printf '%s\n' "$2") <(printf '%s' "$got") | tail -n +3
	return 1
}

line2() {	# FILE: its second line
	local t
	t=$(in_ns "$N" pg_read "$1") || return 1
	t=${t#*$'\n'}
	printf '%s\n' "${t%%$'\n'*}"
}

# add_err ERRNO THREAD NAME: add_device NAME fails with ERRNO and sets the
# thread's Result to "ERROR: can not add device NAME", listing unchanged.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
add_err() {
	local before want
	before=$(line2 "$2")
	pg_write_is "$N" "$1" "$2" "add_device $3" || return 1
	is "$2" "Running: "$'\n'"$before"$'\n'"Result: ERROR: can not add device $3"
}

listing() { ip netns exec "$N" ls "$PG_PROC" | sort; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
listing_is() { [ "$1" = "$(listing)" ]; }

cpus() {	# expand /sys/devices/system/cpu/online ("0-1,3") into a list
	local r
	for r in $(tr ',' ' ' </sys/devices/system/cpu/online); do
		seq "${r%-*}" "${r#*-}"
	done
}

if ! pg_load; then
	ktap_fail "module loads"
	ktap_finish
fi
ktap_pass "module loads"

mapfile -t CPUS < <(cpus)
T0=kpktgend_${CPUS[0]} TL=kpktgend_${CPUS[-1]}

setup_ns NS
dummy_create "$NS" dum0
ip -n "$NS" link add dum1 type dummy	# stays down
ip netns exec "$NS" sysctl -qw net.ipv6.conf.dum1.disable_ipv6=1

# the files of a netns without devices: pgctrl, the threads, and ours'
# own (the receiver, the key=value view)
base_files() {
	{
		echo pgctrl
		printf 'kpktgend_%s\n' "${CPUS[@]}"
		pg_own_files
		[ $# -eq 0 ] || printf '%s\n' "$@"
	} | sort
}

# --- layout
want=$(base_files)
N=$NS
in_ns "$N" pg_read pgctrl >/dev/null	# starts lib's write helper (no fork later)
have=$(listing)
check "netns dir: pgctrl + kpktgend_<cpu> for each online cpu (+ ours)" \
	test "$want" = "$have"
[ "$want" = "$have" ] || echo "# want: ${want//$'\n'/ } / have: ${have//$'\n'/ }"

modes() { ip netns exec "$N" sh -c "cd $PG_PROC && stat -c '%a %n' -- *" | sort -k2; }
# shellcheck disable=SC2046 # one word a file
want=$(printf '600 %s\n' $(listing) | sort -k2)
check "every file is mode 0600" test "$want" = "$(modes)"

check "pgctrl text" is pgctrl "$BANNER"

THR0=$'Running: \nStopped: \nResult: NA'
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
thr_ok() {	# FILE "DEVS " RESULT
	is "$1" "Running: "$'\n'"Stopped: $2"$'\n'"Result: $3"
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
all_threads_fresh() {
	local t
	for t in "$@"; do
		is "$t" "$THR0" || return 1
	done
}
check "every thread file is fresh: 'Result: NA'" \
	all_threads_fresh "${CPUS[@]/#/kpktgend_}"

# --- add_device and dev@N
check "add_device dum0 on $T0" pg_write_is "$N" 0 "$T0" "add_device dum0"
check "$T0 text after add_device" \
	thr_ok "$T0" "dum0 " "OK: add_device=dum0"
check "device file dum0 exists, mode 0600" \
	test "$(ip netns exec "$N" stat -c %a "$PG_PROC/dum0")" = 600
dev_ifname() { local l; l=$(line2 "$1") && echo "${l##*  ifname: }"; }
check "dum0 Params show ifname: dum0" test "$(dev_ifname dum0)" = dum0

check "add_device dum0@1 on $TL" pg_write_is "$N" 0 "$TL" "add_device dum0@1"
if [ "$TL" = "$T0" ]; then
	check "$TL lists both (newest first)" \
		thr_ok "$TL" "dum0@1 dum0 " "OK: add_device=dum0@1"
else
	check "$TL text after add_device dum0@1" \
		thr_ok "$TL" "dum0@1 " "OK: add_device=dum0@1"
fi
check "device file dum0@1 exists with ifname: dum0@1" \
	test "$(dev_ifname dum0@1)" = dum0@1
check "dum0 and dum0@1 are independent devices" ip netns exec "$N" sh -c \
	"echo 'count 77' >$PG_PROC/dum0@1 && grep -q '^Params: count 77 ' $PG_PROC/dum0@1 &&
	 grep -q '^Params: count 1000 ' $PG_PROC/dum0"
check "add_device lo on $TL (loopback is accepted)" \
	pg_write_is "$N" 0 "$TL" "add_device lo"

# --- add_device errors
check "add_device of a missing device: ENODEV + ERROR Result" \
	add_err $ENODEV "$T0" nosuch0
check "add_device duplicate (same thread): EBUSY + ERROR Result" \
	add_err $EBUSY "$T0" dum0
check "add_device duplicate (other thread): EBUSY + ERROR Result" \
	add_err $EBUSY "$TL" dum0
check "add_device duplicate dev@N name: EBUSY + ERROR Result" \
	add_err $EBUSY "$T0" dum0@1
check "add_device of a down device: ENETDOWN + ERROR Result" \
	add_err $ENETDOWN "$T0" dum1
check "no proc file for failed add_device" \
	test "$(listing | grep -c -e nosuch0 -e dum1)" = 0

# --- rem_device_all
check "rem_device_all on $TL" pg_write_is "$N" 0 "$TL" "rem_device_all"
# the thread removes its devices asynchronously: let it catch up
slowwait 10 thr_ok "$TL" "" "OK: rem_device_all"
check "$TL text after rem_device_all" thr_ok "$TL" "" "OK: rem_device_all"
if [ "$TL" = "$T0" ]; then
	want=$(base_files)
else
	want=$(base_files dum0)
fi
check "rem_device_all removed exactly that thread's device files" \
	test "$want" = "$(listing)"

# --- a second netns is independent
setup_ns NS2
dummy_create "$NS2" dum0
N=$NS2
want=$(base_files)
check "second netns has its own fresh directory" \
	test "$want" = "$(listing)"
check "second netns thread files are fresh" \
	all_threads_fresh "${CPUS[@]/#/kpktgend_}"
check "second netns cannot add the first netns' dum1: ENODEV" \
	add_err $ENODEV "$T0" dum1
check "second netns adds its own dum0 on $T0" \
	pg_write_is "$N" 0 "$T0" "add_device dum0"
check "second netns' dum0 is its own (count not shared)" sh -c \
	"ip netns exec $NS2 sh -c 'echo count 5 >$PG_PROC/dum0' &&
	 ip netns exec $NS2 grep -q '^Params: count 5 ' $PG_PROC/dum0 &&
	 { ip netns exec $NS test ! -e $PG_PROC/dum0 ||
	   ip netns exec $NS grep -q '^Params: count 1000 ' $PG_PROC/dum0; }"

# --- pgctrl reset
N=$NS
pg_write_is "$N" 0 "$TL" "add_device dum0@2" >/dev/null
check "pgctrl reset in the first netns" pg_write_is "$N" 0 pgctrl reset
want=$(base_files)
slowwait 10 listing_is "$want"
check "reset removed every device file of that netns" \
	test "$want" = "$(listing)"
check "reset left the second netns' device alone" \
	ip netns exec "$NS2" test -e "$PG_PROC/dum0"
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
dev_list_empty() {
	local t
	for t in "$@"; do
		[ "$(line2 "$t")" = "Stopped: " ] || { in_ns "$N" pg_read "$t"; return 1; }
	done
}
check "after reset no thread lists a device" \
	dev_list_empty "${CPUS[@]/#/kpktgend_}"

# --- unload (NS2 still has a device)
pg_unload
check "module unload removes /proc/net/pktgen in every netns" \
	sh -c "[ ! -e $PG_PROC ] && ip netns exec $NS test ! -e $PG_PROC &&
	       ip netns exec $NS2 test ! -e $PG_PROC"

ktap_finish
