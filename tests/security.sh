#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Who may touch /proc/net/pktgen, and what reads show:
#  - an unprivileged user can neither read nor write any file (0600);
#  - root without CAP_NET_ADMIN (bounding set) and the root of a child
#    user namespace get EPERM on every write, and nothing changes;
#  - a user namespace's own netns, made with it or after it: the files
#    there belong to the real root (0600); an unprivileged user cannot
#    open them, root's child namespace gets EPERM on every write (pktgen
#    needs CAP_NET_ADMIN in the initial user namespace), nothing is sent;
#  - every file, read idle, configured, during and after a run, with the
#    receiver and the classifier on, is printable text without anything
#    that looks like a kernel pointer.
#
#   netns $NS: d0 (dummy), v0 -- veth -- v1 (netns $NS2)
. "$(dirname "$0")/lib/lib.sh"

ktap_header
ktap_plan 13

if ! pg_load || ! ipo_load; then
	ktap_fail "modules load (pktgen, pf_ipoption)"
	ktap_finish
fi
ktap_pass "module loads"
_pgw_init
tmp=$(lib_tmpdir)
setup_ns NS
setup_ns NS2
dummy_create "$NS" d0
veth_create "$NS" v0 "$NS2" v1
EPERM=1 EACCES=13

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_set kpktgend_0 "add_device d0" && pg_set d0 "count 0" &&
		pg_set d0 "dst_mac 02:00:00:00:00:01" &&
		pg_set kpktgend_1 "add_device v0" && pg_set v0 "count 200" &&
		pg_set v0 "dst 10.0.0.2" && pg_set v0 "dst_mac 02:00:00:00:00:02"
}
check "configure d0 and v0" in_ns "$NS" setup

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
files() { ip netns exec "$NS" ls "$PG_PROC"; }
# the files without a write method (proc answers a write with EIO)
READ_ONLY="pgstats pgrx_samples"

