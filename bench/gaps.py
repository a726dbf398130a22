#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Inter-arrival gaps of the pktgen packets in a capture.

    gaps.py FILE.pcap  ->  "SAMPLES AVG_NS STDDEV_NS" (or "0 0 0")

A gap is counted only between packets whose pktgen sequence numbers
follow each other, so a frame the capture lost (tcpdump under TCG does
lose some at 100k pps) leaves a hole, not a double gap.  Reads classic
pcap with microsecond or nanosecond timestamps (tcpdump
--time-stamp-precision=nano), Ethernet, IPv4 without VLAN tags.
"""

import statistics
import struct
import sys

PKTGEN_MAGIC = b"\xbe\x9b\xe9\x55"


def records(data):
    """(timestamp ns, frame) of every record."""
    magic = struct.unpack("<I", data[:4])[0]
    scale = {0xA1B23C4D: 1, 0xA1B2C3D4: 1000}.get(magic)
    if scale is None or struct.unpack("<I", data[20:24])[0] != 1:
        raise ValueError("not a little-endian Ethernet pcap")
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack("<IIII", data[off:off + 16])
        off += 16
        yield sec * 1_000_000_000 + frac * scale, data[off:off + incl]
        off += incl


def pktgen_seq(frame):
    """The sequence number of a pktgen IPv4/UDP frame, else None."""
    if len(frame) < 34 or frame[12:14] != b"\x08\x00":
        return None
    udp = 14 + (frame[14] & 0x0F) * 4
    hdr = udp + 8
    if frame[23] != 17 or frame[hdr:hdr + 4] != PKTGEN_MAGIC or len(frame) < hdr + 8:
        return None
    return struct.unpack(">I", frame[hdr + 4:hdr + 8])[0]


def main():
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    gaps, prev = [], None
    for ts, frame in records(data):
        seq = pktgen_seq(frame)
        if seq is None:
            continue
        if prev and seq == (prev[0] + 1) & 0xFFFFFFFF:
            gaps.append(ts - prev[1])
        prev = (seq, ts)
    if len(gaps) < 2:
        print(len(gaps), int(gaps[0]) if gaps else 0, 0)
        return 0
    print(len(gaps), round(statistics.fmean(gaps)), round(statistics.pstdev(gaps)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
