#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side (it boots VMs: run it on the host, not in a guest; make
# check-many-hosts):
#	bash tests/many-hosts.sh [KV]	(default: the suite's newest kernel)
#
# The Ansible collection pktgen.lab against three real guests: two
# senders, one receiver (tests/lib/guests.sh boots them, each running
# tests/lib/many-guest.sh; this tree's build/KV/pktgen.ko loaded):
#
#   tx1 eth1 --(QEMU UDP socket link 1)-- eth1 rx1
#   tx2 eth1 --(QEMU UDP socket link 2)-- eth2 rx1
#   each: ctl0, QEMU user net, the host's SSH into it (hostfwd)
#
# The host is the controller: Debian's /usr/bin/ansible-playbook runs
# the collection's playbook pktgen.lab.scenario over SSH with a scenario
# of two count-based flows of two streams each (flow a, tx1, 60 bytes,
# lossy: netem loss on tx1's eth1 and xmit_mode queue_xmit so that its
# packets meet the qdisc; flow b, tx2, MANY_SIZE_B bytes), then the host reads
# pgstats (tx1, tx2) and pgrx in "display script" (rx1) itself over SSH
# and checks the merged report against them (tests/lib/many_hosts_check.py):
# per-host sent, per-stream received/lost/percentiles (JSON and CSV),
# every packet sent received or counted lost, the loss where netem is
# and nowhere else, one start_at value for every device, each device's
# start after it within START_BOUND_NS, the report's spread.  The guests'
# clocks are stepped onto the host's first (tests/lib/many_hosts_clock.py:
# TCG guests boot with whole seconds from the RTC); their offsets after
# it, the lateness and the spread are diagnostics.
#
# Env: START_BOUND_NS (500000000: tests/start-at.sh's worst in a loaded
# TCG guest was 377 ms; Documentation/testing.rst has this test's own),
# CLOCK_BOUND_NS (50000000: a guest's clock after the step, off by
# more fails), GUEST_BOOT_WAIT (600 s), MANY_LEAD_S (start_at's lead,
# 75 s: under TCG with three guests on two cores one module task takes
# 10-30 s, and a start_at the guest receives late is refused), MANY_COUNT (packets per stream, 1000),
# MANY_RATE (pps per stream, 200: at 1000, rx1 under TCG lost 28% of
# the flow without netem too), MANY_SIZE_B (flow b's pkt_size, 128:
# with 1000 at 200 pps rx1 lost 9% of flow b between QEMU's UDP socket
# and the guest, while flow a's 60 bytes at the same rate lost only
# netem's share; with 128 it lost none), MANY_LOSS (netem loss %, 5), MANY_KEEP=DIR (keep the
# run's files there: inventory, scenario, results, own reads, consoles).
# Prints KTAP; exit 0 pass, 1 fail, 4 skipped (no ansible, vng or build).

# The checks run through check/check_here: shellcheck sees them unused
# shellcheck disable=SC2317

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/tests/lib/lib.sh"
. "$REPO/tests/lib/guests.sh"

PY=/usr/bin/python3
KV=${1:-$("$REPO/tests/lib/kernels.sh" suite | tail -n 1)}
START_BOUND_NS=${START_BOUND_NS:-500000000}
CLOCK_BOUND_NS=${CLOCK_BOUND_NS:-50000000}
LEAD_S=${MANY_LEAD_S:-75} COUNT=${MANY_COUNT:-1000} RATE=${MANY_RATE:-200}
LOSS=${MANY_LOSS:-5} SIZE_B=${MANY_SIZE_B:-128}
T=$(lib_tmpdir)
G=$T/g
# the times of the phases, for the diagnostics at the end
PHASES=()
phase() { PHASES+=("$1 $(($(date +%s) - PHASE_T0)) s"); PHASE_T0=$(date +%s); }
PHASE_T0=$(date +%s) T_ALL=$(date +%s)

ktap_header
ktap_plan 13
for t in /usr/bin/ansible-playbook "$PY" ssh ssh-keygen /usr/sbin/sshd; do
	command -v "$t" >/dev/null || ktap_skip_all "many hosts" "no $t"
done
[ -n "$KV" ] || ktap_skip_all "many hosts" "no kernel (tests/lib/kernels.sh suite)"
[ -e "$REPO/build/$KV/pktgen.ko" ] ||
	ktap_skip_all "many hosts" "no build/$KV/pktgen.ko (tests/lib/build-all.sh)"
