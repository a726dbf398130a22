#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scripts written the way the source documents write them still
# run.  Three scripts in the style of
#  - the OLS 2005 paper's Appendix C pktgen.conf-1-1 (`function pgset()`
#    with `fgrep "Result: OK:"`, max_before_softirq, values kept in
#    variables such as CLONE_SKB="clone_skb 1000000", start via pgctrl),
#  - the Italian HOWTO's `pktgen.conf-2-1 <size> <count>` (two threads,
#    eth0 on the first, flows/flowlen 0, a `sleep 2` and the device file
#    at the end),
#  - the paper's `pg()` helper: `echo inject > $PGDEV` on the device
#    instead of pgctrl start,
# are run (with bash: they use `function`, which Debian's dash refuses)
# against dummy devices.  For each: it exits 0; no pgset printed a Result
# other than "Result: OK:" and no write failed; the final Result and
# pkts-sofar show the requested count and size; the Params show what the
# script configured; the dummy's tx_packets grew by the count.
#
#   netns NS:  eth0, eth1 (dummy) <- pktgen kpktgend_0 (kpktgend_1 emptied)

. "$(dirname "$0")/lib/lib.sh"

N=300

# The start the three scripts share: the paper's helpers, verbatim.
read -r -d '' HEAD <<'EOF'
#!/bin/sh

#modprobe pktgen

function pgset() {
    local result

    echo $1 > $PGDEV

    result=`cat $PGDEV | fgrep "Result: OK:"`
    if [ "$result" = "" ]; then
         cat $PGDEV | fgrep Result:
    fi
}

function pg() {
    echo inject > $PGDEV
    cat $PGDEV
}
EOF

# The Appendix C script; @COUNT@ is the count the test asks for (a user
# edits the script the same way), @HEAD@ the lines above.
# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
read -r -d '' APPENDIX_C <<'EOF'
@HEAD@

# Config Start Here -----------------------------------------------------------

# thread config
# Each CPU has own thread. Two CPU exammple. We add eth1, eth2 respectivly.

PGDEV=/proc/net/pktgen/kpktgend_0
  echo "Removing all devices"
 pgset "rem_device_all"
  echo "Adding eth1"
 pgset "add_device eth1"
  echo "Setting max_before_softirq 10000"
 pgset "max_before_softirq 10000"

# device config
# delay is inter packet gap. 0 means maximum speed.

CLONE_SKB="clone_skb 1000000"
# NIC adds 4 bytes CRC
PKT_SIZE="pkt_size 60"

# COUNT 0 means forever
#COUNT="count 0"
COUNT="count @COUNT@"
delay="delay 0"

PGDEV=/proc/net/pktgen/eth1
  echo "Configuring $PGDEV"
 pgset "$COUNT"
 pgset "$CLONE_SKB"
 pgset "$PKT_SIZE"
 pgset "$delay"
 pgset "dst 10.10.11.2"
 pgset "dst_mac 00:04:23:08:91:dc"

# Time to run
PGDEV=/proc/net/pktgen/pgctrl

 echo "Running... ctrl^C to stop"
 pgset "start"
 echo "Done"

# Result can be vieved in /proc/net/pktgen/eth1
cat /proc/net/pktgen/eth1
EOF

# The Italian HOWTO's pktgen.conf-2-1, run as `pktgen.conf-2-1 SIZE COUNT`.
# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
read -r -d '' HOWTO_IT <<'EOF'
@HEAD@
if [ -z $2 ]; then
    echo "Usage: $0 {packet_size count}"
    exit 1
fi

# Config Start Here -----------------------------------------------------------

# thread config
# Each CPU has own thread. Two CPU example. We add eth0, eth1 respectively.

PGDEV=/proc/net/pktgen/kpktgend_0
  echo "Removing all devices"
 pgset "rem_device_all"
  echo "Adding eth0"
 pgset "add_device eth0"
  echo "Setting max_before_softirq 10000"
 pgset "max_before_softirq 10000"

# We need to remove old config since we dont use this thread. We can only
# one NIC on one CPU due to affinity reasons.

PGDEV=/proc/net/pktgen/kpktgend_1
  echo "Removing all devices"
 pgset "rem_device_all"

# device config
# delay 0 means maximum speed.

CLONE_SKB="clone_skb 10000000"
# NIC adds 4 bytes CRC
PKT_SIZE="pkt_size "$1

# COUNT 0 means forever
COUNT="count "$2
DELAY="delay 0"
FLOWS="flows 0"
FLOWLEN="flowlen 0"
DST="dst 192.168.10.1"
DST_MAC="dst_mac 00:14:22:75:AB:42"

PGDEV=/proc/net/pktgen/eth0
  echo "Configuring $PGDEV"
 pgset "$COUNT"
 pgset "$CLONE_SKB"
 pgset "$PKT_SIZE"
 pgset "$DELAY"
 pgset "$FLOWS"
 pgset "$FLOWLEN"
 pgset "$DST"
 pgset "$DST_MAC"

# Time to run
PGDEV=/proc/net/pktgen/pgctrl

 echo "Running... ctrl^C to stop"
 pgset "start"
 echo "Done"
echo "";echo "Destination is: "
echo "$DST"
echo "$DST_MAC"
echo ""

