#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: the Ansible collection in ansible/ (pktgen.lab) with
# Debian's ansible-core, ansible-lint and /usr/bin/python3: galaxy.yml's
# version is VERSION's, ansible-lint (production profile) and
# ansible-playbook --syntax-check are clean, the collection builds and
# installs, ansible-doc renders every module; the report's merge (module_utils/pktgen_report.py) on the
# fixtures of tests/host/ansible-fixture (two senders, one receiver, one
# stream lost 10 packets: totals, loss, percentiles and start spread
# worked by hand below), through the report role in a real playbook run
# on localhost, and a PNG that decodes; the scenario filters; the
# modules' argument checks and their /proc driving where a plain
# directory tests real logic (one write of "cmd\n", errno of a refused
# write, no Result line is a failure, check mode writes nothing, pgstats
# parsed, the work in a netns child); the whole playbook in check mode on three local hosts (every
# role's templates, one start_at time for both senders).  Nothing here
# fakes a Result line: pktgen's answers are
# tested in guests (not yet: see the three-guest plan).  Prints KTAP and
# "N passed, N failed, N skipped"; exit 4 without ansible.

# The checks run through check, so their functions look unreachable:
# shellcheck disable=SC2317

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tests/lib/lib.sh"

PY=/usr/bin/python3
COLL=$REPO/ansible
FIX=$REPO/tests/host/ansible-fixture
T=$(lib_tmpdir)

ktap_header
ktap_plan 18
for t in ansible-playbook ansible-lint ansible-doc "$PY"; do
	command -v "$t" >/dev/null || ktap_skip_all "ansible collection" "no $t (ansible-core, ansible-lint)"
done

# The collection as Ansible finds it: ANSIBLE_COLLECTIONS_PATH/ansible_collections/pktgen/lab
mkdir -p "$T/coll/ansible_collections/pktgen" "$T/home" "$T/cache"
ln -s "$COLL" "$T/coll/ansible_collections/pktgen/lab"
export ANSIBLE_COLLECTIONS_PATH=$T/coll ANSIBLE_HOME=$T/home ANSIBLE_LOCAL_TEMP=$T/home/tmp
export XDG_CACHE_HOME=$T/cache ANSIBLE_NOCOLOR=1 ANSIBLE_PYTHON_INTERPRETER=$PY
export PYTHONPATH=$T/coll	# the modules run directly import module_utils from it

version_ok() {
	local v g
	v=$(cat "$REPO/VERSION")
	g=$(sed -n 's/^version: *//p' "$COLL/galaxy.yml")
	[ "$v" = "$g" ] || { echo "galaxy.yml $g, VERSION $v"; return 1; }
}

# ansible-lint 6.13 warns "Unable to resolve FQCN" for the collection's
# own modules and mocks its filters (ansible-lint issue 2741, fixed in
# later releases): warnings, not violations; the rules still run.
lint_ok() {
	(cd "$COLL" && ansible-lint --nocolor) >"$T/lint" 2>&1 || { cat "$T/lint"; return 1; }
	grep -q "Passed with production profile: 0 failure(s), 0 warning(s)" "$T/lint" ||
		{ cat "$T/lint"; return 1; }
}

