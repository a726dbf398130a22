#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Checker of tests/xmit-xdp.sh: xmit_mode xdp's frames against start_xmit's.

    wire_xdp_check.py PCAP RUNS

RUNS: JSON list of {"lab", "n", "mode", "pair", "udpcsum"}, in the order
they were sent; "pair" names the start_xmit run an xdp run must match.
The capture holds exactly those frames, in order.  For each run: n
frames, pktgen seqs 1..n, IPv4 checksums right (and UDP's where asked);
for each xdp run, every frame equal byte for byte to its start_xmit
run's frame of the same seq, but for the fields that differ from one
run to the next: the IPv4 id (one more per packet of the device, never
reset: checked to follow on) and checksum, and the pktgen stamp (and
NS_TIMESTAMP's tv_nsec).
Prints PASS/FAIL lines (tests/lib/lib.sh ktap_report).
"""

import json, os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcap  # noqa: E402

# offsets in an untagged IPv4/UDP frame
IPID, IPSUM, STAMP = (18, 20), (24, 26), (14 + 20 + 8 + 8, 14 + 20 + 8 + 16)


# NS_TIMESTAMP's extension after the header: magic, stream, tv_nsec, flags
EXT, EXT_NSEC = STAMP[1], (STAMP[1] + 8, STAMP[1] + 12)


def masked(fr):
    b = bytearray(fr)
    for lo, hi in (IPID, IPSUM, STAMP):
        b[lo:hi] = bytes(hi - lo)
    if fr[EXT:EXT + 4] == bytes.fromhex("be9be956"):
        b[EXT_NSEC[0]:EXT_NSEC[1]] = bytes(4)
    return bytes(b)


def main(argv):
    runs = json.loads(argv[2])
    raws = pcap.raw(argv[1])
    recs = pcap.frames(argv[1])
    want = sum(r["n"] for r in runs)
    print("PASS captured %d frames" % want if len(raws) == want else
          "FAIL captured %d frames|%d captured" % (want, len(raws)))
    if len(raws) != want:
        return
    at, byrun = 0, {}
    for r in runs:
        fr, rc = raws[at:at + r["n"]], recs[at:at + r["n"]]
        at += r["n"]
        byrun[r["lab"]] = fr
        bad = [i for i, x in enumerate(rc)
               if not x.get("pktgen") or x["pktgen"]["seq"] != i + 1
               or not x["ip"]["csum_ok"]
               or (r.get("udpcsum") and x["udp"]["csum_ok"] is not True)]
        print("PASS %s: seqs 1..%d, checksums right" % (r["lab"], r["n"]) if not bad else
              "FAIL %s: seqs 1..%d, checksums right|frame %d: %s" %
              (r["lab"], r["n"], bad[0] + 1, json.dumps(rc[bad[0]])))
        if not r.get("pair"):
            continue
        ref = byrun[r["pair"]]
        diff = [i for i in range(r["n"]) if masked(fr[i]) != masked(ref[i])]
        ids = [struct.unpack("!H", f[IPID[0]:IPID[1]])[0] for f in fr]
        step = [i for i in range(1, len(ids)) if ids[i] != (ids[i - 1] + 1) & 0xffff]
        if diff:
            print("FAIL %s: byte-identical to %s|frame %d: %s vs %s" %
                  (r["lab"], r["pair"], diff[0] + 1, fr[diff[0]].hex(), ref[diff[0]].hex()))
        elif step:
            print("FAIL %s: byte-identical to %s|IP id not one more per packet at frame %d" %
                  (r["lab"], r["pair"], step[0] + 1))
        else:
            print("PASS %s: byte-identical to %s" % (r["lab"], r["pair"]))


if __name__ == "__main__":
    main(sys.argv)
