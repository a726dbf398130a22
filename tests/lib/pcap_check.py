#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Small capture checks of single tests: exit 0 if the capture holds.

    pcap_check.py tap PCAP N	(tests/rx-hooks.sh) exactly N pktgen
	frames 10.71.0.2 > 10.71.0.1, UDP port 9, IPv4 checksum good and the
	UDP one good or 0
    pcap_check.py whole PCAP SIZE LEAST	(tests/skb-ownership.sh) every
	frame is a pktgen frame 10.71.0.2 > 10.71.0.1 of SIZE bytes, UDP
	port 9, with zero padding and both checksums good; at least LEAST
    pcap_check.py rdos PCAP	(tests/samples.sh, pktgen.conf-1-1-rdos)
	200 IPv4 packets to at least 190 addresses of 10.0.0.0/8, not in
	increasing order
    pcap_check.py tags PCAP CLONE KIND COUNT SIZE	(tests/regress-devname-tags.sh)
	COUNT frames of SIZE bytes, all with the tag (KIND vlan: VLAN id 5;
	mpls: label 16) and an intact pktgen header and padding; the pktgen
	seq is the same for the CLONE sends of one skb and rises from 1

tap and rdos print what they counted, tags what is wrong.  The frames are tests/lib/pcap.py's.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcap  # noqa: E402


def tap(path, n):
    good = [f for f in pcap.frames(path)
            if "pktgen" in f and f["ip"]["src"] == "10.71.0.2" and
            f["ip"]["dst"] == "10.71.0.1" and f["udp"]["dport"] == 9 and
            f["ip"]["csum_ok"] and f["udp"]["csum_ok"] in (None, True)]
    print("# %d good frames" % len(good))
    return len(good) == int(n)


def whole(path, size, least):
    frs = pcap.frames(path)
    why = pcap.first_bad(frs, lambda f: (
        f["wire_len"] == int(size) and f["ip"]["src"] == "10.71.0.2" and
        f["ip"]["dst"] == "10.71.0.1" and f["udp"]["dport"] == 9 and
        f["pktgen"]["pad_zero"] and f["ip"]["csum_ok"] and
        f["udp"]["csum_ok"] in (None, True)), "not a whole pktgen frame")
    print("# %d frames%s" % (len(frs), "; " + why if why else ""))
    return why is None and len(frs) >= int(least)


def rdos(path):
    d = [f["ip"]["dst"] for f in pcap.frames(path) if "ip" in f]
    key = [tuple(int(x) for x in a.split(".")) for a in d]
    ok = len(d) == 200 and len(set(d)) >= 190 and key != sorted(key) and \
        all(k[0] == 10 for k in key)
    print("%d packets, %d addresses, sorted: %s" % (len(d), len(set(d)), key == sorted(key)))
    return ok


def tags(path, clone, kind, count, size):
    frs = pcap.frames(path)
    clone, count, size = int(clone), int(count), int(size)
    bad = []
    if len(frs) != count:
        bad.append("%d frames, want %d" % (len(frs), count))
    for f in frs:
        if f["wire_len"] != size:
            bad.append("frame %d: %d bytes" % (f["n"], f["wire_len"]))
        elif kind == "vlan" and [v["vid"] for v in f.get("vlans", [])] != [5]:
            bad.append("frame %d: vlans %s" % (f["n"], f.get("vlans")))
        elif kind == "mpls" and [m["label"] for m in f.get("mpls", [])] != [16]:
            bad.append("frame %d: mpls %s" % (f["n"], f.get("mpls")))
        elif "pktgen" not in f or not f["pktgen"]["pad_zero"]:
            bad.append("frame %d: no intact pktgen header/padding" % f["n"])
    seqs = [f["pktgen"]["seq"] for f in frs if "pktgen" in f]
    per = max(clone, 1)
    firsts = [g[0] for g in (seqs[i:i + per] for i in range(0, len(seqs), per))]
    same = all(len(set(seqs[i:i + per])) == 1 for i in range(0, len(seqs), per))
    if not bad and not (same and firsts == sorted(set(firsts)) and seqs[:1] == [1]):
        bad.append("seqs %s...: want runs of %d equal, rising from 1" % (seqs[:24], per))
    print("\n".join(bad[:5]))
    return not bad


CHECKS = {"tap": tap, "whole": whole, "rdos": rdos, "tags": tags}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in CHECKS:
        sys.exit(__doc__)
    sys.exit(0 if CHECKS[sys.argv[1]](*sys.argv[2:]) else 1)
