#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Compare pktgen runs in one capture, byte by byte.

usage: pcap_runs.py FILE NRUNS FOREIGN COMPARISONS

The IPv4 pktgen frames of FILE (tcpdump -w, EN10MB) are cut into runs
where the pktgen sequence number restarts at 1 (NRUNS expected); frames
whose destination MAC is in the JSON list FOREIGN are set aside: they come
from a device that must not have sent.  COMPARISONS is a JSON list of
{"name", "a", "b" (run indices, from 0), "n" (frames in each), "mode",
"no_foreign" (optional: fail if any foreign frame was captured)}:

  bytes   every frame of run a equals the frame of run b at the same place
  dport   as bytes, but the UDP destination port (bytes 36-37) may differ;
          each run's ports lie in [lo, hi] and take at least 2 values
          ("lo", "hi" in the comparison)

Prints "PASS name" / "FAIL name|why" per comparison (for ktap_report).
"""

import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcap import PKTGEN_MAGIC, mac, read_pcap  # noqa: E402

UDP_PAYLOAD = 14 + 20 + 8	# IPv4 without options, no VLAN
DPORT = slice(36, 38)


def pktgen_seq(frame):
    """The pktgen sequence number of an IPv4/UDP pktgen frame, or None."""
    if len(frame) < UDP_PAYLOAD + 8 or frame[12:14] != b"\x08\x00":
        return None
    magic, seq = struct.unpack("!II", frame[UDP_PAYLOAD:UDP_PAYLOAD + 8])
    return seq if magic == PKTGEN_MAGIC else None


def split_runs(path, foreign):
    runs, strays = [], []
    for frame, _ in read_pcap(path):
        seq = pktgen_seq(frame)
        if seq is None:
            continue
        if mac(frame[0:6]) in foreign:
            strays.append(frame)
            continue
        if seq == 1 or not runs:
            runs.append([])
        runs[-1].append(frame)
    return runs, strays


def dport(frame):
    return struct.unpack("!H", frame[DPORT])[0]


def masked(frame):
    return frame[:DPORT.start] + b"\0\0" + frame[DPORT.stop:]


def compare(fa, fb, c):
    if len(fa) != c["n"] or len(fb) != c["n"]:
        return "%d and %d frames, expected %d each" % (len(fa), len(fb), c["n"])
    for k, (x, y) in enumerate(zip(fa, fb)):
        if c["mode"] == "dport":
            x, y = masked(x), masked(y)
        if x != y:
            return "frame %d differs:\n%s\n%s" % (k + 1, x.hex(), y.hex())
    if c["mode"] == "dport":
        for lab, fr in (("a", fa), ("b", fb)):
            ports = {dport(f) for f in fr}
            if not all(c["lo"] <= p <= c["hi"] for p in ports) or len(ports) < 2:
                return "run %s: ports %s" % (lab, sorted(ports))
    return None


def main(argv):
    if len(argv) != 5:
        print(__doc__)
        return 2
    nruns, foreign, comps = int(argv[2]), set(json.loads(argv[3])), json.loads(argv[4])
    got, strays = split_runs(argv[1], foreign)
    if len(got) != nruns:
        print("capture holds %d runs, expected %d: %s" % (
            len(got), nruns, [len(r) for r in got]))
    for c in comps:
        fa = got[c["a"]] if c["a"] < len(got) else []
        fb = got[c["b"]] if c["b"] < len(got) else []
        why = compare(fa, fb, c)
        if why is None and c.get("no_foreign") and strays:
            why = "%d frames to %s: the other device sent" % (len(strays), sorted(foreign))
        print(("PASS %s" % c["name"]) if why is None else
              ("FAIL %s|%s" % (c["name"], why)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
