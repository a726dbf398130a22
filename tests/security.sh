#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Who may touch /proc/net/pktgen, and what reads show:
#  - an unprivileged user can neither read nor write any file (0600);
#  - root without CAP_NET_ADMIN (bounding set) and the root of a child
#    user namespace get EPERM on every write, and nothing changes;
#  - root's child user namespace with its own netns has CAP_NET_ADMIN
#    there: it drives pktgen on its own devices, and cannot see the
#    devices of another netns;
#  - an unprivileged user's own user+net namespace: the files (owned by
#    the real root, 0600) cannot be opened;
#  - every file, read idle, configured, during and after a run, with the
#    receiver and the classifier on, is printable text without anything
#    that looks like a kernel pointer.
#
#   netns $NS: d0 (dummy), v0 -- veth -- v1 (netns $NS2)
. "$(dirname "$0")/lib/lib.sh"

ktap_header
ktap_plan 11

if ! pg_load; then
	ktap_fail "module loads"
	ktap_finish
fi
ktap_pass "module loads"
_pgw_init
tmp=$(lib_tmpdir)
ns_create NS
ns_create NS2
dummy_create "$NS" d0
veth_create "$NS" v0 "$NS2" v1
EPERM=1 EACCES=13 ENODEV=19

setup() {
	pg_set kpktgend_0 "add_device d0" && pg_set d0 "count 0" &&
		pg_set d0 "dst_mac 02:00:00:00:00:01" &&
		pg_set kpktgend_1 "add_device v0" && pg_set v0 "count 200" &&
		pg_set v0 "dst 10.0.0.2" && pg_set v0 "dst_mac 02:00:00:00:00:02"
}
check "configure d0 and v0" in_ns "$NS" setup

files() { ip netns exec "$NS" ls "$PG_PROC"; }
snapshot() {	# the text of every file but pgstats (its counters move)
	local f
	for f in $(files); do
		[ "$f" = pgstats ] && continue
		echo "== $f"
		_PG_NS=$NS pg_read "$f"
	done
}

# every write of CMDS to every file with PREFIX... fails with ERRNO
# (ERRNO 13: the open already) and the state is unchanged
writes_refused() {	# ERRNO PREFIX...
	local want=$1 f c rc before after bad=0
	shift
	before=$(snapshot)
	for f in $(files); do
		for c in "count 5" "add_device d0" start reset "rx v0" on; do
			rc=0
			printf '%s\n' "$c" |
				ip netns exec "$NS" "$@" "$_PGW" "$PG_PROC/$f" 2>/dev/null || rc=$?
			[ "$rc" -eq "$want" ] && continue
			# pgstats has no write method at all (EIO once open)
			[ "$f" = pgstats ] && [ "$rc" -ne 0 ] && continue
			echo "$f '$c': errno $rc, want $want"
			bad=1
		done
	done
	after=$(snapshot)
	[ "$before" = "$after" ] || { echo "state changed:"; diff <(echo "$before") <(echo "$after"); bad=1; }
	return "$bad"
}
reads_refused() {	# PREFIX...: no file can be read
	local f bad=0
	for f in $(files); do
		ip netns exec "$NS" "$@" cat "$PG_PROC/$f" >/dev/null 2>&1 || continue
		echo "$f readable"
		bad=1
	done
	return "$bad"
}

NOBODY=(setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps=-all)
NOADMIN=(setpriv --bounding-set=-net_admin --inh-caps=-net_admin)
if command -v setpriv >/dev/null; then
	check "unprivileged user: every open for writing fails (EACCES)" \
		writes_refused $EACCES "${NOBODY[@]}"
	check "unprivileged user: no file can be read" reads_refused "${NOBODY[@]}"
	check "root without CAP_NET_ADMIN: every write is EPERM, nothing changes" \
		writes_refused $EPERM "${NOADMIN[@]}"
else
	for c in "unprivileged user: writes" "unprivileged user: reads" "root without CAP_NET_ADMIN"; do
		ktap_skip "$c" "no setpriv"
	done
fi
check "root of a child user namespace: every write is EPERM, nothing changes" \
	writes_refused $EPERM unshare -U -r