_guests_vng >/dev/null || ktap_skip_all "many hosts" "no vng (tests/lib/setup.sh)"
ktap_diag "kernel $KV"

# keep the run's files where MANY_KEEP says, at the end
[ -n "${MANY_KEEP:-}" ] && defer_prio cp -a "$T/." "$MANY_KEEP/"

setup() {
	guests_init "$G" "$KV" &&
		guest_add tx1 && guest_add tx2 && guest_add rx1 &&
		guest_link tx1 rx1 && guest_link tx2 rx1 &&
		guests_boot
}
ktap_setup setup
check "three guests boot, their sshd answers" guests_wait "${GUEST_BOOT_WAIT:-600}"
[ -f "$G/times" ] && ktap_diag "$(cat "$G/times")"
phase boot
if [ "$_KT_FAIL" -gt 0 ]; then
	ktap_skip_rest "many hosts" "the guests are not up"
fi

# the clocks: stepped onto the host's, then within CLOCK_BOUND_NS
clocks_ok() {
	local j
	"$PY" "$REPO/tests/lib/many_hosts_clock.py" --step "$G/ssh_config" tx1 tx2 rx1 \
		>"$T/clock.json" || return 1
	j=$(cat "$T/clock.json")
	"$PY" - "$T/clock.json" "$CLOCK_BOUND_NS" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	bad = 0
	for h, v in sorted(d.items()):
	    print('%s: stepped %+.3f ms, now %+.3f ms (rtt %.3f ms)' % (
	        h, v['stepped_ns'] / 1e6, v['offset_ns'] / 1e6, v['rtt_ns'] / 1e6))
	    bad |= abs(v['offset_ns']) >= int(sys.argv[2])
	sys.exit(bad)
	EOF
	[ -n "$j" ]
}
check_here "each guest's clock on the host's within ${CLOCK_BOUND_NS} ns" clocks_ok
ktap_diag "$(cat "$_LIB_TMP/check.out")"
phase clocks

# the inventory, the scenario and the lossy link
cat >"$T/inventory.ini" <<EOF
[pktgen]
tx1 ansible_port=$(guest_port tx1)
tx2 ansible_port=$(guest_port tx2)
rx1 ansible_port=$(guest_port rx1)

[pktgen:vars]
ansible_host=127.0.0.1
ansible_user=root
ansible_ssh_private_key_file=$G/id
ansible_ssh_common_args='-o UserKnownHostsFile=$G/known_hosts -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes'
ansible_python_interpreter=/usr/bin/python3
# the guest writes only its overlays (/tmp, /etc, /var) and its --rwdir
ansible_remote_tmp=/tmp/.ansible-tmp
EOF
cat >"$T/scenario.yml" <<EOF
pktgen_scenario:
  name: many-hosts
  lead_s: $LEAD_S
  timeout_s: 600
  defaults: {pkt_size: 60, rate_pps: $RATE, count: $COUNT}
  receivers:
    - {host: rx1, devices: [$(guest_ifname rx1 1), $(guest_ifname rx1 2)], statistics: time}
  flows:
    - name: a
      sender: tx1
      device: $(guest_ifname tx1 1)
      streams: 2
      dst: $(guest_addr rx1 1)
      dst_mac: "$(guest_mac 1 3)"
      commands: [xmit_mode queue_xmit]
    - name: b
      sender: tx2
      device: $(guest_ifname tx2 2)
      streams: 2
      pkt_size: $SIZE_B
      dst: $(guest_addr rx1 2)
      dst_mac: "$(guest_mac 2 3)"
EOF
cat >"$T/flows.json" <<EOF
[{"name": "a", "sender": "tx1", "count": $COUNT, "streams": 2, "pkt_size": 60, "lossy": true},
 {"name": "b", "sender": "tx2", "count": $COUNT, "streams": 2, "pkt_size": $SIZE_B, "lossy": false}]
EOF
netem_on() {
	guest_ssh tx1 tc qdisc replace dev "$(guest_ifname tx1 1)" root netem loss "$LOSS%"
}
check "netem loss $LOSS% on tx1's link" netem_on

# the collection from the tree (as tests/host/ansible.sh)
mkdir -p "$T/coll/ansible_collections/pktgen" "$T/ahome" "$T/res"
ln -s "$REPO/ansible" "$T/coll/ansible_collections/pktgen/lab"
export ANSIBLE_COLLECTIONS_PATH=$T/coll ANSIBLE_HOME=$T/ahome ANSIBLE_LOCAL_TEMP=$T/ahome/tmp
export ANSIBLE_NOCOLOR=1 ANSIBLE_PIPELINING=1 ANSIBLE_FORKS=3 ANSIBLE_SSH_CONTROL_PATH_DIR=$T/ahome/cp
export ANSIBLE_HOST_KEY_CHECKING=1 ANSIBLE_SSH_RETRIES=2 ANSIBLE_TIMEOUT=60

