# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Test library for the pktgen tests.  A test sources it with
#	. "$(dirname "$0")/lib/lib.sh"
# and prints KTAP through the ktap_* / check helpers.  Where kselftest's
# net/lib.sh has a helper (setup_ns, cleanup_ns, busywait, slowwait,
# busywait_for_counter, defer), ours has its name and meaning.  Everything
# a test sets up is undone by the EXIT trap installed here (defer,
# setup_ns).
# Safe under `set -u`.  Each helper's comment gives its use; an overview
# is in Documentation/testing.rst, "Adding a test".

LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PCAP_PY="$LIB_DIR/pcap.py"
PG_PROC=/proc/net/pktgen
# the IPv4 option classifier of pf_ipoption.ko (a FILE of pg_* as it is)
IPOPT=/proc/net/ipopt
# the tests' C programs, built by `make helpers` (tests/lib/build-all.sh)
PG_HELPERS=${PG_HELPERS:-$(cd "$LIB_DIR/../.." && pwd)/build/helpers}

# ---------------------------------------------------------------- KTAP
_KT_N=0 _KT_PASS=0 _KT_FAIL=0 _KT_SKIP=0 _KT_PLAN=""

ktap_header() { echo "TAP version 13"; }
ktap_plan() { _KT_PLAN=$1; echo "1..$1"; }
ktap_diag() {	# MSG: each line as a "# " diagnostic
	local l
	[ -n "${1:-}" ] || return 0
	while IFS= read -r l; do echo "# $l"; done <<<"$1"
}
ktap_pass() { _KT_N=$((_KT_N + 1)) _KT_PASS=$((_KT_PASS + 1)); echo "ok $_KT_N $1"; }
# KTAP_FAIL_FAST=1 (make check-mutants): the test ends at its first
# failure, which is all a mutant's judge needs
ktap_fail() {
	_KT_N=$((_KT_N + 1)) _KT_FAIL=$((_KT_FAIL + 1))
	ktap_diag "${2:-}"
	echo "not ok $_KT_N $1"
	if [ "${KTAP_FAIL_FAST:-0}" = 1 ] && [ "$BASHPID" = "${_LIB_TMP_OWNER:-}" ]; then
		echo "# KTAP_FAIL_FAST: stopped at the first failure"
		exit 1
	fi
}
ktap_skip() { _KT_N=$((_KT_N + 1)) _KT_SKIP=$((_KT_SKIP + 1)); echo "ok $_KT_N $1 # SKIP ${2:-}"; }
_ktap_skip_left() {	# NAME WHY
	while [ "$_KT_N" -lt "$_KT_PLAN" ]; do ktap_skip "$1 ($((_KT_N + 1)))" "$2"; done
}
# ktap_skip_rest NAME WHY: skip the rest of the plan ("NAME (N)"), finish
ktap_skip_rest() {
	_ktap_skip_left "$@"
	ktap_finish
}
# ktap_not_reached N NAME...: fail the first N of NAMEs, subtests an
# earlier error kept from running
ktap_not_reached() {
	local n=$1
	shift
	while [ "$n" -gt 0 ] && [ $# -gt 0 ]; do
		ktap_fail "$1" "not reached"
		shift
		n=$((n - 1))
	done
}
# ktap_skip_all NAME WHY: a host test that cannot run here: the rest of
# its plan skipped, its counts line, exit 4 (skipped) if nothing ran
ktap_skip_all() {
	_ktap_skip_left "$@"
	echo "$_KT_PASS passed, $_KT_FAIL failed, $_KT_SKIP skipped"
	ktap_finish
}

# check NAME CMD...: pass if CMD exits 0, else fail showing its output.
check() {
	local name=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" -eq 0 ]; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "$(printf '%s\n[exit %d: %s]' "$out" "$rc" "$*")"
	fi
	return 0
}

# check_here NAME CMD...: like check, but CMD runs in this shell, so the
# variables it sets stay (and no fork: 0.1-1 s under a loaded TCG host).
check_here() {
	local name=$1 rc=0
	shift
	lib_tmpdir >/dev/null
	"$@" >"$_LIB_TMP/check.out" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "$(cat "$_LIB_TMP/check.out"; echo "[exit $rc: $*]")"
	fi
	return 0
}

# Exit 0 if no subtest failed, 1 otherwise, 4 if every subtest skipped.
ktap_finish() {
	local rc=0
	if [ -z "$_KT_PLAN" ]; then
		echo "1..$_KT_N"
	elif [ "$_KT_PLAN" != "$_KT_N" ]; then
		echo "# plan was $_KT_PLAN subtests but $_KT_N ran"
		rc=1
	fi
	echo "# totals: pass:$_KT_PASS fail:$_KT_FAIL skip:$_KT_SKIP"
	if [ "$_KT_FAIL" -gt 0 ] || [ "$_KT_N" -eq 0 ]; then
		rc=1
	elif [ "$rc" -eq 0 ] && [ "$_KT_SKIP" -eq "$_KT_N" ]; then
		rc=4
	fi
	exit "$rc"
}

# ---------------------------------------------------------------- cleanup
# defer CMD [ARG...]: run CMD ARG... (quoted now, run later) when the
# current scope ends: defer_scope_pop, or the test's exit for the
# outermost; newest first.  defer_prio: before the scope's other defers.
# defer_scope_push opens a nested scope; in_defer_scope CMD... runs CMD
# in one.  As kselftest's net/lib/sh/defer.sh.
_DEFER_DEPTH=0 _DEFER_CMD=() _DEFER_AT=()
_defer_add() {	# d|p CMD...
	_DEFER_AT+=("$_DEFER_DEPTH$1")
	shift
	_DEFER_CMD+=("${*@Q}")
}
defer() { _defer_add d "$@"; }
defer_prio() { _defer_add p "$@"; }
defer_scope_push() { _DEFER_DEPTH=$((_DEFER_DEPTH + 1)); }
defer_scope_pop() {
	local i k t idx=("${!_DEFER_CMD[@]}")
	for t in p d; do
		for ((k = ${#idx[@]} - 1; k >= 0; k--)); do
			i=${idx[k]}
			[ "${_DEFER_AT[i]}" = "$_DEFER_DEPTH$t" ] || continue
			unset '_DEFER_AT[i]'
			eval "${_DEFER_CMD[i]}"
			unset '_DEFER_CMD[i]'
		done
	done
	[ "$_DEFER_DEPTH" -gt 0 ] && _DEFER_DEPTH=$((_DEFER_DEPTH - 1))
	return 0
}
defer_scopes_cleanup() {
	while [ "$_DEFER_DEPTH" -gt 0 ]; do defer_scope_pop; done
	defer_scope_pop
}
in_defer_scope() {
	local rc=0
	defer_scope_push
	"$@" || rc=$?
	defer_scope_pop
	return "$rc"
}

# The EXIT trap: the defers, then the namespaces of setup_ns; quietly
# (the KTAP totals are printed)
_lib_exit() {
	defer_scopes_cleanup >/dev/null 2>&1
	cleanup_all_ns >/dev/null 2>&1
	[ "${_LIB_TMP_OWNER:-}" = "$BASHPID" ] && rm -rf "$_LIB_TMP"
	return 0
}
trap _lib_exit EXIT	# tests: defer, not a trap of their own
trap 'exit 143' TERM
trap 'exit 130' INT

# A per-test scratch directory (removed on exit): lib_tmpdir prints it.
# Made now, so the subshells of check and in_ns's shells share it; only
# the shell that made it removes it.
_LIB_TMP=$(mktemp -d /tmp/pgtest.XXXXXX) _LIB_TMP_OWNER=$BASHPID
lib_tmpdir() { echo "$_LIB_TMP"; }

# lib_prog NAME: print the path of tests/lib/NAME.c's program, built by
# `make helpers`; fail, saying so, when it is not there.
lib_prog() {
	[ -x "$PG_HELPERS/$1" ] && { echo "$PG_HELPERS/$1"; return 0; }
	echo "$PG_HELPERS/$1 missing: make helpers (make modules-all builds it)" >&2
	return 1
}

# sleep SECONDS: without a process.  /bin/sleep costs a fork and an exec
# (~0.07 s under TCG), more than most of the pauses the tests make; this
# one times out a read of a pipe nobody writes (opened read-write through
# /dev/fd: it holds both ends).  Anything but a number, or a shell without
# the pipe (a child of setpriv or unshare): /bin/sleep.
exec {_PAUSE_FD}<> <(:)
sleep() {
	local _
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[ "$#" -eq 1 ] && [[ $1 =~ ^[0-9]*\.?[0-9]+$ ]] &&
		{ read -rt "$1" -u "${_PAUSE_FD:--1}" _ 2>/dev/null; [ $? -gt 128 ]; } ||
		command sleep "$@"
}

# _lib_loop PAUSE TIMEOUT_MS CMD...: run CMD until it succeeds, PAUSE s
# between tries; 1 once TIMEOUT_MS passed.  CMD runs in this shell (no
# fork: its variables stay); the last try's stdout is printed, the
# tries' stderr dropped (a polled command complains until it succeeds).
_lib_loop() {
	local pause=$1 end out=${_LIB_TMP:-}/wait.$BASHPID rc rc_out
	end=$(( ${EPOCHREALTIME/./} + $2 * 1000 ))
	shift 2
	# a shell without the scratch directory (an unprivileged child) keeps
	# no output
	[ -n "${_LIB_TMP:-}" ] && [ -w "$_LIB_TMP" ] || out=/dev/null
	while :; do
		rc=0
		"$@" >"$out" 2>/dev/null || rc=1
		if [ "$rc" -eq 0 ] || [ "${EPOCHREALTIME/./}" -ge "$end" ]; then
			if [ -s "$out" ]; then
				IFS= read -r -d '' rc_out <"$out"
				printf '%s' "$rc_out"
				rm -f "$out"
			fi
			return "$rc"
		fi
		[ "$pause" = 0 ] || sleep "$pause"
	done
}

# busywait TIMEOUT_MS CMD...: poll CMD without a pause until it succeeds
# (0) or TIMEOUT_MS passed (1); for waits of milliseconds.
busywait() {
	local ms=$1
	shift
	_lib_loop 0 "$ms" "$@"
}

# slowwait TIMEOUT_S CMD...: the same every 0.1 s, TIMEOUT_S seconds.
slowwait() {
	local s=$1
	shift
	_lib_loop 0.1 "$((s * 1000))" "$@"
}

# until_counter_is EXPR CMD...: CMD prints a number; print it, and
# succeed if "number EXPR" holds (EXPR e.g. ">= 5").
until_counter_is() {
	local expr=$1 cur cond
	shift
	cur=$("$@")
	cur=$((cur))
	echo "$cur"
	cond="$cur $expr"	# an expression's text: (( )) evaluates it
	((cond))
}

# busywait_for_counter TIMEOUT_MS DELTA CMD...: CMD's number grows by
# DELTA, within TIMEOUT_MS.  slowwait_for_counter TIMEOUT_S DELTA CMD...
busywait_for_counter() {
	local t=$1 delta=$2 base
	shift 2
	base=$("$@")
	busywait "$t" until_counter_is ">= $((base + delta))" "$@"
}
slowwait_for_counter() {
	local t=$1 delta=$2 base
	shift 2
	base=$("$@")
	slowwait "$t" until_counter_is ">= $((base + delta))" "$@"
}

# ---------------------------------------------------------------- proc I/O
# Every pktgen write is ONE write(2) whose errno we report.  Forking a
# process costs ~0.1 s under TCG (python ~1 s), so a small C helper
# (tests/lib/pgwrite.c, build/helpers/pgwrite) serves the requests of a
# test through FIFOs (one server per test, guarded by a token FIFO so
# subshells and background jobs can share it); blocking pgctrl start/reset
# and pg_write_raw run the helper once per call.  Without the helper:
# python (one-shot only).  It enters the caller's netns (or, under in_ns,
# the named one) for every request: pgctrl acts on the writer's netns.
# shellcheck disable=SC2089 # python's quotes, for python -c
_PGW_PY='import os, sys
if sys.argv[1] == "-r":
    sys.stdout.write(open(sys.argv[2]).read()); sys.exit(0)
d = sys.stdin.buffer.read()
try:
    fd = os.open(sys.argv[1], os.O_WRONLY)
    os.write(fd, d)
except OSError as e:
    sys.exit(e.errno)'
_PGW="" _PGS_TOK="" _PG_NS=""
_pgw_init() {
	[ -n "$_PGW" ] && return 0
	if [ -x "$PG_HELPERS/pgwrite" ]; then
		_PGW=$PG_HELPERS/pgwrite
	else
		_PGW=python
	fi
	export PG_WRITE_HELPER=$_PGW
}

_pgw1() {	# [-r] PATH: one helper process (stdin = data)
	if [ "$_PGW" != python ]; then
		"$_PGW" ${_PG_NS:+-n "/run/netns/$_PG_NS"} "$@"
	elif [ -n "$_PG_NS" ]; then
		ip netns exec "$_PG_NS" /usr/bin/python3 -S -c "$_PGW_PY" "$@"
	else
		/usr/bin/python3 -S -c "$_PGW_PY" "$@"
	fi
}

_pgs_start() {	# the per-test server, started by the test's main shell
	[ "$BASHPID" = "$$" ] && [ "$_PGW" != python ] || return 1
	local d
	lib_tmpdir >/dev/null
	d=$_LIB_TMP
	# on failure, a bad fd makes every later call fall back at once
	mkfifo "$d/pgs.in" "$d/pgs.out" "$d/pgs.tok" || { _PGS_TOK=-; return 1; }
	exec {_PGS_W}<>"$d/pgs.in" {_PGS_R}<>"$d/pgs.out" {_PGS_TOK}<>"$d/pgs.tok"
	"$_PGW" -s <&"$_PGS_W" >&"$_PGS_R" 2>/dev/null &
	defer kill "$!"
	printf t >&"$_PGS_TOK"
}

_pgs_call() {	# W|R PATH DATA: via the server; sets _PGS_ERR, _PGS_OUT
	[ -n "$_PGS_TOK" ] || _pgs_start || return 1
	[[ $2 != *[[:space:]]* ]] || return 1
	local LC_ALL=C len ns t
	ns=${_PG_NS:+/run/netns/$_PG_NS}
	ns=${ns:-/proc/$BASHPID/ns/net}
	read -r -N 1 -t 60 -u "$_PGS_TOK" t 2>/dev/null || return 1
	printf '%s %s %s %d\n%s' "$1" "$ns" "$2" "${#3}" "$3" >&"$_PGS_W"
	_PGS_OUT=""
	if ! read -r -t 60 -u "$_PGS_R" _PGS_ERR len; then
		_PGS_ERR=110 _PGS_TOK=""	# server gone: give up on it
		return 0
	fi
	[ "$len" -gt 0 ] && IFS= read -r -N "$len" -u "$_PGS_R" _PGS_OUT
	printf t >&"$_PGS_TOK"
}

# pg_path FILE: FILE of /proc/net/pktgen, or FILE itself if absolute
pg_path() { [[ $1 == /* ]] && PG_FILE=$1 || PG_FILE=$PG_PROC/$1; }

# pg_write FILE CMD: write "CMD\n" in one write(2); returns 0 or errno.
pg_write() {
	local PG_FILE
	_pgw_init
	pg_path "$1"
	case "$1 $2" in
	"pgctrl start"*|"pgctrl reset"*) ;;	# blocking: not via the server
	*) _pgs_call W "$PG_FILE" "$2"$'\n' && return "$_PGS_ERR" ;;
	esac
	_pgw1 "$PG_FILE" <<<"$2"
}

# pg_write_raw FILE BYTES: exactly BYTES (printf %b escapes, e.g. \0, \n).
pg_write_raw() {
	local PG_FILE
	_pgw_init
	pg_path "$1"
	printf '%b' "$2" | _pgw1 "$PG_FILE"
}

_pg_read_var() {	# FILE: the file's text into _PG_TEXT (no fork); errno
	local rc=0 PG_FILE
	pg_path "$1"
	if _pgs_call R "$PG_FILE" ""; then
		_PG_TEXT=$_PGS_OUT
		return "$_PGS_ERR"
	fi
	_PG_TEXT=$(_pgw1 -r "$PG_FILE" </dev/null) || rc=$?
	return "$rc"
}

# ns_read NS FILE: FILE (/proc/net/..., which shows the reader's netns)
# as read from NS, into NS_TEXT, by the helper (no fork: ip netns exec
# cat costs 0.2-0.5 s under TCG); errno
ns_read() {
	# shellcheck disable=SC2034 # PG_PROC: read by _pg_read_var
	local _PG_TEXT _PG_NS=$1 PG_PROC=${2%/*} rc=0
	_pg_read_var "${2##*/}" || rc=$?
	NS_TEXT=$_PG_TEXT
	return "$rc"
}

# dev_stat NS DEV rx_packets|tx_packets: DEV's counter into STAT, from
# NS's /proc/net/dev
# shellcheck disable=SC2034 # STAT: the caller's
dev_stat() {
	local re=$'(^|\n) *'"$2"$': *([0-9]+) +([0-9]+)( +[0-9]+){6} +([0-9]+) +([0-9]+)'
	STAT=""
	ns_read "$1" /proc/net/dev && [[ $NS_TEXT =~ $re ]] || return 1
	case $3 in
	rx_packets) STAT=${BASH_REMATCH[3]} ;;
	tx_packets) STAT=${BASH_REMATCH[6]} ;;
	*) return 1 ;;
	esac
}

# ns_cat NS FILE: FILE as NS sees it (sysfs, /proc/net)
ns_cat() { ip netns exec "$1" cat "$2"; }

# pid_gone PID: the process PID has exited
pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# kver_ge MAJOR MINOR: the kernel under test ($KV, else this one) is
# MAJOR.MINOR or newer
kver_ge() {
	local v=${KV:-$(uname -r)} maj min
	maj=${v%%.*} min=${v#*.} min=${min%%[!0-9]*}
	[ "$maj" -gt "$1" ] || { [ "$maj" -eq "$1" ] && [ "$min" -ge "$2" ]; }
}

# carrier_up NS DEV: DEV in NS is up and has a carrier (IFF_LOWER_UP;
# one exec, where ip netns exec cat of sysfs's carrier costs two)
carrier_up() {
	[[ $(ip -n "$1" -o link show dev "$2" 2>/dev/null) == *[\<,]LOWER_UP[,\>]* ]]
}

_pg_result_var() {	# FILE: its Result text into _PG_TEXT
	local head
	_pg_read_var "$1" || return 1
	if [[ $_PG_TEXT == "Result: "* ]]; then
		_PG_TEXT=${_PG_TEXT#Result: }
	elif [[ $_PG_TEXT == *$'\n'"Result: "* ]]; then
		# the Result line (there is one), found from the end: bash's
		# ${T#*\nResult: } matches a growing prefix again at each
		# length, quadratic (~5 ms a Params file under TCG, seconds for
		# a receiver's flow table)
		head=${_PG_TEXT%$'\n'Result: *}
		_PG_TEXT=${_PG_TEXT:${#head}+9}
	else
		_PG_TEXT=""
		return 1
	fi
	_PG_TEXT=${_PG_TEXT%$'\n'}
}

# pg_read FILE: print /proc/net/pktgen/FILE (fast; also under in_ns).
pg_read() {
	local _PG_TEXT rc=0
	_pgw_init
	_pg_read_var "$1" || rc=$?
	printf '%s' "$_PG_TEXT"
	return "$rc"
}

# pg_result FILE: the Result text (everything after "Result: ", all lines).
pg_result() {
	local _PG_TEXT
	_pgw_init
	_pg_result_var "$1" || return 1
	printf '%s\n' "$_PG_TEXT"
}

# kv_get TEXT KEY: KEY's value in TEXT (key=value lines, as pgrx, ipopt
# and pgstats print them) into KVAL, empty if absent.  No fork: tests
# that read many values a case stay quick on a loaded TCG host.
kv_get() {
	local re="(^|"$'\n'")$2=([^"$'\n'"]*)"
	KVAL=""
	[[ $1 =~ $re ]] && KVAL=${BASH_REMATCH[2]}
	return 0
}

# kv_expect TEXT KEY VALUE [KEY VALUE...]: in TEXT each KEY has exactly
# VALUE; on a mismatch, say which and print TEXT.
kv_expect() {
	local text=$1 bad=0 KVAL
	shift
	while [ $# -ge 2 ]; do
		kv_get "$text" "$1"
		[ "$KVAL" = "$2" ] || { echo "$1=$KVAL, want $2"; bad=1; }
		shift 2
	done
	[ "$bad" -eq 0 ] || printf '%s\n' "$text"
	return "$bad"
}

# pg_refuses NS FILE CMD ERRNO REGEX: writing CMD to FILE in NS fails
# with ERRNO and leaves a Result matching REGEX (grep -E).
pg_refuses() {
	local rc=0 res
	in_ns "$1" pg_write "$2" "$3" || rc=$?
	res=$(in_ns "$1" pg_result "$2")
	[ "$rc" -eq "$4" ] && grep -qE "$5" <<<"$res" && return 0
	echo "'$3': errno $rc, Result: $res (want $4, /$5/)"
	return 1
}

# pg_write_is NS ERRNO FILE CMD: writing "CMD\n" to FILE in NS fails
# with ERRNO (0: succeeds); else say what it did.
pg_write_is() {
	local rc=0
	in_ns "$1" pg_write "$3" "$4" || rc=$?
	[ "$rc" -eq "$2" ] && return 0
	echo "write '$4' to $3: errno $rc, want $2"
	return 1
}

# pg_run_ok NS DEV N START_RC [CONFIG_ERROR]: a run of N packets on DEV
# ended well: no configuration error, start exited 0, and DEV's Result
# is OK with N sent and no errors; else print why and DEV's file.
pg_run_ok() {
	local cur
	[ -z "${5:-}" ] || { echo "$5"; return 1; }
	cur=$(in_ns "$1" pg_read "$2") || return 1
	[ "$4" -eq 0 ] && grep -q "^Result: OK: .*, $3 (" <<<"$cur" &&
		grep -q "pkts-sofar: $3  errors: 0" <<<"$cur" && return 0
	echo "start exit $4; device file:"
	echo "$cur"
	return 1
}

# pg_set DEV CMD: the classic pgset; the write must succeed with Result OK:.
pg_set() {
	local rc=0 _PG_TEXT
	pg_write "$1" "$2" || rc=$?
	_pg_result_var "$1"
	case "$_PG_TEXT" in
	OK:*) [ "$rc" -eq 0 ] && return 0 ;;
	esac
	echo "pg_set $1 '$2': errno $rc, Result: $_PG_TEXT"
	return 1
}

# ---------------------------------------------------------------- module
pg_is_ours() { [ "${PKTGEN_MODULE:-ours}" != stock ]; }
# pg_kthreads: how many kpktgend_* threads run, in every namespace
pg_kthreads() { pgrep -c '^kpktgend_' || true; }
# pg_own_files: the files of /proc/net/pktgen that only ours has, one a
# line (the receiver, the key=value counters); none for the stock module.
pg_own_files() { pg_is_ours && printf '%s\n' pgrx pgrx_samples pgstats; return 0; }

pg_unload() {
	[ -e /sys/module/pktgen/initstate ] || return 0
	rmmod pktgen || { echo "# pg_unload: rmmod pktgen failed" >&2; return 1; }
}

_pg_wait_loaded() {
	slowwait 10 test -e "$PG_PROC/pgctrl" ||
		{ echo "# pg_load: $PG_PROC/pgctrl did not appear" >&2; return 1; }
	# the write helper's server, from the test's main shell: the
	# subshells of check() share it (else a process per write)
	_pgw_init
	[ -n "$_PGS_TOK" ] || [ "$BASHPID" != "$$" ] || _pgs_start || :
}

# ipo_load [PARAM=VALUE...]: pf_ipoption.ko ($IPOPTION_KO), the option
# classifier and PF_IPOPTION family; reloaded if PARAMs are given.
# shellcheck disable=SC2120 # PARAMs are optional
ipo_load() {
	if [ -e /sys/module/pf_ipoption/initstate ]; then
		[ $# -eq 0 ] && return 0
		ipo_unload || return 1
	fi
	[ -f "${IPOPTION_KO:-}" ] ||
		{ echo "# ipo_load: IPOPTION_KO '${IPOPTION_KO:-}' not found" >&2; return 1; }
	insmod "$IPOPTION_KO" "$@" ||
		{ echo "# ipo_load: insmod $IPOPTION_KO $* failed" >&2; return 1; }
}

ipo_unload() {
	[ -e /sys/module/pf_ipoption/initstate ] || return 0
	rmmod pf_ipoption || { echo "# ipo_unload: rmmod pf_ipoption failed" >&2; return 1; }
}

pg_load_stock() {
	pg_unload || return 1
	modprobe pktgen || { echo "# pg_load: modprobe pktgen failed" >&2; return 1; }
	_pg_wait_loaded
}

pg_load() {
	pg_is_ours || { pg_load_stock; return; }
	pg_unload || return 1
	if [ -z "${PKTGEN_KO:-}" ] || [ ! -f "$PKTGEN_KO" ]; then
		echo "# pg_load: PKTGEN_KO '${PKTGEN_KO:-}' not found" >&2
		return 1
	fi
	insmod "$PKTGEN_KO" || { echo "# pg_load: insmod $PKTGEN_KO failed" >&2; return 1; }
	_pg_wait_loaded
}

# ktap_setup FN [quiet]: run the test's set-up function FN in this shell
# (its globals stay set), its output to a log; if FN fails (or, with quiet,
# prints anything) report "setup" failed with the log and finish the test.
ktap_setup() {
	local log
	lib_tmpdir >/dev/null
	log=$_LIB_TMP/setup.log
	if ! "$1" >"$log" 2>&1 || { [ "${2:-}" = quiet ] && [ -s "$log" ]; }; then
		ktap_fail "setup" "$(cat "$log")"
		ktap_finish
	fi
}

# ---------------------------------------------------------------- netns
# setup_ns VAR...: for each VAR a new netns, its name (pgt-var-XXXXXX,
# random; pgt-: the runner deletes what a test left) in $VAR, lo up; a VAR
# already naming one has it deleted and made again.  All are deleted at
# exit (cleanup_all_ns).  4 (skip) when one cannot be made.
NS_LIST=()
setup_ns() {
	local _ns_var
	for _ns_var in "$@"; do
		if [ -n "${!_ns_var:-}" ]; then
			cleanup_ns "${!_ns_var}"
		else
			printf -v "$_ns_var" 'pgt-%s-%06x' "${_ns_var,,}" "$((SRANDOM & 0xffffff))"
		fi
		if ! ip netns add "${!_ns_var}"; then
			echo "setup_ns: cannot make netns ${!_ns_var}" >&2
			return 4
		fi
		NS_LIST+=("${!_ns_var}")
		ip -n "${!_ns_var}" link set lo up || return 1
	done
}

# cleanup_ns NS...: kill NS's processes, delete NS, and wait until it is
# gone; 1 if one stays.
cleanup_ns() {
	local ns n rc=0 keep
	for ns in "$@"; do
		[ -n "$ns" ] || continue
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" >/dev/null 2>&1
		if ! busywait 20000 test ! -e "/run/netns/$ns"; then
			echo "cleanup_ns: $ns not removed" >&2
			rc=1
			continue
		fi
		keep=()
		for n in "${NS_LIST[@]}"; do [ "$n" = "$ns" ] || keep+=("$n"); done
		NS_LIST=("${keep[@]}")
	done
	return "$rc"
}

# cleanup_all_ns: cleanup_ns every netns of setup_ns.
cleanup_all_ns() { cleanup_ns "${NS_LIST[@]}"; }

# in_ns NS CMD...: run CMD (a program or a lib/test shell function) in NS.
in_ns() {
	local ns=$1
	shift
	case $1 in
	pg_write|pg_write_raw|pg_read|pg_result|pg_set)
		local _PG_NS=$ns	# these enter NS themselves: no fork
		"$@"
		return ;;
	esac
	if [ "$(type -t "$1")" = function ]; then
		# a child bash with this shell's functions and lib state; written
		# to a file by builtins (a fork costs ~0.1-1 s under TCG)
		local f=$_LIB_TMP/in_ns.$BASHPID.sh
		_pgw_init
		{
			# shellcheck disable=SC2090 # declare -p quotes it for the child
			declare -p LIB_DIR PCAP_PY PG_PROC IPOPT PG_HELPERS _PAUSE_FD _PGW _PGW_PY \
				_PGS_TOK ${_PGS_TOK:+_PGS_W _PGS_R}
			declare -f
			# the child's own defers and namespaces; the test's scratch
			declare -p _LIB_TMP
			echo "_DEFER_DEPTH=0 _DEFER_CMD=() _DEFER_AT=() NS_LIST=()"
			echo "trap _lib_exit EXIT"
		} >"$f"
		# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
		ip netns exec "$ns" bash -c '. "$0"; "$@"' "$f" "$@"
	else
		ip netns exec "$ns" "$@"
	fi
}

# pg_first_thread NS: print the first kpktgend_<cpu> of NS's pktgen
# directory (by number), fail if there is none.
pg_first_thread() {
	local t
	t=$(ip netns exec "$1" ls "$PG_PROC" | grep kpktgend_ | sort -V | head -n 1)
	[ -n "$t" ] && echo "$t"
}

_dev_prep() {	# NS DEV: IPv6 off, up
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1" &&
		ip -n "$1" link set "$2" up
}

# veth_create NSA DEVA NSB DEVB: a veth pair across two netns, up, IPv6 off.
veth_create() {
	ip -n "$1" link add "$2" type veth peer name "$4" netns "$3" || return 1
	_dev_prep "$1" "$2" && _dev_prep "$3" "$4"
}

# dummy_create NS DEV: a dummy device, up, IPv6 off.
dummy_create() {
	ip -n "$1" link add "$2" type dummy || return 1
	_dev_prep "$1" "$2"
}

# pin_static_keys: from a netns of its own, hold enabled the static keys
# that the receiver's "rx" (netdev ingress) and the classifier's "on" (IPv4
# pre-routing) switch, so a test that switches them in a loop while both
# CPUs receive packets never patches them.  Under TCG (QEMU 7.2) patching
# a jump label that the other vCPU is executing can leave both vCPUs
# trapping forever on a stale int3 in __netif_receive_skb_core(); the stock
# module hangs the same way when a loop of "tc qdisc add/del clsact" flips
# the ingress key during a netif_receive run (Documentation/testing.rst,
# "The debug kernel").
# One subtest; in the test's shell (the netns is deleted at its exit).
_pin_keys() {
	local pin_ns=""
	setup_ns pin_ns && dummy_create "$pin_ns" pin0 || return 1
	tc -n "$pin_ns" qdisc add dev pin0 clsact || return 1
	pg_is_ours || return 0
	local rc=0
	_PG_NS=$pin_ns pg_write pgrx "rx pin0" || rc=$?
	# EOPNOTSUPP: no netfilter ingress in this kernel, so no key to switch
	case $rc in
	0|95) ;;
	*) echo "rx pin0: errno $rc"; return 1 ;;
	esac
	ipo_load && _PG_NS=$pin_ns pg_set "$IPOPT" on
}
# keys_pinned: one subtest, before a step that unloads pktgen or
# pf_ipoption while packets arrive (their last netfilter hooks go with
# them): the netfilter static keys must be held by run.sh's pg_keypin, or
# under TCG the switch can leave a vCPU on a stale int3 (pin_static_keys).
# run.sh exports PIN_KEYS; run alone, or with PIN_KEYS=0 (keys left
# switching), a skip.
keys_pinned() {
	if [ -z "${PIN_KEYS:-}" ]; then
		ktap_skip "netfilter static keys held (pg_keypin)" "not run by tests/lib/run.sh"
	elif [ "$PIN_KEYS" != 1 ]; then
		ktap_skip "netfilter static keys held (pg_keypin)" "PIN_KEYS=0"
	elif [ -e /sys/module/pg_keypin ]; then
		ktap_pass "netfilter static keys held (pg_keypin, loaded by run.sh)"
	else
		ktap_fail "netfilter static keys held" "pg_keypin is not loaded (tests/lib/run.sh loads it)"
	fi
}
pin_static_keys() {
	local out
	lib_tmpdir >/dev/null
	out=$_LIB_TMP/pin.log
	if _pin_keys >"$out" 2>&1; then
		ktap_pass "static keys held on from another netns (TCG: pin_static_keys)"
	else
		ktap_fail "static keys held on from another netns" "$(cat "$out")"
	fi
}

# ---------------------------------------------------------------- capture
_CAP_PIDS=() _CAP_FILES=()

# cap_start NS DEV FILE: tcpdump -w FILE in the background, once listening.
# Immediate mode makes libpcap use one ring slot per snaplen bytes: a small
# snaplen and a big buffer keep bursts of thousands of frames (with -s 0
# only ~8 slots fit and most of a burst is dropped).  CAP_SNAPLEN and
# CAP_BUFFER_KB override; CAP_EXTRA adds options (one word each).
cap_start() {
	local ns=$1 dev=$2 file=$3 pid
	# shellcheck disable=SC2086
	ip netns exec "$ns" tcpdump -i "$dev" -w "$file" -U --immediate-mode \
		-n -s "${CAP_SNAPLEN:-4096}" -B "${CAP_BUFFER_KB:-65536}" \
		-Z root ${CAP_EXTRA:-} 2>"$file.log" &
	pid=$!
	# a debug kernel under a loaded TCG host may take over 20 s to map
	# the 64 MiB ring: slow is not broken here
	if ! slowwait "${CAP_START_WAIT:-60}" _cap_ready "$pid" "$file.log"; then
		echo "# cap_start: tcpdump on $ns/$dev did not start:" >&2
		sed 's/^/# /' "$file.log" >&2
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 1
	fi
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "# cap_start: tcpdump on $ns/$dev exited:" >&2
		sed 's/^/# /' "$file.log" >&2
		wait "$pid" 2>/dev/null
		return 1
	fi
	[ ${#_CAP_PIDS[@]} -eq 0 ] && defer cap_stop
	_CAP_PIDS+=("$pid")
	_CAP_FILES+=("$file")
}

_cap_ready() {	# PID LOG: listening, or exit 0 once tcpdump died (caught below);
	# no fork: it is polled while tcpdump starts
	{ [ -e "$2" ] && [[ $(<"$2") == *"listening on"* ]]; } || ! kill -0 "$1" 2>/dev/null
}

_cap_size() { stat -c %s "$1" 2>/dev/null || echo 0; }

# cap_stop: stop every capture once its file stopped growing, wait for exit.
cap_stop() {
	local i k pid file prev cur same
	for i in "${!_CAP_PIDS[@]}"; do
		pid=${_CAP_PIDS[i]} file=${_CAP_FILES[i]}
		prev=-1 same=0
		for ((k = 0; k < 50; k++)); do
			cur=$(_cap_size "$file")
			if [ "$cur" = "$prev" ]; then
				same=$((same + 1))
				[ "$same" -ge 2 ] && break
			else
				same=0 prev=$cur
			fi
			sleep 0.1
		done
		kill -INT "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		while IFS= read -r cur; do	# tcpdump's closing statistics
			case $cur in
			"0 packets dropped by kernel") ;;
			*" packets dropped by kernel") echo "# cap_stop: $file: $cur" >&2 ;;
			esac
		done <"$file.log"
		rm -f "$file.log"
	done
	_CAP_PIDS=() _CAP_FILES=()
	return 0
}

# ktap_report: turn "PASS name" / "FAIL name|why" lines (from a checker
# script) into KTAP subtests; other lines become diagnostics.
ktap_report() {
	local line name
	while IFS= read -r line; do
		case $line in
		"PASS "*) ktap_pass "${line#PASS }" ;;
		"FAIL "*)
			name=${line#FAIL }
			ktap_fail "${name%%|*}" "${name#*|}"
			;;
		*) [ -n "$line" ] && echo "# $line" ;;
		esac
	done
}

# check_start_returned NAME [RC]: the background start of $START_PID
# returned within 15 s, with RC (0); one subtest NAME.
check_start_returned() {
	local rc=0
	if ! slowwait 15 pid_gone "$START_PID"; then
		ktap_fail "$1" "start still blocked 15 s later"
		return
	fi
	wait "$START_PID" || rc=$?
	check "$1" test "$rc" -eq "${2:-0}"
}

# pg_start_ns NS [SECS]: `echo start > pgctrl` in NS (blocks until the run
# ends), bounded: SIGINT after SECS (60) makes pktgen stop and return.
pg_start_ns() {
	timeout -s INT "${2:-60}" ip netns exec "$1" \
		sh -c 'echo start > /proc/net/pktgen/pgctrl'
}