# serve PREFIX...: lib.sh's write helper as a server in $NS, run under
# PREFIX (setpriv, unshare): requests on stdin, replies on stdout.  One
# process for all of a check's requests: a process per write costs
# ~0.1 s under TCG, and these checks make a few hundred.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
serve() { ip netns exec "$NS" "$@" "$_PGW" -s 2>/dev/null; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
request() {	# W|R FILE [CMD]: append a request to REQ, its label to LABELS
	local LC_ALL=C data=${3:+$3$'\n'}
	REQ+="$1 - $PG_PROC/$2 ${#data}"$'\n'"$data"
	# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
	LABELS+=("$2${3:+ '$3'}")
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
replies() {	# the replies to REQ: "== LABEL ERRNO" each (ERRNO "none":
		# no reply), a read's text after its line
	local LC_ALL=C rc len text n=0
	while read -r rc len; do
		text=""
		[ "$len" -gt 0 ] && IFS= read -r -N "$len" text
		echo "== ${LABELS[n]} $rc"
		[ -n "$text" ] && printf '%s\n' "$text"
		n=$((n + 1))
	done
	for ((; n < ${#LABELS[@]}; n++)); do
		echo "== ${LABELS[n]} none"
	done
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
snapshot() {	# the text of every file but pgstats (its counters move)
	local f REQ="" LABELS=()
	for f in $(files); do
		[ "$f" = pgstats ] || request R "$f"
	done
	serve < <(printf '%s' "$REQ") | replies
}

# every write of CMDS to every file with PREFIX... fails with ERRNO
# (ERRNO 13: the open already) and the state is unchanged
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
writes_refused() {	# ERRNO PREFIX...
	local want=$1 f c rc line before after bad=0 REQ="" LABELS=()
	shift
	before=$(snapshot)
	if ! grep -q '^== .* 0$' <<<"$before" || grep -q '^== .* none$' <<<"$before"; then
		echo "no snapshot of the files: $before"
		return 1
	fi
	for f in $(files); do
		for c in "count 5" "add_device d0" start reset "rx v0" on; do
			request W "$f" "$c"
		done
	done
	while IFS= read -r line; do
		line=${line#== } rc=${line##* } f=${line%% *}
		[ "$rc" = "$want" ] && continue
		# the read-only files have no write method at all (EIO once
		# open): refused all the same
		case " $READ_ONLY " in
		*" $f "*) [ "$rc" != 0 ] && [ "$rc" != none ] && continue ;;
		esac
		echo "${line% *}: errno $rc, want $want"
		bad=1
	done < <(serve "$@" < <(printf '%s' "$REQ") | replies)
	after=$(snapshot)
	[ "$before" = "$after" ] || { echo "state changed:"; diff <(echo "$before") <(echo "$after"); bad=1; }
	return "$bad"
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
reads_refused() {	# PREFIX...: no file can be read
	local f line bad=0 REQ="" LABELS=()
	for f in $(files); do
		request R "$f"
	done
	while IFS= read -r line; do
		case $line in
		"== "*" 0") echo "${line% *} readable" ;;
		"== "*" none") echo "${line% *}: no reply" ;;
		*) continue ;;
		esac
		bad=1
	done < <(serve "$@" < <(printf '%s' "$REQ") | replies)
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

# A user namespace's own netns: pktgen is not a tool to hand to every
# user (kernel threads spinning outside any cgroup), nor to the root of a
# user namespace.  The files there belong to the initial root (0600) in
# both orders of making the namespaces: with the uid map written before
# the netns is made, proc would give them to the namespace's root.  An
# unprivileged user cannot open them (EACCES); root's child namespace
# can, and every write is EPERM (no CAP_NET_ADMIN in the initial user
# namespace).  The review's recipe: add_device lo, count, start.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
lo_tx() {	# /sys shows the netns it was mounted in: from /proc/net/dev
	sed 's/:/ /' /proc/net/dev | awk '$1 == "lo" {print $11}'
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
userns_denied() {	# ERRNO OWNER: what every write gets, the files' uid seen here
	local want=$1 owner=$2 f c rc tx bad=0
	[ -e "$PG_PROC/pgctrl" ] || { echo "no $PG_PROC in the new netns"; return 1; }
	ip link set lo up || return 1
	tx=$(lo_tx)
	for c in "kpktgend_0 add_device lo" "lo count 3000" "lo inject" "pgctrl start" \
		 "pgrx rx lo" "$IPOPT on" "kpktgend_1 rem_device_all" "pgctrl reset"; do
		f=${c%% *} rc=0
		[ "$f" = lo ] && [ ! -e "$PG_PROC/lo" ] && continue
		pg_write "$f" "${c#* }" 2>/dev/null || rc=$?
		[ "$rc" -eq "$want" ] || { echo "'$c': errno $rc, want $want"; bad=1; }
	done
	[ -e "$PG_PROC/lo" ] && { echo "a file lo was made"; bad=1; }
	for f in "$PG_PROC" "$PG_PROC"/* "$IPOPT"; do
		[ "$(stat -c %u "$f")" = "$owner" ] ||
			{ echo "$f: owner $(stat -c %u "$f"), want $owner"; bad=1; }
	done
	tx=$(( $(lo_tx) - tx ))
	[ "$tx" -lt 100 ] || { echo "lo sent $tx packets"; bad=1; }
	# root's case only: the test's scratch directory is not nobody's
	[ "$owner" = 0 ] && ls "$PG_PROC" >"$UNS_FILES"
	return "$bad"
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
userns_case() {	# together|netns-after [nobody]
	local user=() want=$EPERM owner=0 inner
	if [ "${2:-}" = nobody ]; then
		# the initial root is unmapped there: it shows as the overflow uid
		user=("${NOBODY[@]}") want=$EACCES owner=65534
	fi
	export UNS_FILES=$tmp/uns-files
	# shellcheck disable=SC2090 # declare -p quotes it for the inner shell
	inner="$(declare -f); $(declare -p LIB_DIR PG_PROC IPOPT _PGW _PGW_PY EACCES EPERM); _PGS_TOK=- _PG_NS=''; userns_denied $want $owner"
	# shellcheck disable=SC2016 # $0: the inner shell's
	case $1 in
	together) "${user[@]}" unshare -U -r -n bash -c "$inner" ;;
	netns-after) "${user[@]}" unshare -U -r bash -c 'exec unshare -n bash -c "$0"' "$inner" ;;
	esac
}
check "root's user namespace, netns made with it (unshare -U -r -n): every write EPERM, nothing sent" \
	userns_case together
check "root's user namespace, then a netns in it (unshare -U -r; unshare -n): every write EPERM" \
	userns_case netns-after
if command -v setpriv >/dev/null && "${NOBODY[@]}" unshare -U -r -n true 2>/dev/null; then
	check "an unprivileged user's user+net namespace (unshare -U -r -n): files there, none can be opened" \
		userns_case together nobody
	check "an unprivileged user's user namespace, then a netns in it: files owned by the real root, EACCES" \
		userns_case netns-after nobody
else
	ktap_skip "an unprivileged user's user+net namespace" "unprivileged user namespaces are off"
	ktap_skip "an unprivileged user's user namespace, then a netns" "unprivileged user namespaces are off"
fi
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "the namespaces' files do not show each other's devices" \
	eval '! grep -qx d0 "$tmp/uns-files" && ! files | grep -qx lo'

# reads: text only, no kernel pointers
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
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
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
all_text_ok() {	# LABEL
	local f bad=0
	for f in $(files); do
		text_ok "$f" "$1" || bad=1
	done
	return "$bad"
}
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
reads_clean() {
	local pid
	all_text_ok configured || return 1
	_PG_NS=$NS2 pg_set pgrx "rx v1" 2>/dev/null
	_PG_NS=$NS pg_set "$IPOPT" on 2>/dev/null
	timeout -s INT 20 ip netns exec "$NS" sh -c 'echo start > /proc/net/pktgen/pgctrl' &
	pid=$!
	sleep 1
	all_text_ok running || { kill -INT "$pid"; return 1; }
	_PG_NS=$NS pg_write pgctrl stop
	slowwait 15 pid_gone "$pid" || return 1
	all_text_ok "after the run" || return 1
	NS=$NS2 all_text_ok "receiver, after the run"
}
check "every file, configured, running, after a run: text, no kernel pointers" reads_clean

# the same write in another netns does not reach this one's devices
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
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