# the owner of a user namespace with its own netns: pktgen works there,
# on its devices only
u0_tx() {	# /sys shows the netns it was mounted in: from /proc/net/dev
	sed 's/:/ /' /proc/net/dev | awk '$1 == "u0" {print $11}'
}
userns_netns() {
	local tx
	[ -e "$PG_PROC/pgctrl" ] || { echo "no $PG_PROC in the new netns"; return 1; }
	# IPv6 off before up: its DAD and MLD packets would count as sent
	ip link set lo up && ip link add u0 type dummy &&
		sysctl -qw net.ipv6.conf.u0.disable_ipv6=1 && ip link set u0 up || return 1
	pg_set kpktgend_0 "add_device u0" && pg_set u0 "count 300" &&
		pg_set u0 "dst_mac 02:00:00:00:00:03" || return 1
	tx=$(u0_tx)
	pg_write pgctrl start || { echo "start: errno $?"; return 1; }
	tx=$(( $(u0_tx) - tx ))
	[ "$tx" -eq 300 ] || { echo "u0 sent $tx, want 300"; return 1; }
	pg_write kpktgend_0 "add_device d0"
	rc=$?
	[ "$rc" -eq $ENODEV ] || { echo "add_device d0 (another netns's): errno $rc, want ENODEV"; return 1; }
	ls "$PG_PROC" >"$UNS_FILES"
}
# an unprivileged user's own user and network namespace: the files are
# there but owned by the real root (0600), so they cannot even be opened:
# pktgen is not a tool to hand to every user (kernel threads spinning)
userns_netns_denied() {
	local f rc
	for f in pgctrl kpktgend_0 pgrx ipopt; do
		[ -e "$PG_PROC/$f" ] || { echo "no $PG_PROC/$f"; return 1; }
		rc=0
		pg_write "$f" stop || rc=$?
		[ "$rc" -eq $EACCES ] || { echo "write to $f: errno $rc, want EACCES"; return 1; }
		cat "$PG_PROC/$f" >/dev/null 2>&1 && { echo "$f readable"; return 1; }
	done
	return 0
}
userns_case() {	# [nobody]
	local user=() fn=userns_netns
	[ "${1:-}" = nobody ] && user=("${NOBODY[@]}") fn=userns_netns_denied
	export UNS_FILES=$tmp/uns-files
	"${user[@]}" unshare -U -r -n bash -c "$(declare -f); $(declare -p LIB_DIR PG_PROC _PGW _PGW_SRC _PGW_PY EACCES ENODEV); _PGS_TOK=- _PG_NS=''; $fn"
}
check "root's user namespace with its own netns: pktgen on its own device, another netns's is ENODEV" \
	userns_case
if command -v setpriv >/dev/null && "${NOBODY[@]}" unshare -U -r -n true 2>/dev/null; then
	check "an unprivileged user's own user+net namespace: files there, none can be opened" \
		userns_case nobody
else
	ktap_skip "an unprivileged user's own user+net namespace" "unprivileged user namespaces are off"
fi
check "the namespaces' files do not show each other's devices" \
	eval '! grep -qx d0 "$tmp/uns-files" && ! files | grep -qx u0'

# reads: text only, no kernel pointers
text_ok() {	# FILE LABEL
	local t
	t=$(_PG_NS=$NS pg_read "$1" | LC_ALL=C tr -d '\n\t -~' | wc -c)
	[ "$t" -eq 0 ] || { echo "$2: $1 has $t non-text bytes"; return 1; }
	if _PG_NS=$NS pg_read "$1" | grep -Eiq '(^|[^0-9a-f])ffff[0-9a-f]{12}([^0-9a-f]|$)'; then
		echo "$2: $1 shows a kernel-pointer-like value:"
		_PG_NS=$NS pg_read "$1" | grep -Ei 'ffff[0-9a-f]{12}'
		return 1
	fi
}
all_text_ok() {	# LABEL
	local f bad=0
	for f in $(files); do
		text_ok "$f" "$1" || bad=1
	done
	return "$bad"
}
pid_gone() { ! kill -0 "$1" 2>/dev/null; }
reads_clean() {
	local pid
	all_text_ok configured || return 1
	_PG_NS=$NS2 pg_set pgrx "rx v1" 2>/dev/null
	_PG_NS=$NS pg_set ipopt on 2>/dev/null
	timeout -s INT 20 ip netns exec "$NS" sh -c 'echo start > /proc/net/pktgen/pgctrl' &
	pid=$!
	sleep 1
	all_text_ok running || { kill -INT "$pid"; return 1; }
	_PG_NS=$NS pg_write pgctrl stop
	wait_until 15 pid_gone "$pid" || return 1
	all_text_ok "after the run" || return 1
	NS=$NS2 all_text_ok "receiver, after the run"
}
check "every file, configured, running, after a run: text, no kernel pointers" reads_clean

# the same write in another netns does not reach this one's devices
other_ns_untouched() {
	local before after
	before=$(_PG_NS=$NS pg_read d0)
	_PG_NS=$NS2 pg_write d0 "count 7" && { echo "d0 exists in $NS2"; return 1; }
	_PG_NS=$NS2 pg_write pgctrl reset
	after=$(_PG_NS=$NS pg_read d0)
	[ -n "$after" ] && [ "$before" = "$after" ] && return 0
	diff <(echo "$before") <(echo "$after")
	return 1
}
check "another netns's reset and writes leave this netns's devices alone" other_ns_untouched

ktap_finish