syntax_ok() {
	local p
	for p in "$COLL"/playbooks/*.yml; do
		ansible-playbook --syntax-check -i "$COLL/inventory/example.ini" "$p" \
			-e "@$COLL/examples/two-senders-one-receiver.yml" || return 1
	done
}

doc_ok() {
	local m
	for m in "$COLL"/plugins/modules/*.py; do
		m=$(basename "$m" .py)
		ansible-doc "pktgen.lab.$m" >"$T/doc" 2>&1 || { cat "$T/doc"; return 1; }
		if ! grep -q "^> PKTGEN.LAB.${m^^}" "$T/doc" || ! grep -q "EXAMPLES" "$T/doc" ||
		   ! grep -q "RETURN VALUES" "$T/doc"; then
			echo "$m:"
			cat "$T/doc"
			return 1
		fi
		# the shared options come from doc_fragments/pktgen.py
		[ "$m" = pktgen_report ] && continue
		if ! grep -q "^- netns" "$T/doc" || ! grep -q "^- proc_dir" "$T/doc" ||
		   [ "$(grep -c "Supports check mode" "$T/doc")" -ne 1 ]; then
			echo "$m: the doc fragment's options or note missing or repeated:"
			cat "$T/doc"
			return 1
		fi
	done
}

# pgrx_of FILE: the pgrx JSON view of a collected document
pgrx_of() { "$PY" -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["pgrx"]))' "$1"; }

# jcheck FILE EXPR [T]: the Python expression EXPR holds of r, FILE's
# JSON (and t, the string T)
jcheck() {
	"$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
t = sys.argv[3] if len(sys.argv) > 3 else None
if not eval(sys.argv[2]):
    sys.exit("not %s: %s" % (sys.argv[2], json.dumps(r, indent=1)[:3000]))' "$@"
}

# The hand-worked figures of the fixtures: 4 devices x 1000 packets; the
# receiver's 4 streams 1000, 1000, 990 (10 lost), 1000 received.  Summed
# histogram [4096,4352) 2000, [8192,8704) 1000, [16384,17408) 980,
# [1048576,1114112) 10: n 3990; p50 rank 1995 in the first bucket, its
# middle 4224; p99 rank 3951 in the third, 16896; p99.9 rank 3987 in the
# fourth, 1081344 (below the max 1100000).  Starts 900 to 3000 ns late.
REPORT_OK="r['total']['sent'] == 4000 and r['total']['received'] == 3990 \
and r['total']['lost'] == 10 and r['total']['unaccounted'] == 0 \
and r['total']['loss_pct'] == 0.25 and r['total']['p50_ns'] == 4224 \
and r['total']['p99_ns'] == 16896 and r['total']['p999_ns'] == 1081344 \
and r['total']['latency_samples'] == 3990 \
and [(h['host'], h['sent'], h['received'], h['lost']) for h in r['hosts']] \
 == [('rx1', 0, 3990, 10), ('tx1', 2000, 0, 0), ('tx2', 2000, 0, 0)] \
and [(s['stream'], s['lost'], s['loss_pct']) for s in r['streams']][2] == ('id-3c4d5e6f', 10, 1.0) \
and r['start']['spread_ns'] == 2100 and r['start']['worst_late_ns'] == 3000"

merge_ok() {
	mkdir -p "$T/m"
	"$PY" "$COLL/plugins/module_utils/pktgen_report.py" "$T/m" "$FIX"/*.json || return 1
	jcheck "$T/m/report.json" "$REPORT_OK" || return 1
	if ! grep -qx 'total,all,,4000,0,3990,10,0.25,4224,16896,1081344,1100000' "$T/m/report.csv" ||
	   ! grep -qx 'stream,rx1,id-3c4d5e6f,,,990,10,1.0,16896,1081344,1081344,1100000' \
		"$T/m/report.csv"; then
		cat "$T/m/report.csv"
		return 1
	fi
	"$PY" -S "$REPO/tests/lib/tools_check.py" png "$T/m/report.png"
}

# The report role in a real playbook run on the controller (localhost)
role_ok() {
	mkdir -p "$T/r/hosts"
	cp "$FIX"/*.json "$T/r/hosts/"
	cat >"$T/report.yml" <<-EOF
	- name: Report
	  hosts: localhost
	  connection: local
	  gather_facts: false
	  roles: [pktgen.lab.report]
	EOF
	ansible-playbook -i localhost, "$T/report.yml" -e "pktgen_results_dir=$T/r" \
		>"$T/play" 2>&1 || { cat "$T/play"; return 1; }
	grep -q "sent 4000, received 3990, lost 10 (0.25 %)" "$T/play" || { cat "$T/play"; return 1; }
	jcheck "$T/r/report.json" "$REPORT_OK" &&
		"$PY" -S "$REPO/tests/lib/tools_check.py" png "$T/r/report.png"
}

# filter CODE: Python CODE run with the scenario filters imported and sc,
# the example scenario; an AssertionError fails
filter() {
	"$PY" - "$COLL/plugins/filter" "$COLL/examples/two-senders-one-receiver.yml" "$1" <<-'EOF'
	import sys, yaml
	sys.path.insert(0, sys.argv[1])
	from pktgen_scenario import sender_config, receiver_config, scenario_namespaces
	from ansible.errors import AnsibleFilterError
	sc = yaml.safe_load(open(sys.argv[2]))['pktgen_scenario']
	def refused(flow, text):
	    try:
	        sender_config(dict(sc, flows=[flow]), flow['sender'])
	    except AnsibleFilterError as e:
	        assert text in str(e), str(e)
	        return True
	    raise AssertionError('not refused: %r' % (flow,))
	exec(sys.argv[3])
	EOF
}
filter_ok() {
	filter "
tx1 = sender_config(sc, 'tx1')
assert [g['add_device'] for g in tx1] == [['eth1@0', 'eth1@1']], tx1
tx2 = sender_config(sc, 'tx2')[0]['devices']['eth1@1']
assert tx2 == ['count 0', 'duration 5000ms', 'pkt_size 1500', 'dst 10.0.0.13',
               'dst_mac 52:54:00:00:00:13', 'ratep 5000', 'flag NS_TIMESTAMP',
               'flag UDPCSUM'], tx2
assert sender_config(sc, 'rx1') == []
rx = receiver_config(sc, 'rx1')
assert rx == [{'netns': '', 'commands': ['rx_disable', 'rx_reset', 'statistics time',
                                         'rx eth1']}], rx
assert scenario_namespaces(sc, 'rx1') == [''] and scenario_namespaces(sc, 'tx1') == ['']"
}
filter_bad_ok() {
	filter "
f = {'sender': 'a', 'device': 'e', 'dst': '10.0.0.1', 'dst_mac': '02:00:00:00:00:01'}
refused(dict(f, count=5), 'give count or duration_s')	# the defaults have duration_s
refused(dict(f, dst_mac='02:00:00:00:01'), 'not a MAC address')
refused({'sender': 'a', 'device': 'e', 'dst': 'x'}, 'dst_mac is required')
refused(dict(f, rate='1000'), 'unknown keys rate')
refused(dict(f, duration_s='5s'), 'duration_s must be a number')
refused(dict(f, streams=0), 'streams must be an integer >= 1')"
}

# mod NAME CHECK JSON: run module NAME with the arguments JSON (check
# mode if CHECK is 1) as Ansible does, its JSON answer in $T/out.json
mod() {
	printf '{"ANSIBLE_MODULE_ARGS": %s}' "$3" |
		"$PY" -c 'import json, sys; a = json.load(sys.stdin)
a["ANSIBLE_MODULE_ARGS"]["_ansible_check_mode"] = sys.argv[1] == "1"
json.dump(a, open(sys.argv[2], "w"))' "$2" "$T/args.json"
	"$PY" "$COLL/plugins/modules/$1.py" "$T/args.json" >"$T/out.json" 2>&1
	return 0
}
# fails NAME JSON TEXT: the module fails, its msg has TEXT, nothing written
fails() {
	local before
	before=$(cd "$P" && find . -type f -exec md5sum {} + | sort)
	mod "$1" 0 "$2"
	jcheck "$T/out.json" "r.get('failed') and t in r['msg']" "$3" ||
		return 1
	[ "$before" = "$(cd "$P" && find . -type f -exec md5sum {} + | sort)" ] ||
		{ echo "a file changed"; return 1; }
}

P=$T/proc	# a plain directory where /proc/net/pktgen would be
mkdir -p "$P"
: >"$P/kpktgend_0"
args_ok() {
	fails pktgen_config '{"proc_dir": "'"$P"'", "add_device": ["eth1"]}' \
		"thread is required" &&
	fails pktgen_config '{"proc_dir": "'"$P"'", "thread": 0, "add_device": ["../pgctrl"]}' \
		"not a pktgen device name" &&
	fails pktgen_config '{"proc_dir": "'"$P"'", "devices": {"pgctrl": ["start"]}}' \
		"a pktgen control file" &&
	fails pktgen_config '{"proc_dir": "'"$P"'", "devices": {"eth1": ["count 1\nstart"]}}' \
		"a newline" &&
	fails pktgen_config '{"proc_dir": "'"$P"'", "devices": {"eth1": {"count": true}}}' \
		"a boolean" &&
	fails pktgen_config '{"proc_dir": "'"$P"'", "devices": {"eth1": ["dst '"$(printf '%01100d' 0)"'"]}}' \
		"longer than 1023" &&
	fails pktgen_start '{"proc_dir": "'"$P"'", "start_at": "1e9"}' "is not NS or +NS" &&
	fails pktgen_rx '{"proc_dir": "'"$P"'", "commands": [""]}' "an empty command"
}
noproc_ok() {
	fails pktgen_config '{"proc_dir": "'"$T/none"'", "thread": 0, "rem_device_all": true}' \
		"load the module" && jcheck "$T/out.json" "r['errno'] == 2" &&
	fails pktgen_start '{"proc_dir": "'"$T/none"'", "start_at": "+1000000000"}' "load the module" &&
	fails pktgen_collect '{"proc_dir": "'"$T/none"'"}' "not this project" &&
	fails pktgen_config '{"netns": "pgt-no-such-ns", "thread": 0, "rem_device_all": true}' \
		"/run/netns/pgt-no-such-ns" && jcheck "$T/out.json" "r['errno'] == 2"
}
# check mode: the commands it would write, a device added by the same
# task counts as present, nothing written; a device never added fails
check_mode_ok() {
	mod pktgen_config 1 '{"proc_dir": "'"$P"'", "thread": 0, "rem_device_all": true,
		"add_device": ["eth1@0"], "devices": {"eth1@0": {"count": 10, "flag": ["A", "B"]}}}'
	jcheck "$T/out.json" "r['changed'] and [w['command'] for w in r['writes']] == \
['rem_device_all', 'add_device eth1@0', 'count 10', 'flag A', 'flag B']" || return 1
	[ ! -s "$P/kpktgend_0" ] || { echo "written in check mode"; return 1; }
	mod pktgen_config 1 '{"proc_dir": "'"$P"'", "devices": {"eth9": ["count 1"]}}'
	jcheck "$T/out.json" "r.get('failed') and 'eth9: not a pktgen file' in r['msg']"
}
# a real write: one write(2) of "rem_device_all\n"; a plain file shows no
# Result after it, which must fail the task (not pass as OK)
write_ok() {
	mod pktgen_config 0 '{"proc_dir": "'"$P"'", "thread": 0, "rem_device_all": true}'
	jcheck "$T/out.json" "r.get('failed') and 'no \"Result:\" line' in r['msg']" || return 1
	[ "$(od -c "$P/kpktgend_0" | head -2)" = "$(printf 'rem_device_all\n' | od -c | head -2)" ] ||
		{ od -c "$P/kpktgend_0"; return 1; }
}
# a refused write: its errno and strerror reach the task
refused_ok() {
	mkdir -p "$T/p2/kpktgend_0"	# open(O_WRONLY) of a directory: EISDIR
	mod pktgen_config 0 '{"proc_dir": "'"$T/p2"'", "thread": 0, "rem_device_all": true}'
	jcheck "$T/out.json" "r.get('failed') and r['errno'] == 21 and r['errno_name'] == 'EISDIR' \
and 'Is a directory' in r['msg'] and r['writes'] == []" || return 1
	# pgctrl's reset (no Result to read there) written, then the refusal:
	# the task lists what it wrote before failing
	: >"$T/p2/pgctrl"
	mod pktgen_config 0 '{"proc_dir": "'"$T/p2"'", "reset": true, "thread": 0, "rem_device_all": true}'
	jcheck "$T/out.json" "r.get('failed') and r['errno'] == 21 and \
[w['command'] for w in r['writes']] == ['reset']" || return 1
	[ "$(cat "$T/p2/pgctrl")" = reset ]
}
# pgstats read and parsed as pgstats --json (the exporter's fixture);
# check mode leaves pgrx unwritten and reads it only if it is JSON already
collect_ok() {
	mkdir -p "$T/p3"
	cp "$REPO/tests/host/exporter-fixture/pktgen/pgstats" "$T/p3/"
	printf 'Receiver on: eth1\nResult: OK: rx=eth1\n' >"$T/p3/pgrx"
	mod pktgen_collect 1 '{"proc_dir": "'"$T/p3"'"}'
	jcheck "$T/out.json" "not r['changed'] and r['pgrx'] is None and len(r['pgstats']) == 1 \
and r['pgstats'][0]['device'] == 'veth0' and r['pgstats'][0]['pkts_sofar'] == 50 \
and r['pgstats'][0]['started_real_ns'] == 1764620000000012000 \
and r['pgstats'][0]['result'].startswith('OK: 120(c120+d0) usec')" || return 1
	grep -q '^Receiver on' "$T/p3/pgrx" || { echo "pgrx written in check mode"; return 1; }
	pgrx_of "$FIX/rx1.json" >"$T/p3/pgrx"
	mod pktgen_collect 1 '{"proc_dir": "'"$T/p3"'"}'
	jcheck "$T/out.json" "r['pgrx']['stream_count'] == 4 and len(r['pgrx']['streams']) == 4"
}
# pktgen_start's check mode: the command, no write
start_check_ok() {
	: >"$P/pgctrl"
	mod pktgen_start 1 '{"proc_dir": "'"$P"'", "start_at": "1764620000000000000"}'
	jcheck "$T/out.json" "r['changed'] and r['command'] == 'start_at 1764620000000000000'" &&
		[ ! -s "$P/pgctrl" ]
}

# The whole playbook in check mode on three hosts that are this one
# (tx1, tx2, rx1: local connections) with a directory for pktgen's files:
# every role's templates, loops and filters on the example scenario, one
# start_at time for both senders (the controller's now + lead_s), the
# report of the (fixture) documents; nothing written anywhere.
play_check_ok() {
	local before now
	mkdir -p "$T/lab" "$T/res/hosts"
	: >"$T/lab/kpktgend_0"
	: >"$T/lab/pgctrl"
	cp "$REPO/tests/host/exporter-fixture/pktgen/pgstats" "$T/lab/"
	pgrx_of "$FIX/rx1.json" >"$T/lab/pgrx"
	cp "$FIX"/*.json "$T/res/hosts/"
	printf '[pktgen]\n%s ansible_connection=local ansible_become=false\n' tx1 tx2 rx1 >"$T/inv"
	# ansible-core has no JSON stdout callback (ansible.posix has): a minimal one
	mkdir -p "$T/cb"
	cat >"$T/cb/pgjson.py" <<-'EOF'
	import json
	from ansible.plugins.callback import CallbackBase
	class CallbackModule(CallbackBase):
	    CALLBACK_VERSION = 2.0
	    CALLBACK_TYPE = 'stdout'
	    CALLBACK_NAME = 'pgjson'
	    def __init__(self):
	        super().__init__()
	        self.res = {}
	    def _add(self, r, state):
	        d = dict(r._result, state=state)
	        self.res.setdefault(r._task.name, {})[r._host.get_name()] = d
	    def v2_runner_on_ok(self, r):
	        self._add(r, 'ok')
	    def v2_runner_on_failed(self, r, ignore_errors=False):
	        self._add(r, 'failed')
	    def v2_runner_on_skipped(self, r):
	        self._add(r, 'skipped')
	    def v2_runner_on_unreachable(self, r):
	        self._add(r, 'unreachable')
	    def v2_playbook_on_stats(self, stats):
	        st = {h: stats.summarize(h) for h in sorted(stats.processed)}
	        self._display.display(json.dumps({'tasks': self.res, 'stats': st}, default=str))
	EOF
	before=$(cd "$T" && find lab res -type f -exec md5sum {} + | sort)
	now=$(date +%s)
	ANSIBLE_STDOUT_CALLBACK=pgjson ANSIBLE_CALLBACK_PLUGINS=$T/cb \
		ansible-playbook --check -i "$T/inv" pktgen.lab.scenario --skip-tags install \
		-e "@$COLL/examples/two-senders-one-receiver.yml" \
		-e "pktgen_proc_dir=$T/lab pktgen_results_dir=$T/res" >"$T/play.json" 2>"$T/play.err" ||
		{ cat "$T/play.err"; head -c 4000 "$T/play.json"; return 1; }
	"$PY" - "$T/play.json" "$now" <<-'EOF' || return 1
	import json, sys
	out = json.load(open(sys.argv[1]))
	now = int(sys.argv[2])
	assert all(not s['failures'] and not s['unreachable'] for s in out['stats'].values()), out['stats']
	res = out['tasks']
	cfg = res['Add and configure the stream devices, per thread']
	w = [x['command'] for x in cfg['tx1']['results'][0]['writes']]
	assert w[:3] == ['rem_device_all', 'add_device eth1@0', 'add_device eth1@1'], w
	assert w.count('flag NS_TIMESTAMP') == 2 and 'ratep 10000' in w, w
	assert cfg['rx1'].get('skipped') or not cfg['rx1'].get('results'), cfg['rx1']
	rx = res['Configure the receivers']['rx1']['results'][0]['writes']
	assert [x['command'] for x in rx][-1] == 'rx eth1', rx
	st = res['Start at the common time and wait for the end of the run']
	cmds = {h: st[h]['results'][0]['command'] for h in ('tx1', 'tx2')}
	assert len(set(cmds.values())) == 1, cmds
	at = int(cmds['tx1'].split()[1])
	assert now + 10 <= at / 1e9 <= now + 60, (at, now)
	col = res["Read pgstats and pgrx's JSON in each namespace of the scenario"]
	assert col['tx1']['results'][0]['pgstats'][0]['pkts_sofar'] == 50, col['tx1']
	assert col['rx1']['results'][0]['pgrx']['stream_count'] == 4, col['rx1']
	rep = res["Merge every host's figures into report.json, report.csv and report.png"]['localhost']
	assert rep['total']['sent'] == 4000 and rep['total']['lost'] == 10, rep
	EOF
	[ "$before" = "$(cd "$T" && find lab res -type f -exec md5sum {} + | sort)" ] ||
		{ echo "check mode wrote"; return 1; }
}

# The collection as a user installs it: built, installed into a path of
# its own, its modules found there
build_ok() {
	local v
	v=$(cat "$REPO/VERSION")
	if ! ansible-galaxy collection build "$COLL" --output-path "$T/build" >"$T/build.log" 2>&1 ||
	   [ ! -f "$T/build/pktgen-lab-$v.tar.gz" ] ||
	   ! ansible-galaxy collection install -p "$T/inst" "$T/build/pktgen-lab-$v.tar.gz" \
		>>"$T/build.log" 2>&1; then
		cat "$T/build.log"
		return 1
	fi
	ANSIBLE_COLLECTIONS_PATH=$T/inst ansible-doc -l pktgen.lab >"$T/list" 2>&1
	if [ "$(grep -c '^pktgen\.lab\.pktgen_' "$T/list")" -ne 5 ]; then
		cat "$T/list"
		return 1
	fi
	ANSIBLE_COLLECTIONS_PATH=$T/inst ansible-galaxy collection list pktgen.lab 2>&1 |
		grep -q "pktgen.lab *$v"
}

# in_netns: the work runs in a child that entered the namespace (its
# /proc/self/ns/net is the namespace's, not ours), the child's error
# comes back with its errno and the writes done; a module with netns
# writes from there
netns_ok() {
	"$PY" - "$NSA" <<-'EOF' || return 1
	import os, subprocess, sys
	from ansible_collections.pktgen.lab.plugins.module_utils import pktgen_proc as pp
	ns = sys.argv[1]
	mine = os.readlink('/proc/self/ns/net')
	want = subprocess.check_output(['ip', 'netns', 'exec', ns, 'readlink', '/proc/self/ns/net'],
	                               text=True).strip()
	got = pp.in_netns(ns, lambda: os.readlink('/proc/self/ns/net'))
	assert got == want != mine, (got, want, mine)
	def boom():
	    raise pp.PktgenError('refused', 22, 'ERROR: x', [{'command': 'a'}])
	try:
	    pp.in_netns(ns, boom)
	    raise AssertionError('no error')
	except pp.PktgenError as e:
	    assert (e.errno, e.result, e.done) == (22, 'ERROR: x', [{'command': 'a'}]), vars(e)
	    assert str(e) == 'netns %s: refused' % ns, str(e)
	EOF
	mkdir -p "$T/p4"
	: >"$T/p4/kpktgend_0"
	mod pktgen_config 0 '{"netns": "'"$NSA"'", "proc_dir": "'"$T/p4"'", "thread": 0, "rem_device_all": true}'
	jcheck "$T/out.json" "r.get('failed') and 'no \"Result:\" line' in r['msg'] and \
r['msg'].startswith('netns ')" || return 1
	[ "$(cat "$T/p4/kpktgend_0")" = rem_device_all ]
}

check "galaxy.yml's version is VERSION's" version_ok
check "ansible-lint (production profile): 0 failures, 0 warnings" lint_ok
check "ansible-playbook --syntax-check of every playbook with the example scenario" syntax_ok
check "ansible-galaxy collection build and install: the 5 modules found there" build_ok
check "ansible-doc renders every module (options with the shared fragment, examples, return values)" doc_ok
check "merge of the fixtures: totals, loss, percentiles, start spread, CSV, a PNG" merge_ok
check "the report role in a playbook run on localhost: the same report" role_ok
check "scenario filters: the example's devices, commands and receiver" filter_ok
check "scenario filters: bad flows refused with the reason" filter_bad_ok
check "modules refuse bad arguments before any write" args_ok
check "no /proc/net/pktgen or no such netns: a failure with errno ENOENT" noproc_ok
check "pktgen_config check mode: the commands, nothing written" check_mode_ok
check "pktgen_config: one write of 'cmd\\n'; no Result line afterwards fails the task" write_ok
check "pktgen_config: a refused write fails with its errno, listing the writes before it" refused_ok
check "pktgen_start check mode: the command, nothing written" start_check_ok
check "pktgen_collect: pgstats parsed, pgrx untouched in check mode, its JSON read" collect_ok
if setup_ns NSA >/dev/null 2>&1; then
	check "netns: the work in a child that entered it; its errors and writes come back" netns_ok
else
	ktap_skip "netns: the work in a child that entered it" "cannot make a netns (root?)"
fi
check "the scenario playbook in check mode on 3 local hosts: one start_at, the report, no write" \
	play_check_ok
echo "$_KT_PASS passed, $_KT_FAIL failed, $_KT_SKIP skipped"
ktap_finish
