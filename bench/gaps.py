#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Inter-arrival gaps of the pktgen packets in a capture.

    gaps.py FILE.pcap  ->  "SAMPLES AVG_NS STDDEV_NS" (or "0 0 0")

A gap is counted only between packets whose pktgen sequence numbers
follow each other, so a frame the capture lost (tcpdump under TCG does
lose some at 100k pps) leaves a hole, not a double gap.  The capture is
read by the tests' tests/lib/pcap.py (records(): classic pcap with
microsecond or nanosecond timestamps, tcpdump --time-stamp-precision=nano;
pktgen_seq(): IPv4 or IPv6, VLAN tags or not).
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "lib"))
import pcap  # noqa: E402


def main():
    gaps, prev = [], None
    for ts, frame, _ in pcap.records(sys.argv[1]):
        seq = pcap.pktgen_seq(frame)
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
