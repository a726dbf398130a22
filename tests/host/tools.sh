#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: the tools' error paths (Documentation/tools.rst, "Exit
# status") and their plots.  Each tool without /proc/net/pktgen (the host
# has no pktgen; PKTGEN_PROC points at a directory that does not exist),
# with a missing or wrong input file, a bad value and an unwritable
# output: the documented exit code and one line on standard error, never
# a traceback.  Then each plot kind of tools/pgplot.py rendered with
# Debian's matplotlib and checked (tests/lib/plot_check.py), and without
# it (python3 -S: no site packages) exit 6 with the CSV still written.
# Runs /usr/bin/python3, the interpreter of a Debian user.  Prints KTAP
# and "N passed, N failed, N skipped"; exit 4 without /usr/bin/python3.

# shellcheck disable=SC2016 # the checks given to eval expand there
REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tests/lib/lib.sh"

PY=/usr/bin/python3
TOOLS=$REPO/tools
ktap_header
if [ ! -x "$PY" ]; then
	ktap_plan 1
	ktap_skip "tools" "no $PY"
	echo "0 passed, 0 failed, 1 skipped"
	exit 4
fi
T=$(mktemp -d /tmp/pktgen-tools.XXXXXX)
trap 'rm -rf "$T"' EXIT
export PKTGEN_PROC=$T/no-pktgen	# absent: "the module is not loaded"

# expect RC REGEX TOOL ARG...: TOOL exits RC, its stderr is one line
# matching REGEX (grep -E) and has no traceback
# shellcheck disable=SC2317 # run indirectly (check)
expect() {
	local want=$1 re=$2 tool=$3 rc=0 err
	shift 3
	err=$("$PY" "$TOOLS/$tool" "$@" 2>&1 >"$T/stdout") || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "exit $rc, not $want: $err"
		return 1
	fi
	if grep -q Traceback <<<"$err" || [ "$(grep -c . <<<"$err")" -gt 1 ] &&
	   ! grep -q '^usage:' <<<"$err"; then
		echo "not one line: $err"
		return 1
	fi
	grep -Eq -e "$re" <<<"$err" || { echo "message: $err"; return 1; }
	[ "$want" = 4 ] && [ -s "$T/stdout" ] && { echo "stdout: $(cat "$T/stdout")"; return 1; }
	return 0
}

printf 'size,pkt_size,pps,pps_min,pps_max,mbps,l1_mbps,line_pct,errors,elapsed,runs\n%s\n%s\n' \
	64,60,300000,290000,310000,153.6,201.6,,0,0.03,3 \
	1518,1514,250000,240000,260000,3036,3076,,0,0.03,3 >"$T/s.csv"
printf '{"title": "t", "results": [{"test": "throughput-ndr", "frame_size": 64, %s}]}\n' \
	'"throughput_pps": 5000, "offered_pps": 6000' >"$T/r.json"
echo 'not,a,sweep' >"$T/bad.csv"
NOPROC='^[a-z0-9-]+: no .*/no-pktgen: load the module'

ktap_plan 40
# no module: exit 4, nothing on stdout (no CSV header)
check "pktgen-sweep without the module: exit 4, one line" \
	expect 4 "^pktgen-sweep: no .*no-pktgen" pktgen-sweep -i lo -n 10
check "pktgen-rfc2544 without the module: exit 4" \
	expect 4 "$NOPROC" pktgen-rfc2544 -i lo --rx-dev lo -l 1000
check "pktgen-top without the module: exit 4" expect 4 "$NOPROC" pktgen-top --wait 0
check "pgstats without the module: exit 4" expect 4 "$NOPROC" pgstats
# missing and wrong files: exit 5
check "pktgen-sweep --plot-only missing.csv: exit 5" \
	expect 5 "^pktgen-sweep: $T/missing.csv: No such file" \
	pktgen-sweep --plot-only "$T/missing.csv" --png "$T/x.png"
check "pktgen-sweep --plot-only of a non-sweep CSV: exit 5" \
	expect 5 "not a pktgen-sweep CSV" pktgen-sweep --plot-only "$T/bad.csv" --png "$T/x.png"
