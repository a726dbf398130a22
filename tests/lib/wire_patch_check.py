#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Checker of tests/wire-patch.sh: the sampled frames of a patched burst.

    wire_patch_check.py N BURST SAMPLE WHAT < pktsock_sample.py's OUT
    wire_patch_check.py batch < lines "N BURST SAMPLE WHAT OUTFILE"

Prints "ok" or what is wrong (batch: a line for each line, in order: a
Python start costs about a second under TCG).  WHAT: "fixed" (nothing varies but the
per-packet fields: every byte outside them is the first frame's),
"fixed-udpcsum" (the same, and the UDP checksum) or "vary:FIELD" (FIELD
takes more than one value: sport saddr daddr smac dmac len).  Every
copy of a burst is the same frame; seqs, IP ids and checksums follow;
the pktgen time is that of arrival.
"""

import struct, sys

def fold(t):
    while t >> 16:
        t = (t & 0xffff) + (t >> 16)
    return t

def parse(fr):
    p = {"fr": fr, "dmac": fr[0:6], "smac": fr[6:12], "len": len(fr)}
    et = struct.unpack("!H", fr[12:14])[0]
    if et == 0x0800:
        ihl = (fr[14] & 15) * 4
        ip = fr[14:14 + ihl]
        p.update(v4=True, ipid=struct.unpack("!H", ip[4:6])[0],
                 ipok=fold(sum(struct.unpack("!%dH" % (ihl // 2), ip))) == 0xffff,
                 saddr=ip[12:16], daddr=ip[16:20], l4=14 + ihl)
        pseudo = ip[12:20] + struct.pack("!BBH", 0, 17, len(fr) - 14 - ihl)
    else:
        p.update(v4=False, ipok=True, ipid=None, saddr=fr[22:38], daddr=fr[38:54], l4=54)
        pseudo = fr[22:54] + struct.pack("!IxxxB", len(fr) - 54, 17)
    l4 = p["l4"]
    p["sport"] = fr[l4:l4 + 2]
    udp = fr[l4:]
    if len(udp) % 2:
        udp += b"\0"
    p["ucsum"] = struct.unpack("!H", fr[l4 + 6:l4 + 8])[0]
    p["uok"] = fold(sum(struct.unpack("!%dH" % (len(pseudo + udp) // 2), pseudo + udp))) == 0xffff
    p["magic"], p["seq"], p["sec"], p["usec"] = struct.unpack("!IIII", fr[l4 + 8:l4 + 24])
    return p

def check(n, burst, sample, what, lines):
    frames = []
    for l in lines:
        if l.strip():
            hx, sec, nsec = l.split()
            frames.append(dict(parse(bytes.fromhex(hx)), rx=int(sec) * 10**6 + int(nsec) // 1000))
    frames = [f for f in frames if f["magic"] == 0xbe9be955]
    why = []
    by_seq = {}
    for f in frames:
        by_seq.setdefault(f["seq"], []).append(f)
    want = list(range(1, n + 1, sample))
    if sorted(by_seq) != want:
        why.append("seqs %s, want %s" % (sorted(by_seq)[:6], want[:6]))
    if any(len(v) != burst or any(g["fr"] != v[0]["fr"] for g in v) for v in by_seq.values()):
        why.append("a burst whose %d copies are not one frame" % burst)
    pk = [by_seq[s][0] for s in sorted(by_seq)]
    if any(not p["ipok"] for p in pk):
        why.append("a bad IP header checksum")
    if any(p["ucsum"] and not p["uok"] for p in pk):
        why.append("a bad UDP checksum")
    if pk and pk[0]["v4"]:
        ids = [(p["ipid"] - pk[0]["ipid"]) & 0xffff for p in pk]
        if ids != [(i * sample // burst) & 0xffff for i in range(len(pk))]:
            why.append("IP ids step %s, want %d" % (ids[:6], sample // burst))
    # the pktgen time is that of the build: a stale one (a frame patched
    # without it) would be that of the packet after the SAMPLE before,
    # SAMPLE / BURST - 1 bursts earlier, some ms at least
    lag = sorted(p["rx"] - (p["sec"] * 10**6 + p["usec"]) for p in pk)
    if pk and not -1000 <= lag[len(lag) // 2] <= 2000:
        why.append("pktgen times lag arrival by %s us (median %d)" % (lag[:4], lag[len(lag) // 2]))
    if what.startswith("fixed") and pk:
        mask = set()
        l4 = pk[0]["l4"]
        if pk[0]["v4"]:
            mask |= {18, 19, 24, 25}			# IP id, checksum
        if what == "fixed-udpcsum":
            mask |= {l4 + 6, l4 + 7}
            if any(not p["ucsum"] for p in pk):
                why.append("no UDP checksum")
        mask |= set(range(l4 + 12, l4 + 24))		# pktgen seq, time
        f0 = pk[0]["fr"]
        for p in pk[1:]:
            d = [i for i in range(max(len(f0), len(p["fr"])))
                 if i not in mask and (i >= len(p["fr"]) or i >= len(f0) or p["fr"][i] != f0[i])]
            if d:
                why.append("seq %d differs from seq 1 at bytes %s" % (p["seq"], d[:8]))
                break
    elif what.startswith("vary:"):
        field = what[5:]
        if len(set(p[field] if not isinstance(p[field], bytes) else p[field].hex() for p in pk)) < 2:
            why.append("%s is the same in every packet" % field)
    return "ok" if not why else "; ".join(why)

if sys.argv[1] == "batch":
    for req in sys.stdin:
        a = req.split()
        if not a:
            continue
        with open(a[4]) as f:
            print(check(int(a[0]), int(a[1]), int(a[2]), a[3], f))
else:
    print(check(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.stdin))
