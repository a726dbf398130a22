# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the wire-* tests of the later commands (wire-ipv6, wire-encap,
# wire-payload), sourced after lib.sh.  A test configures one pktgen device
# in runs; every run gets its own UDP destination port, which tells its
# frames apart in a capture (tests/lib/pcap.py check_runs), so runs need
# not end in order and the stack's own traffic is ignored.
#
#	WIRE_NS, WIRE_DEV	the sender's netns and pktgen device (set them)
#	WIRE_CAP		the capture name the next runs' frames are in
#				("": not captured)
#	one_run LABEL N JSON CMD...	configure, start, check the Result
#	file_has LABEL WHAT LINE...	exact lines in the device file
#	wire_skip LABEL WHAT		a SKIP if the last run was skipped
#	wire_also CAP LABEL JSON	the last run's frames in another capture
#	wire_check CAPTURES_JSON CHECKER	the frames, as KTAP
#	udp_mark NS 4|6 / udp_delta LABEL ACCEPTED CSUM_ERRORS	UDP MIBs
#
# A command or flag the module does not know (Result "No such parameter"
# or "Flag -:...:- unknown", the stock module, or a feature not landed yet)
# makes its run SKIP with that reason; any other refusal fails.

WIRE_NS="" WIRE_DEV="" WIRE_CAP=b
RUNS=() PORT=1000 SKIP="" DEVFILE="" CONF_WHY="" LAST_N=0