check "pktgen-rfc2544 --plot-only missing.json: exit 5" \
	expect 5 "^pktgen-rfc2544: $T/missing.json: No such file" \
	pktgen-rfc2544 --plot-only "$T/missing.json" --png "$T/x.png"
check "pktgen-rfc2544 --plot-only of a non-JSON file: exit 5" \
	expect 5 "not JSON" pktgen-rfc2544 --plot-only "$T/s.csv" --png "$T/x.png"
check "pktgen-sweep --png into a missing directory: exit 5" \
	expect 5 "^pktgen-sweep: $T/nodir/x.png: No such file" \
	pktgen-sweep --plot-only "$T/s.csv" --png "$T/nodir/x.png"
# --plot-only without a PNG to draw: a usage error, not a silent 0
check "pktgen-sweep --plot-only without --png: exit 2" \
	expect 2 "plot-only needs --png" pktgen-sweep --plot-only "$T/s.csv"
check "pktgen-rfc2544 --plot-only without --png: exit 2" \
	expect 2 "plot-only needs --png" pktgen-rfc2544 --plot-only "$T/r.json"
# bad values: exit 2
check "pktgen-sweep -s 10: exit 2" expect 2 "64 bytes or more" pktgen-sweep -i lo -s 10
check "pktgen-sweep --frame-size x: exit 2" expect 2 "integers" pktgen-sweep -i lo --frame-size x
check "pktgen-sweep -n abc: exit 2" expect 2 "invalid int value" pktgen-sweep -i lo -n abc
check "pktgen-sweep without -i: exit 2" expect 2 "-i DEV is required" pktgen-sweep
check "pktgen-rfc2544 --frame-size 12: exit 2" \
	expect 2 "64 bytes or more" pktgen-rfc2544 -i lo --rx-dev lo --frame-size 12
check "pktgen-rfc2544 unknown test: exit 2" \
	expect 2 "unknown test" pktgen-rfc2544 -i lo --rx-dev lo -l 1000 nonsense
check "pktgen-top --interval 0: exit 2" expect 2 "interval > 0" pktgen-top --interval 0
check "pgstats --bogus: exit 2" expect 2 "unrecognized arguments" pgstats --bogus
# a device that does not exist (with a /proc/net/pktgen): exit 2
mkdir "$T/proc"
# shellcheck disable=SC2317 # run indirectly (check)
env_proc() { PKTGEN_PROC=$T/proc "$@"; }	# an empty /proc/net/pktgen
check "pktgen-sweep -i nosuchdev: exit 2" \
	env_proc expect 2 'no device nosuchdev0' pktgen-sweep -i nosuchdev0
# a run that fails: pktgen's files are not there (exit 1, one line)
check "pktgen-sweep when pktgen refuses: exit 1" \
	env_proc expect 1 'kpktgend_0' pktgen-sweep -i lo -n 10
check "pktgen-top when no device runs: exit 3" \
	env_proc expect 3 'no pktgen device ran within 0 s' pktgen-top --wait 0
# ipodump: its own codes (Documentation/ipodump.rst): 2 usage
check "ipodump -c 0: exit 2" expect 2 "count" ipodump -c 0
if [ ! -e /sys/module/pf_ipoption ] && [ "$(id -u)" -eq 0 ]; then
	check "ipodump without pf_ipoption: exit 1, one line" \
		expect 1 "^ipodump: PF_IPOPTION not available" ipodump -c 1
	check "ipodump --nfqueue without the classifier: exit 1" \
		expect 1 "^ipodump: /proc/net/ipopt not found" ipodump -c 1 --nfqueue -T rr
else
	ktap_skip "ipodump without pf_ipoption: exit 1, one line" "pf_ipoption is loaded, or not root"
	ktap_skip "ipodump --nfqueue without the classifier: exit 1" "pf_ipoption is loaded, or not root"
fi
# pgrx-hist and pgrx-plot (the receiver's histogram and samples)
printf 'stream,name,sample,rx_ns,seq,latency_ns\n%s\n%s\n' 0,id-1,0,1000,1,500 \
	0,id-1,1,2000000,2,700 >"$T/samples.csv"
