#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Checker of tests/wire-reuse.sh: every held frame carries its own packet.

    wire_reuse_check.py N BURST < pktsock_hold.py's OUT

Prints one line, "ok" or what is wrong: N frames queued (the socket's
queue held every one), every IPv4 header checksum good, the seqs in the
order sent (1, 2, 3 ... for start_xmit; BURST frames each of 1, 1+BURST,
... for a netif_receive burst), the copies of one packet with one IP id
and no two packets with the same one.
"""

import sys
n, burst = int(sys.argv[1]), int(sys.argv[2])
rows = [tuple(map(int, l.split())) for l in sys.stdin if l.strip()]
why = []
if len(rows) != n:
    why.append("%d frames queued, %d sent" % (len(rows), n))
if any(not c for _, _, c in rows):
    why.append("a bad IP header checksum")
# the pktgen seq of each injection/frame, in order: 1, 2, 3 ... for
# start_xmit; BURST frames each of 1, 1+BURST, 1+2*BURST ... for a burst
want = [1 + (i // burst) * burst for i in range(n)]
seqs = [s for s, _, _ in rows]
if seqs != want[:len(seqs)]:
    i = next(i for i, (a, b) in enumerate(zip(seqs, want)) if a != b)
    why.append("frame %d has seq %d, want %d (seqs %s)" %
               (i, seqs[i], want[i], seqs[max(0, i - 3):i + 4]))
ids = {}
for s, ipid, _ in rows:
    ids.setdefault(s, set()).add(ipid)
if any(len(v) != 1 for v in ids.values()):
    why.append("frames of one packet with different IP ids")
if len(set(min(v) for v in ids.values())) != len(ids):
    why.append("two packets with one IP id")
print("ok" if not why else "; ".join(why))