# json_str TEXT: TEXT as a JSON string.
json_str() {
	local s=${1//\\/\\\\}
	s=${s//\"/\\\"}
	printf '"%s"' "${s//$'\n'/\\n}"
}

# configure CMD...: pg_set each on the device; 0: all OK, 2: a command or
# flag this module does not know (CONF_WHY says which), 1: another failure.
# (No command substitutions: a fork costs ~0.1-0.5 s under TCG.)
configure() {
	local c
	CONF_WHY=""
	[ -n "${WIRE_TMP:-}" ] || WIRE_TMP=$(lib_tmpdir)
	for c in "$@"; do
		in_ns "$WIRE_NS" pg_set "$WIRE_DEV" "$c" >"$WIRE_TMP/pg_set" && continue
		IFS= read -r CONF_WHY <"$WIRE_TMP/pg_set"
		case $CONF_WHY in
		*"Result: No such parameter"*|*"Result: Flag -:"*) return 2 ;;
		esac
		return 1
	done
}

# dev_file: the device file into DEVFILE.
dev_file() {
	in_ns "$WIRE_NS" pg_read "$WIRE_DEV" >"$WIRE_TMP/dev"
	IFS= read -r -d '' DEVFILE <"$WIRE_TMP/dev"
}

# one_run LABEL N JSON CMD...: configure the device (count N and the run's
# own UDP port first), start, check the Result (WIRE_ERRORS errors, 0 by
# default); the frames are checked by wire_check against JSON (members of
# a pcap.check_runs run).  SKIP is the reason when the run was skipped.
one_run() {
	local lab=$1 n=$2 json=$3 rc=0
	shift 3
	PORT=$((PORT + 1)) SKIP="" DEVFILE=""
	configure "udp_dst_min $PORT" "udp_dst_max $PORT" "count $n" "$@" || rc=$?
	if [ "$rc" -eq 2 ]; then
		SKIP="not supported: $CONF_WHY"
		ktap_skip "$lab: start, Result OK: $n packets" "$SKIP"
		json="\"skip\": $(json_str "$SKIP")"
	elif [ "$rc" -ne 0 ]; then
		SKIP="configuration failed"
		ktap_fail "$lab: configure" "$CONF_WHY"
		json="\"skip\": \"configuration failed\""
	else
		[ -n "${WIRE_TIMING:-}" ] && echo "# $lab: configured at $SECONDS s"
		pg_start_ns "$WIRE_NS" || rc=$?
		dev_file
		check "$lab: start returned, Result OK: $n packets, pkts-sofar $n" \
			_wire_result "$n" "$rc" "${WIRE_ERRORS:-0}"
	fi
	LAST_N=$n
	_wire_add "$lab" "$WIRE_CAP" "$n" "$json"
}

# wire_also CAP LABEL JSON: check the last run's frames in capture CAP too.
wire_also() {
	local json=$3
	[ -n "$SKIP" ] && json="\"skip\": $(json_str "$SKIP")"
	_wire_add "$2" "$1" "$LAST_N" "$json"
}

_wire_add() {	# LABEL CAP N JSON
	[ -n "$2" ] || return 0	# not captured: no frame checks
	RUNS+=("{\"lab\": \"$1\", \"cap\": \"$2\", \"n\": $3, \"port\": $PORT${4:+, $4}}")
}

_wire_result() {	# N START_RC ERRORS
	[ "$2" -eq 0 ] && grep -q "^Result: OK: .*, $1 (" <<<"$DEVFILE" &&
		grep -qx "     pkts-sofar: $1  errors: $3" <<<"$DEVFILE" && return 0
	echo "start exit $2; device file:"
	echo "$DEVFILE"
	return 1
}

# wire_skip LABEL WHAT: if the last run was skipped, a SKIP (exit 0).
wire_skip() {
	[ -n "$SKIP" ] || return 1
	ktap_skip "$1: $2" "$SKIP"
}

# file_has LABEL WHAT LINE...: the device file after the last run has
# every LINE exactly; "!PREFIX": no line starts with PREFIX.
file_has() {
	local lab=$1 what=$2
	shift 2
	wire_skip "$lab" "$what" || check "$lab: $what" _wire_lines "$@"
}

_wire_lines() {
	local l bad=0
	for l in "$@"; do
		if [[ $l == !* ]]; then
			grep -q "^${l#!}" <<<"$DEVFILE" || continue
			echo "unexpected line: $(grep "^${l#!}" <<<"$DEVFILE")"
		else
			grep -qxF -- "$l" <<<"$DEVFILE" && continue
			echo "missing line: '$l'"
		fi
		bad=1
	done
	[ "$bad" -eq 0 ] || echo "$DEVFILE"
	return "$bad"
}

# wire_check CAPTURES_JSON CHECKER: run the python CHECKER (argv: lib dir,
# CAPTURES_JSON, the runs) over the captures; its PASS/FAIL/SKIP lines
# become KTAP subtests.
wire_check() {
	local runs out line rc=0
	runs=$(IFS=,; echo "[${RUNS[*]}]")
	out=$(python3 -S -c "$2" "$LIB_DIR" "$1" "$runs" 2>&1) || rc=$?
	[ "$rc" -eq 0 ] || out+=$'\n'"FAIL frame checker|exit status $rc"
	while IFS= read -r line; do
		case $line in
		"SKIP "*) line=${line#SKIP }; ktap_skip "${line%%|*}" "${line#*|}" ;;
		*) ktap_report <<<"$line" ;;
		esac
	done <<<"$out"
}

# udp_counts NS 4|6: the netns' UDP MIBs "ACCEPTED CSUM_ERRORS", where
# ACCEPTED = InDatagrams + NoPorts (a datagram only reaches either once
# its checksum was found good).
udp_counts() {
	if [ "$2" = 6 ]; then
		# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
		ip netns exec "$1" awk '
			$1 == "Udp6InDatagrams" || $1 == "Udp6NoPorts" { ok += $2 }
			$1 == "Udp6InCsumErrors" { bad = $2 }
			END { print ok + 0, bad + 0 }' /proc/net/snmp6
	else
		# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
		ip netns exec "$1" awk '
			$1 == "Udp:" && !h { for (i = 2; i <= NF; i++) k[i] = $i; h = 1; next }
			$1 == "Udp:" { for (i = 2; i <= NF; i++) v[k[i]] = $i }
			END { print v["InDatagrams"] + v["NoPorts"], v["InCsumErrors"] + 0 }' \
			/proc/net/snmp
	fi
}
UDP_AT="" UDP_BEFORE=""
udp_mark() { UDP_AT="$1 $2" UDP_BEFORE=$(udp_counts "$1" "$2"); }

# udp_delta LABEL ACCEPTED CSUM_ERRORS: growth since udp_mark.
udp_delta() {
	local a0 e0 a1 e1 what="$1: UDP of ${UDP_AT% *} accepted $2, checksum errors $3"
	wire_skip "$1" "${what#*: }" && return
	read -r a0 e0 <<<"$UDP_BEFORE"
	# shellcheck disable=SC2086 # two words: NS and 4|6
	read -r a1 e1 <<<"$(udp_counts $UDP_AT)"
	check "$what" test "$((a1 - a0)) $((e1 - e0))" = "$2 $3"
}
