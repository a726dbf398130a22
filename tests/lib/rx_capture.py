#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""The receiver's figures recomputed from a capture of the frames it counted.

    rx_capture.py LABEL PCAP [--skip N [--count N]] [--copies K] KEY[:ABS[:REL]]... <RX_TEXT

PCAP is tcpdump's capture on the receiving device (the packet tap runs
just before the receiver's hook, so it sees the same frames in the same
order; --time-stamp-precision=nano for nanosecond times).  The pktgen
frames (IPv4, magic 0xbe9be955 after the UDP header) from the (N+1)th on
are one stream, one epoch.  From them, written from the definitions of
Documentation/receiver.rst and not from pktgen_rx.c:

  latency   capture time - (tv_sec, tv_usec) stamp: samples, min, avg
            (floor), max, stddev (population), p50/p90/p99/p999
            (nearest rank, ceil(p * n)); jitter_ns: RFC 3550 A.8 over
            the frames in arrival order
  gaps      differences of consecutive capture times: samples, min,
            avg, max, stddev; rate_pps (n - 1) / span, rate_bps the bits
            of n - 1 frames (bytes x 8 x (n - 1) / n) / span
  sequence  lost (numbers from the first to the highest not seen),
            duplicates, reordered (RFC 4737: below the highest so far,
            not seen before); with --copies K (pgrx "copies K": clone_skb
            or burst, seq_num advancing by every packet sent, the K
            packets of one skb numbered as its first) a frame numbered s
            is one of s .. s+K-1, the lowest not seen yet (a duplicate
            when all K were)

Each KEY given is compared with RX_TEXT's KEY (display script): equal
within ABS + REL x |capture value| (exact without ABS and REL).  The
capture time is taken when the frame is queued to the receiving device,
a few microseconds before the receiver reads its clock, so timing keys
need an ABS of that order.  Prints one "PASS LABEL: KEY ..." or
"FAIL LABEL: KEY ...|why" line per KEY (tests/lib/lib.sh ktap_report),
after a "#" line per KEY with both values.
"""
import math
import struct
import sys

MAGIC = 0xBE9BE955


def records(path):
    """(time in ns, frame) of each record of a classic pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    table = {0xA1B2C3D4: ("<", 1000), 0xA1B23C4D: ("<", 1),
             0xD4C3B2A1: (">", 1000), 0x4D3CB2A1: (">", 1)}
    end, unit = table[magic]
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack(end + "IIII", data[off:off + 16])
        off += 16
        if off + incl > len(data):
            break
        yield sec * 10**9 + frac * unit, data[off:off + incl], orig
        off += incl


def pktgen_frames(path):
    """(time, seq, stamp in ns or None, wire length) of the pktgen frames."""
    out = []
    for t, f, orig in records(path):
        if len(f) < 34 or f[12:14] != b"\x08\x00" or f[23] != 17:
            continue
        ihl = (f[14] & 15) * 4
        p = 14 + ihl + 8
        if len(f) < p + 16:
            continue
        magic, seq, sec, usec = struct.unpack("!IIII", f[p:p + 16])
        if magic != MAGIC:
            continue
        stamp = None if sec == 0 and usec == 0 else sec * 10**9 + usec * 1000
        out.append((t, seq, stamp, orig))
    return out


def moments(v):
    n = len(v)
    if not n:
        return {"samples": 0, "min": 0, "avg": 0, "max": 0, "stddev": 0}
    s = sum(v)
    var = (n * sum(x * x for x in v) - s * s) / (n * n)
    return {"samples": n, "min": min(v), "avg": s // n, "max": max(v),
            "stddev": math.sqrt(max(var, 0))}


def figures(fr, copies=1):
    fig = {}
    lat = [t - st for t, _, st, _ in fr if st is not None]
    pos = sorted(x for x in lat if x >= 0)
    for k, v in moments(pos).items():
        fig["latency_%s_ns" % k if k != "samples" else "latency_samples"] = v
    fig["latency_negative"] = len(lat) - len(pos)
    for name, p in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999)):
        fig["latency_%s_ns" % name] = pos[max(math.ceil(p * len(pos)), 1) - 1] if pos else 0
    j, prev = 0.0, None
    for x in lat:
        if prev is not None:
            j += (abs(x - prev) - j) / 16
        prev = x
    fig["jitter_ns"] = j
    times = [t for t, _, _, _ in fr]
    gaps = [b - a for a, b in zip(times, times[1:])]
    for k, v in moments(gaps).items():
        fig["gap_%s_ns" % k if k != "samples" else "gap_samples"] = v
    n, span = len(fr), (times[-1] - times[0]) if fr else 0
    nbytes = sum(f[3] for f in fr)
    fig["rate_pps"] = (n - 1) * 1e9 / span if span else 0
    fig["rate_bps"] = nbytes * 8 * (n - 1) / n * 1e9 / span if span else 0
    seen, top, reord, dup = set(), None, 0, 0
    for _, num, _, _ in fr:
        seq = next((num + j for j in range(copies) if num + j not in seen), None)
        if seq is None:
            dup += 1
            continue
        if top is not None and seq < top:
            reord += 1
        seen.add(seq)
        top = seq if top is None else max(top, seq)
    first = min(seen) if seen else 0
    fig.update(rx_packets=n, rx_bytes=nbytes, duplicates=dup, reordered=reord,
               lost=(top - first + 1 - len(seen)) if seen else 0)
    return fig


def main():
    label, path, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    skip, count, copies = 0, None, 1
    if args[:1] == ["--skip"]:
        skip, args = int(args[1]), args[2:]
    if args[:1] == ["--count"]:
        count, args = int(args[1]), args[2:]
    if args[:1] == ["--copies"]:
        copies, args = int(args[1]), args[2:]
    rx = dict(line.split("=", 1) for line in sys.stdin.read().splitlines() if "=" in line)
    fr = pktgen_frames(path)[skip:]
    fig = figures(fr[:count] if count is not None else fr, copies)
    for spec in args:
        key, _, tol = spec.partition(":")
        ab, _, rel = tol.partition(":")
        ab, rel = float(ab or 0), float(rel or 0)
        got, want = rx.get(key), fig[key]
        name = "%s: %s = capture's" % (label, key)
        if ab or rel:
            name += " (within %g + %g%%)" % (ab, rel * 100)
        print("# %s: %s receiver %s, capture %.1f" % (label, key, got, want))
        if got is None or not got.lstrip("-").isdigit():
            print("FAIL %s|receiver has no %s" % (name, key))
        elif abs(int(got) - want) <= ab + rel * abs(want) + (0.5 if ab or rel else 0):
            print("PASS " + name)
        else:
            print("FAIL %s|receiver %s, capture %.1f (off by %.1f)"
                  % (name, got, want, int(got) - want))


if __name__ == "__main__":
    main()
