#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Compare the device files the stock module and ours wrote (tests/params-diff.sh).

    params_compare.py STOCKDIR TESTDIR N MASK

For each sequence 1..N (STOCKDIR/i.log against TESTDIR/i.log) print
"i ok", or "i diff" and the unified diff as "# " lines, after normalising
the timing numbers (started/stopped/idle, the Result's usec, the rate
line).  Stock before v6.7 has no SHARED flag (fresh devices show
"Flags: ", another unknown-flag list): with MASK=1 the SHARED bit is
masked out of both sides.
"""

import difflib, re, sys
a, b, n, mask = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
subs = [
    (re.compile(r"^(     started: )\d+(us  stopped: )\d+(us idle: )\d+us$"), r"\1N\2N\3Nus"),
    (re.compile(r"^Result: OK: \d+\(c\d+\+d\d+\) usec, "), "Result: OK: N(cN+dN) usec, "),
    (re.compile(r"^  \d+pps \d+Mb/sec \(\d+bps\) errors: "), "  Npps NMb/sec (Nbps) errors: "),
]
def norm(path):
    out = []
    for l in open(path, encoding="latin-1").read().split("\n"):
        for r, t in subs:
            l = r.sub(t, l)
        if mask:
            l = re.sub(r"flags=0x([0-9a-f]+)",
                       lambda m: "flags=0x%x" % (int(m.group(1), 16) & ~0x40000), l)
            if l.startswith("     Flags: "):
                l = "     Flags: " + "".join(f + "  " for f in l[12:].split() if f != "SHARED")
        out.append(l + "\n")
    return out
for i in range(1, n + 1):
    x, y = norm("%s/%d.log" % (a, i)), norm("%s/%d.log" % (b, i))
    if x == y:
        print(i, "ok")
        continue
    print(i, "diff")
    for l in difflib.unified_diff(x, y, "stock", "test"):
        print("# " + l.rstrip("\n"))