# Result can be viewed in /proc/net/pktgen/eth0
echo "Result can be viewed in /proc/net/pktgen/eth0"
echo " "
sleep 2
echo "*******************************************************************"
cat /proc/net/pktgen/eth0
echo "*******************************************************************"
EOF

# The paper's pg() helper: the device injects its packets itself.
# shellcheck disable=SC2034 # used where shellcheck cannot see it (eval, a sourced script, indirection)
read -r -d '' PG_INJECT <<'EOF'
@HEAD@

PGDEV=/proc/net/pktgen/kpktgend_0
 pgset "rem_device_all"
 pgset "add_device eth1"

PGDEV=/proc/net/pktgen/eth1
 pgset "count @COUNT@"
 pgset "clone_skb 100"
 pgset "pkt_size 200"
 pgset "dst 10.10.11.2"
 pgset "dst_mac 00:04:23:08:91:dc"
 pg
EOF

# SCRIPTS: NAME|TEXT VARIABLE|ARGS|DEVICE|SIZE|PARAMS THAT MUST SHOW
SCRIPTS=(
	"Appendix C pktgen.conf-1-1|APPENDIX_C||eth1|60|clone_skb: 1000000|dst_min: 10.10.11.2|dst_mac: 00:04:23:08:91:dc"
	"Italian HOWTO pktgen.conf-2-1 64 $N|HOWTO_IT|64 $N|eth0|64|clone_skb: 10000000|flows: 0 flowlen: 0|dst_min: 192.168.10.1|dst_mac: 00:14:22:75:ab:42"
	"paper pg() inject|PG_INJECT||eth1|200|clone_skb: 100|dst_min: 10.10.11.2|dst_mac: 00:04:23:08:91:dc"
)
CHECKS=5

ktap_header
ktap_plan $((CHECKS * ${#SCRIPTS[@]}))

TMP=$(lib_tmpdir)
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
setup() {
	pg_load || return 1
	setup_ns NS || return 1
	dummy_create "$NS" eth0 && dummy_create "$NS" eth1
}
ktap_setup setup

tx() { ip netns exec "$NS" cat "/sys/class/net/$1/statistics/tx_packets"; }

# pgsets_ok LOG: every Result line a pgset printed is OK, no write failed.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
pgsets_ok() {
	local bad
	bad=$(grep -e 'Result:' "$1" | grep -v '^Result: OK:'
		grep -i -e 'write error' -e 'No such file' "$1")
	[ -z "$bad" ] && return 0
	echo "$bad"
	return 1
}

# final_ok LOG COUNT SIZE: the device file at the end shows the run.
# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
final_ok() {
	grep -Eq "^Result: OK: [0-9]+\(c[0-9]+\+d[0-9]+\) usec, $2 \($3byte," "$1" &&
		grep -q "pkts-sofar: $2  errors: 0" "$1" && return 0
	sed -n '/^Params:/,$p' "$1"
	return 1
}

# shellcheck disable=SC2317 # run indirectly (check, slowwait, defer, in_ns, a trap)
params_ok() {	# LOG WANT...: each WANT text appears in the Params block
	local log=$1 w p
	p=$(sed -n '/^Params:/,/^Current:/p' "$log")
	shift
	for w in "$@"; do
		grep -qF -- "$w" <<<"$p" || { echo "missing '$w' in:"; echo "$p"; return 1; }
	done
}

# refused LOG: the first command or flag the module refused, if any.
refused() {
	sed -n -e 's/^Result: No such parameter "\([^"]*\)".*/\1/p' "$1" | head -n 1
}

run_script() {	# the fields of one SCRIPTS entry
	local name=$1 var=$2 args=$3 dev=$4 size=$5 script log rc=0 t0 t1 why
	shift 5
	log=$TMP/out.log
	script=${!var//@COUNT@/$N}
	printf '%s\n' "${script//@HEAD@/$HEAD}" >"$TMP/script.sh"
	script=$TMP/script.sh
	in_ns "$NS" pg_write pgctrl reset
	t0=$(tx "$dev")
	# shellcheck disable=SC2086	# ARGS are words
	timeout -s INT 60 ip netns exec "$NS" bash "$script" $args >"$log" 2>&1 \
		</dev/null || rc=$?
	t1=$(tx "$dev")
	why=$(refused "$log")
	if [ -n "$why" ]; then
		for t in "exits 0" "every pgset OK" "Result: $N packets of $size bytes" \
			"Params as configured" "$N packets sent by $dev"; do
			ktap_skip "$name: $t" "module refuses $why"
		done
		return
	fi
	check "$name: exits 0" test "$rc" -eq 0
	check "$name: every pgset OK" pgsets_ok "$log"
	check "$name: Result: $N packets of $size bytes" final_ok "$log" "$N" "$size"
	check "$name: Params as configured" params_ok "$log" "count $N" \
		"min_pkt_size: $size  max_pkt_size: $size" "ifname: $dev" "$@"
	check "$name: $N packets sent by $dev" test $((t1 - t0)) -eq "$N"
}

for s in "${SCRIPTS[@]}"; do
	IFS='|' read -r -a f <<<"$s"
	run_script "${f[@]}"
done

ktap_finish
