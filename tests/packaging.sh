#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# suite: slow
#
# What we ship, as a user gets it: the module's metadata (modinfo), `make
# install-built` into /lib/modules/KV/updates/ + depmod so that a plain
# `modprobe pktgen` loads ours rather than the kernel's, and the tools:
# pktgen-sweep (CSV and PNG; on a veth pair, checked on the wire) and
# pktgen-top (live view while start blocks).  DKMS builds on the host:
# tests/host/dkms.sh (compiling under TCG is too slow for a VM test).
#
# The install goes into a temporary root (INSTALL_MOD_PATH, depmod -b,
# modprobe -d), see make_root.
#
#   netns NS:  dum0 (dummy)           sweep + top
#   netns NS:  veth0 --- vpeer (NP)   sweep, captured on vpeer
#
# The PNG is drawn by matplotlib, whose import costs tens of seconds under
# TCG on a loaded host: longer than the default limit.
# test-timeout: 900

. "$(dirname "$0")/lib/lib.sh"

REPO=$(cd "$(dirname "$0")/.." && pwd)
KV=${KV:-$(uname -r)}
KO=$REPO/build/$KV/pktgen.ko
TOOLS=$REPO/tools
PARAMS="pg_count_d pg_delay_d pg_clone_skb_d debug"
DST=198.18.0.2
ROOT=""		# the temporary install root (make_root)

# mi FIELD: modinfo -F FIELD of KO, from one modinfo run (a process
# costs ~0.3 s under TCG, and the checks ask for a dozen fields)
MODINFO=$(modinfo "$KO" 2>/dev/null)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
mi() {
	local l
	while IFS= read -r l; do
		[[ $l == "$1:"* ]] || continue
		l=${l#"$1:"}
		echo "${l#"${l%%[! ]*}"}"
	done <<<"$MODINFO"
}

# ---------------------------------------------------------------- modinfo
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
has_text() { [ -n "$(mi "$1")" ] || { echo "no $1 in modinfo $KO"; return 1; }; }
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
is_gpl() { [ "$(mi license)" = GPL ] || { echo "license '$(mi license)'"; return 1; }; }

# The version is `git describe` of the tree it was built from: it names a
# commit of this repository (TAG, TAG-N-gHASH, or VERSION+gHASH without
# a tag; maybe -dirty).
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
version_from_git() {
	local v h
	v=$(mi version)
	case $v in "" | unknown | 0.1) echo "version '$v'"; return 1 ;; esac
	h=${v%-dirty}
	[[ $h =~ [-+]g([0-9a-f]{7,})$ ]] && h=${BASH_REMATCH[1]}
	git -C "$REPO" rev-parse -q --verify "$h^{commit}" >/dev/null ||
		{ echo "version '$v': '$h' is no commit of $REPO"; return 1; }
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
has_parm() {	# NAME: listed with a description
	mi parm | grep -q "^$1:[^(]" || { echo "parm:"; mi parm; return 1; }
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
vermagic_is_kv() {
	case "$(mi vermagic)" in "$KV "*) ;; *) mi vermagic; return 1 ;; esac
}

# ---------------------------------------------------------------- install
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
moddir() { echo "$ROOT/lib/modules/$KV"; }

