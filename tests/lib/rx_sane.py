#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""The receiver's figures agree with each other (tests/fuzz-rx.sh).

    rx_sane.py WRAP < pgrx's text in "display script"

Exit 0 if every KEY=VALUE is unwrapped (0 <= VALUE < WRAP) and, for the
totals and every stream (sN_ prefix): reordered, duplicates, late and
the sample counts at most rx_packets; latency and gap min <= avg <= max
and stddev at most (max - min) / 2 + 1; the latency percentiles in
order; streams at most streams_max.  Else print what disagrees and the
totals, exit 1.
"""

import re, sys
wrap = int(sys.argv[1])
kv = {}
for line in sys.stdin:
    m = re.match(r"^(\w+)=(-?\d+)$", line.strip())
    if m:
        kv[m.group(1)] = int(m.group(2))
bad = ["%s=%d (wrapped)" % (k, v) for k, v in kv.items() if v < 0 or v >= wrap]
prefixes = [""] + sorted({k.split("_")[0] + "_" for k in kv if re.match(r"s\d+_", k)})
for p in prefixes:
    g = lambda k: kv.get(p + k, 0)
    n = g("rx_packets")
    for k in ("reordered", "duplicates", "late", "latency_samples", "gap_samples"):
        if g(k) > n:
            bad.append("%s%s=%d > rx_packets=%d" % (p, k, g(k), n))
    for w in ("latency", "gap"):
        if g(w + "_samples") == 0:
            continue
        lo, av, hi = g(w + "_min_ns"), g(w + "_avg_ns"), g(w + "_max_ns")
        if not lo <= av <= hi:
            bad.append("%s%s: min %d avg %d max %d" % (p, w, lo, av, hi))
        if g(w + "_stddev_ns") > (hi - lo) // 2 + 1:
            bad.append("%s%s_stddev_ns=%d > (max-min)/2" % (p, w, g(w + "_stddev_ns")))
    if g("latency_samples") and p == "":
        q = [g("latency_p%s_ns" % x) for x in ("50", "90", "99", "999")]
        if q != sorted(q):
            bad.append("percentiles out of order: %s" % q)
if kv.get("streams", 0) > kv.get("streams_max", 0):
    bad.append("streams %d > streams_max %d" % (kv["streams"], kv["streams_max"]))
if bad:
    print("\n".join(bad))
    print("\n".join("%s=%d" % kv_ for kv_ in kv.items() if not kv_[0].startswith("s")))
    sys.exit(1)