playbook_ok() {
	local t0=$SECONDS
	(cd "$T" && /usr/bin/ansible-playbook -v -i "$T/inventory.ini" pktgen.lab.scenario \
		-e "@$T/scenario.yml" -e pktgen_install_method=none \
		-e "pktgen_results_dir=$T/res") >"$T/playbook.log" 2>&1
	local rc=$?
	echo "ansible-playbook exited $rc after $((SECONDS - t0)) s ($T/playbook.log)"
	[ "$rc" -eq 0 ] || tail -n 40 "$T/playbook.log"
	return "$rc"
}
check_here "ansible-playbook pktgen.lab.scenario on tx1, tx2, rx1" playbook_ok
ktap_diag "$(grep -a -e 'PLAY RECAP' -A4 "$T/playbook.log")"
phase playbook

files_ok() {
	local f
	for f in report.json report.csv report.png hosts/tx1.json hosts/tx2.json hosts/rx1.json; do
		[ -s "$T/res/$f" ] || { echo "no $T/res/$f"; return 1; }
	done
	"$PY" "$REPO/tests/lib/tools_check.py" png "$T/res/report.png"
}
check "report.json, report.csv and a PNG that decodes" files_ok

# the host's own reads, after the playbook
own_reads() {
	local h
	mkdir -p "$T/own" || return 1
	for h in tx1 tx2 rx1; do
		guest_ssh "$h" cat /proc/net/pktgen/pgstats >"$T/own/$h.pgstats" || return 1
	done
	guest_ssh rx1 "echo 'display script' > /proc/net/pktgen/pgrx &&
		cat /proc/net/pktgen/pgrx" >"$T/own/rx1.pgrx" || return 1
	grep -q '^Result: OK' "$T/own/rx1.pgrx" || { cat "$T/own/rx1.pgrx"; return 1; }
}
check_here "the host reads pgstats and pgrx of each guest over SSH" own_reads

# the value the playbook wrote (the run role's results, shown by -v)
start_at=$(grep -ao '"command": "start_at [0-9]*"' "$T/playbook.log" |
	grep -o '[0-9]*' | sort -u)
ktap_diag "start_at written: $(echo "$start_at" | tr '\n' ' ')($(grep -ac \
	'"command": "start_at [0-9]' "$T/playbook.log") writes)"
[ "$(echo "$start_at" | wc -l)" = 1 ] || start_at=""

# the clocks again: how far they went during the run
"$PY" "$REPO/tests/lib/many_hosts_clock.py" "$G/ssh_config" tx1 tx2 rx1 >"$T/clock-after.json" &&
	ktap_diag "clocks after the run: $(cat "$T/clock-after.json")"

"$PY" - "$T/spec.json" <<EOF
import json, os, sys
clock = "$T/clock.json"
clock = json.load(open(clock)) if os.path.exists(clock) and os.path.getsize(clock) else {}
json.dump({
    "results": "$T/res",
    "own": {"tx1": {"pgstats": "$T/own/tx1.pgstats"},
            "tx2": {"pgstats": "$T/own/tx2.pgstats"},
            "rx1": {"pgstats": "$T/own/rx1.pgstats", "pgrx": "$T/own/rx1.pgrx"}},
    "flows": json.load(open("$T/flows.json")),
    "receiver": "rx1",
    "start_at_ns": int("${start_at:-0}") or None,
    "start_bound_ns": $START_BOUND_NS,
    "offsets": {h: v["offset_ns"] for h, v in clock.items()},
}, open(sys.argv[1], "w"), indent=1)
EOF
"$PY" "$REPO/tests/lib/many_hosts_check.py" "$T/spec.json" >"$T/checks.txt" 2>&1
while IFS=$'\t' read -r st name why; do
	case $st in
	ok) ktap_pass "$name" ;;
	"not ok") ktap_fail "$name" "${why// | /$'\n'}" ;;
	"#") ktap_diag "$name" ;;
	*) ktap_diag "many_hosts_check: $st $name $why" ;;
	esac
done <"$T/checks.txt"
phase checks

guests_stop
phase stop
ktap_diag "times: ${PHASES[*]}; whole test $(($(date +%s) - T_ALL)) s"
ktap_finish
