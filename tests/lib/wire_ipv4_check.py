#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Frame checker of tests/wire-ipv4.sh: headers, ids, seqs, time, padding.

    pcap.py FILE | wire_ipv4_check.py RUNS DST_MAC SRC_IP DST_IP

stdin: pcap.py's JSON lines; RUNS: a JSON list of runs {lab, n, size,
smac, id0 (-1: any), ts ("now"|"zero"), t0, t1}.  The capture is split
into runs where the pktgen seq restarts at 1.  Prints "PASS lab: name" /
"FAIL lab: name|why" (tests/lib/lib.sh ktap_report) for a fixed list of
checks per run (wire-ipv4.sh's NCHECKS).
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcap import Run, first_bad as bad, split_runs  # noqa: E402

runs, dmac, sip, dip = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
other, parts = split_runs(json.loads(l) for l in sys.stdin if l.strip())

for i, r in enumerate(runs):
    lab, n, size, smac, id0 = r["lab"], r["n"], r["size"], r["smac"], r["id0"]
    t0, t1 = r["t0"], r["t1"]
    fr = parts[i] if i < len(parts) else []
    check = Run(lab).check

    why = None
    if len(fr) != n:
        why = "%d pktgen frames in this run" % len(fr)
    elif i == 0 and other:
        why = "%d non-pktgen frames, first: %s" % (len(other), json.dumps(other[0]))
    elif i == 0 and len(parts) != len(runs):
        why = "%d runs found in the capture" % len(parts)
    check("exactly %d frames captured" % n + (", nothing else" if i == 0 else ""), why)
    check("frame length %d" % size,
          bad(fr, lambda f: f["len"] == size and f["wire_len"] == size, "length"))
    check("ethernet dst %s src %s type 0x0800" % (dmac, smac),
          bad(fr, lambda f: f["dst"] == dmac and f["src"] == smac and
              f["ethertype"] == 0x0800 and "vlans" not in f, "ethernet"))
    check("ipv4 ver 4 ihl 5 tos 0 tot_len %d frag 0 ttl 32 proto 17" % (size - 14),
          bad(fr, lambda f: (f["ip"]["version"], f["ip"]["ihl"], f["ip"]["tos"],
                             f["ip"]["tot_len"], f["ip"]["frag"], f["ip"]["ttl"],
                             f["ip"]["proto"], f["ip"]["options"]) ==
              (4, 5, 0, size - 14, 0, 32, 17, ""), "ipv4 header"))
    check("ipv4 header checksum valid",
          bad(fr, lambda f: f["ip"]["csum_ok"] is True, "ipv4 checksum"))
    ids = [f.get("ip", {}).get("id") for f in fr]
    why = None
    if not ids:
        why = "no frames"
    elif id0 >= 0 and ids[0] != id0:
        why = "first id %s, expected %d" % (ids[0], id0)
    else:
        for k in range(1, len(ids)):
            if ids[k] != (ids[k - 1] + 1) % 65536:
                why = "frame %d: id %s after %s" % (fr[k]["n"], ids[k], ids[k - 1])
                break
    check("ipv4 id +1 per packet" + (" from %d" % id0 if id0 >= 0 else ""), why)
    check("ipv4 src %s dst %s" % (sip, dip),
          bad(fr, lambda f: f["ip"]["src"] == sip and f["ip"]["dst"] == dip,
              "addresses"))
    check("udp 9->9, len tot_len-20, csum 0",
          bad(fr, lambda f: (f["udp"]["sport"], f["udp"]["dport"], f["udp"]["len"],
                             f["udp"]["csum"]) == (9, 9, f["ip"]["tot_len"] - 20, 0),
              "udp header"))
    seqs = [f["pktgen"]["seq"] for f in fr]
    check("magic be9be955, seq 1..%d" % n,
          None if seqs == list(range(1, n + 1)) else "seqs %s" % seqs[:20])
    if r["ts"] == "zero":
        check("NO_TIMESTAMP: tv_sec 0, tv_usec 0",
              bad(fr, lambda f: f["pktgen"]["tv_sec"] == 0 and
                  f["pktgen"]["tv_usec"] == 0, "timestamp"))
    else:
        why = bad(fr, lambda f: t0 - 1 <= f["pktgen"]["tv_sec"] <= t1 + 1 and
                  0 < f["pktgen"]["tv_usec"] < 1000000,
                  "tv_sec/usec not in [%d, %d]/(0, 1e6)" % (t0 - 1, t1 + 1))
        ts = [(f["pktgen"]["tv_sec"], f["pktgen"]["tv_usec"]) for f in fr]
        for k in range(1, len(ts)):
            if why is None and ts[k] < ts[k - 1]:
                why = "frame %d: time %s before %s" % (fr[k]["n"], ts[k], ts[k - 1])
        check("timestamps non-zero, non-decreasing, near the guest date", why)
    check("padding %d zero bytes" % (size - 58),
          bad(fr, lambda f: f["pktgen"]["pad_zero"] is True and
              f["pktgen"]["pad_len"] == size - 58, "padding"))
