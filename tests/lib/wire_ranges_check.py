#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Range checker of tests/wire-ranges.sh: fields over a run in sequence or set.

    pcap.py FILE | wire_ranges_check.py RUNS

stdin: pcap.py's JSON lines; RUNS: a JSON list of runs {lab, n, checks:
[[name, field, kind, values], ...]} where field is one of ip.src ip.dst
udp.sport udp.dport src dst len, kind "seq" (the field over the run is
`values` repeated) or "set" (every value is in `values` and every one of
`values` occurs).  The capture is split into runs where the pktgen seq
restarts at 1.  Per run it also checks the frame count / seq and that
every length field matches the frame size.  Prints PASS/FAIL lines
(tests/lib/lib.sh ktap_report).
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcap import Run, field as get, split_runs  # noqa: E402

runs = json.loads(sys.argv[1])
other, parts = split_runs(json.loads(l) for l in sys.stdin if l.strip())

for i, r in enumerate(runs):
    fr = parts[i] if i < len(parts) else []
    n = r["n"]
    check = Run(r["lab"]).check

    seqs = [f["pktgen"]["seq"] for f in fr]
    why = None
    if seqs != list(range(1, n + 1)):
        why = "%d frames, seqs %s" % (len(fr), seqs[:20])
    elif i == 0 and other:
        why = "%d non-pktgen frames, first: %s" % (len(other), json.dumps(other[0]))
    check("%d frames, seq 1..%d" % (n, n), why)
    why = None
    for f in fr:
        try:
            ok = (f["ip"]["tot_len"] == f["len"] - 14 and
                  f["udp"]["len"] == f["len"] - 34 and
                  f["pktgen"]["pad_len"] == f["len"] - 58 and
                  f["pktgen"]["pad_zero"] and f["ip"]["csum_ok"])
        except KeyError:
            ok = False
        if not ok:
            why = "frame %d: %s" % (f["n"], json.dumps(f))
            break
    check("ip/udp lengths match each frame size, ip csum ok", why)
    for name, field, kind, values in r["checks"]:
        try:
            got = [get(f, field) for f in fr]
        except KeyError as e:
            check(name, "missing %s" % e)
            continue
        why = None
        if kind == "seq":
            want = [values[k % len(values)] for k in range(len(got))]
            if not got or got != want:
                why = "got %s, want %s" % (got, want)
        else:
            out = sorted(set(v for v in got if v not in values), key=str)
            miss = sorted(set(values) - set(got), key=str)
            if not got or out or miss:
                why = "outside %s: %s; never seen: %s" % (values, out, miss)
        check(name, why)