head -n 1 "$T/samples.csv" >"$T/nosamples.csv"
printf '{"version": 1, "total": {"latency_samples": 3, "latency_min_ns": 100, %s}\n' \
	'"latency_max_ns": 150, "histogram": [[96, 102, 2], [148, 154, 1]]}, "streams": []' \
	>"$T/rx.json"
check "pgrx-hist without the module: exit 4" expect 4 "$NOPROC" pgrx-hist
check "pgrx-plot without the module: exit 4" expect 4 "$NOPROC" pgrx-plot --png "$T/p.png"
check "pgrx-hist missing.json: exit 5" expect 5 "missing.json: No such file" pgrx-hist "$T/missing.json"
check "pgrx-hist of a non-JSON file: exit 5" expect 5 "not pgrx's JSON view" pgrx-hist "$T/s.csv"
check "pgrx-hist --stream 9: exit 2" expect 2 "no stream '9'" pgrx-hist --stream 9 "$T/rx.json"
check "pgrx-hist --csv into a missing directory: exit 5" \
	expect 5 "No such file or directory" pgrx-hist --csv "$T/no/dir.csv" "$T/rx.json"
check "pgrx-plot without --png: exit 2" expect 2 "--png" pgrx-plot "$T/samples.csv"
check "pgrx-plot of a file without samples: exit 5" \
	expect 5 "no samples" pgrx-plot --png "$T/p.png" "$T/nosamples.csv"
check "pgrx-hist --csv: the buckets, cumulative" eval \
	'"$PY" "$TOOLS/pgrx-hist" --csv - "$T/rx.json" | tail -n 1 | grep -qx "148,154,1,3"'
# shellcheck disable=SC2016 # expanded later, by eval
check "pgrx-plot: exit 0, a PNG" eval \
	'"$PY" "$TOOLS/pgrx-plot" --png "$T/p.png" "$T/samples.csv" &&
	 "$PY" -S "$REPO/tests/lib/tools_check.py" png "$T/p.png"'
# plots: matplotlib's PNG, checked for its axes
# shellcheck disable=SC2016 # expanded later, by eval
check "pktgen-sweep --plot-only: exit 0, a PNG" eval \
	'"$PY" "$TOOLS/pktgen-sweep" --plot-only "$T/s.csv" --png "$T/s.png" -l 10000 &&
	 "$PY" -S "$REPO/tests/lib/tools_check.py" png "$T/s.png"'
check "pktgen-rfc2544 --plot-only: exit 0, a PNG" eval \
	'"$PY" "$TOOLS/pktgen-rfc2544" --plot-only "$T/r.json" --png "$T/r.png" &&
	 "$PY" -S "$REPO/tests/lib/tools_check.py" png "$T/r.png"'
mkdir "$T/plots"
out=$("$PY" "$REPO/tests/lib/plot_check.py" "$T/plots" 2>&1)
st=$?
check "pgplot: each plot kind, its axes (plot_check.py exit $st)" test "$st" -eq 0
ktap_diag "$out"
# without matplotlib (python3 -S: no dist-packages): one line, exit 6
# shellcheck disable=SC2016 # expanded later, by eval
check "no matplotlib: pktgen-sweep --plot-only exit 6, one line" eval \
	'err=$("$PY" -S "$TOOLS/pktgen-sweep" --plot-only "$T/s.csv" --png "$T/n.png" 2>&1);
	 [ $? -eq 6 ] && [ "$(grep -c . <<<"$err")" -eq 1 ] &&
	 grep -q "no PNG: matplotlib is missing" <<<"$err" && [ ! -e "$T/n.png" ] ||
	 { echo "$err"; false; }'
check "no matplotlib: pktgen-rfc2544 --plot-only exit 6" eval \
	'"$PY" -S "$TOOLS/pktgen-rfc2544" --plot-only "$T/r.json" --png "$T/n.png" 2>/dev/null;
	 [ $? -eq 6 ]'
echo "$_KT_PASS passed, $_KT_FAIL failed, $_KT_SKIP skipped"
ktap_finish