# A temporary root with the kernel's own pktgen in kernel/net/core/, which
# ours in updates/ must win over.  (A real install into the guest's
# overlay /lib/modules works too, but depmod -a there decompresses every
# module of the kernel: minutes under TCG.)
make_root() {
	ROOT=$(lib_tmpdir)/root
	mkdir -p "$ROOT/lib/modules/$KV/kernel/net/core" &&
		cp /lib/modules/"$KV"/kernel/net/core/pktgen.ko* \
			"$ROOT/lib/modules/$KV/kernel/net/core/"
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
do_install() {
	local t0=$SECONDS
	make -s -C "$REPO" install-built KVER="$KV" INSTALL_MOD_PATH="$ROOT" 2>&1 &&
		ls "$(moddir)"/updates/pktgen.ko* &&
		echo "# took $((SECONDS - t0)) s" >&2
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
resolves_to_updates() {
	local f
	f=$(modinfo -b "$ROOT" -k "$KV" -F filename pktgen) || return 1
	case $f in "$(moddir)/updates/pktgen.ko"*) ;; *) echo "pktgen is $f"; return 1 ;; esac
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
modprobe_loads_ours() {
	pg_unload || return 1
	modprobe -d "$ROOT" pktgen || return 1
	slowwait 10 test -e /proc/net/pktgen/pgctrl || { echo "no pgctrl"; return 1; }
	[ "$(cat /sys/module/pktgen/version 2>&1)" = "$(mi version)" ] ||
		{ echo "loaded version '$(cat /sys/module/pktgen/version 2>&1)'" \
			"!= '$(mi version)'"; return 1; }
	test -e /proc/net/pktgen/pgstats || { echo "no pgstats: not ours"; return 1; }
}

# ---------------------------------------------------------------- tools
# sweep_ok CSV SIZES RUNS LINE: one row per size (with FCS), in order,
# pkt_size 4 less; every row from RUNS runs, sent at a rate, min <= median
# <= max, no errors; L2 Mb/s is pps * size * 8, L1 pps * (size + 20) * 8,
# line_pct L1 / LINE, within 1 %.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
sweep_ok() {
	python3 -S "$LIB_DIR/tools_check.py" sweep "$@"
}

# png_ok FILE: a PNG that decodes (signature, IHDR, CRCs, pixel data size).
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
png_ok() {
	python3 -S "$LIB_DIR/tools_check.py" png "$1"
}

# wire_ok PCAP SIZES COUNT: COUNT pktgen frames of each size to DST (the
# capture has no FCS: 4 bytes less).
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
wire_ok() {
	python3 -S "$LIB_DIR/tools_check.py" wire "$1" "$2" "$3" "$DST"
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
# PNG "-": no plot (matplotlib's import and render cost tens of seconds
# under TCG: one sweep draws, the others do not)
sweep() {	# NS DEV SIZES COUNT CSV PNG [OPTION...]
	local ns=$1 dev=$2 sizes=$3 count=$4 csv=$5 png=()
	[ "$6" = - ] || png=(--png "$6")
	shift 6
	ip netns exec "$ns" /usr/bin/python3 "$TOOLS/pktgen-sweep" -i "$dev" --frame-size "$sizes" \
		-n "$count" -d "$DST" -m 02:00:00:00:00:02 --csv "$csv" "${png[@]}" "$@" 2>&1
}

# sweep_duration CSV: two sizes of 0.5 s each (this module's duration):
# each run lasted at least that, and less than 10 s
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
sweep_duration() {
	sweep "$NS" "$DEV_D" 64,1518 0 "$1" - -D 0.5 || return 1
	python3 -S "$LIB_DIR/tools_check.py" duration "$1"
}

# top_ok OUT: pktgen-top saw dum0 sending (a refresh with PPS > 0 and
# sofar > 0) and ended with its Result.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
top_ok() {
	awk '$1 == "dum0" && $3 > 0 && $5 > 0 { seen = 1 }
	     /^dum0: OK: / { res = 1 } END { exit !(seen && res) }' "$1" ||
		{ cat "$1"; return 1; }
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
run_top() {	# OUT: pktgen-top in the background during a 4 s run
	local pid rc=0
	# a time, not a count: the debug kernel sends ~1000 pps
	in_ns "$NS" pg_set "$DEV_D" "count 0" || return 1
	in_ns "$NS" pg_set "$DEV_D" "duration 4s" || return 1
	ip netns exec "$NS" "$TOOLS/pktgen-top" --interval 0.5 --wait 60 --plain >"$1" 2>&1 &
	pid=$!
	defer kill "$pid"
	slowwait 90 grep -q waiting "$1" || { echo "pktgen-top did not start"; cat "$1"; return 1; }
	pg_start_ns "$NS" || rc=$?
	slowwait 30 eval "! kill -0 $pid" || { echo "pktgen-top still running"; return 1; }
	wait "$pid" || { echo "pktgen-top exit $?"; return 1; }
	return "$rc"
}

# top_json OUT: pktgen-top --json over dum0 and dum0@1 (threads 0 and 1):
# every refresh parses; the last has the totals "dum0 (2)" and "all"
# summing the two devices' packets, and both Results.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
top_json() {
	local pid rc=0
	in_ns "$NS" pg_set kpktgend_1 "add_device $DEV_D@1" || return 1
	in_ns "$NS" pg_set "$DEV_D@1" "count 0" && in_ns "$NS" pg_set "$DEV_D@1" "duration 3s" ||
		return 1
	in_ns "$NS" pg_set "$DEV_D" "duration 3s" || return 1
	ip netns exec "$NS" "$TOOLS/pktgen-top" --json "$1" --interval 0.5 --wait 60 2>"$1.err" &
	pid=$!
	defer kill "$pid"
	slowwait 90 grep -q waiting "$1.err" || { cat "$1.err"; return 1; }
	pg_start_ns "$NS" || rc=$?
	slowwait 30 eval "! kill -0 $pid" || { echo "pktgen-top still running"; return 1; }
	wait "$pid" || { echo "pktgen-top exit $?"; return 1; }
	python3 -S "$LIB_DIR/tools_check.py" top-json "$1" "$DEV_D" || return 1
	in_ns "$NS" pg_set kpktgend_1 rem_device_all
	return "$rc"
}

# ---------------------------------------------------------------- main
ktap_header
ktap_plan 23
T=$(lib_tmpdir)

check "modinfo: description" has_text description
check "modinfo: license GPL" is_gpl
check "modinfo: version from git describe" version_from_git
for p in $PARAMS; do
	check "modinfo: parameter $p described" has_parm "$p"
done
check "modinfo: vermagic $KV" vermagic_is_kv

make_root || exit 1
# A kernel of tests/lib/kernels.sh's cache has its headers in a
# debootstrapped root of its release (absolute links, that release's
# libc): the guest has no /lib/modules/KV/build to install with.
if [ -e "/lib/modules/$KV/build/Makefile" ]; then
	check "make install-built KVER=$KV" do_install
	check "modinfo -k $KV pktgen resolves to updates/" resolves_to_updates
	check "modprobe pktgen loads ours" modprobe_loads_ours
	check "rmmod pktgen" rmmod pktgen
else
	why="no /lib/modules/$KV/build in the guest (a cached kernel: its headers are in its release's root)"
	for t in "make install-built KVER=$KV" "modinfo -k $KV pktgen resolves to updates/" \
		 "modprobe pktgen loads ours" "rmmod pktgen"; do
		ktap_skip "$t" "$why"
	done
fi

# the tools against the module under test (ours or stock)
pg_load || exit 1
setup_ns NS NP || exit 1
DEV_D=dum0
dummy_create "$NS" "$DEV_D" && ip -n "$NS" link set "$DEV_D" mtu 9000 || exit 1
veth_create "$NS" veth0 "$NP" vpeer || exit 1
ip -n "$NS" link set veth0 mtu 9000 && ip -n "$NP" link set vpeer mtu 9000 || exit 1

SIZES=64,128,256,512,1024,1280,1518,9000
check "pktgen-sweep on a dummy, 3 runs a size, line 10000 Mb/s: exit 0" \
	sweep "$NS" "$DEV_D" "$SIZES" 300 "$T/d.csv" "$T/d.png" -r 3 -l 10000
check "pktgen-sweep: a row per size (FCS in), median in min-max, L2, L1, % of line" \
	sweep_ok "$T/d.csv" "$SIZES" 3 10000
check "pktgen-sweep: PNG decodes" png_ok "$T/d.png"
ktap_diag "$(cat "$T/d.csv" 2>/dev/null)"
if pg_is_ours; then
	check "pktgen-sweep -D 0.5: runs of at least 0.5 s" sweep_duration "$T/dur.csv"
else
	ktap_skip "pktgen-sweep -D 0.5" "duration is this module's command"
fi

cap_start "$NP" vpeer "$T/v.pcap" || exit 1
check "pktgen-sweep on a veth: exit 0" sweep "$NS" veth0 64,1500,9000 100 "$T/v.csv" -
cap_stop
check "pktgen-sweep on a veth: 100 frames of each size on the wire" \
	wire_ok "$T/v.pcap" 64,1500,9000 100

in_ns "$NS" pg_set kpktgend_0 "add_device $DEV_D" || exit 1
check "pktgen-top during a run: exits after it" run_top "$T/top.out"
check "pktgen-top: live rate and progress, then the Result" top_ok "$T/top.out"
check "pktgen-top --json, two devices on dum0: totals per interface and all" \
	top_json "$T/top.json"
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "pktgen-top: exit 3 when no device runs within --wait" eval '
	rc=0; ip netns exec "$NS" "$TOOLS/pktgen-top" --wait 0.5 >/dev/null 2>&1 || rc=$?
	[ "$rc" -eq 3 ] || { echo "exit $rc"; false; }'
# shellcheck disable=SC2016 # expanded later, by eval or the shell it is given to
check "pgstats --json: an object per device, numbers as numbers" eval '
	ip netns exec "$NS" "$TOOLS/pgstats" --json |
		python3 -S "$LIB_DIR/tools_check.py" pgstats-json "$DEV_D"'
ktap_finish
