#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Small capture checks of single tests: exit 0 if the capture holds.

    pcap_check.py tap PCAP N	(tests/rx-hooks.sh) exactly N pktgen
	frames 10.71.0.2 > 10.71.0.1, UDP port 9, IPv4 checksum good and the
	UDP one good or 0
    pcap_check.py rdos PCAP	(tests/samples.sh, pktgen.conf-1-1-rdos)
	200 IPv4 packets to at least 190 addresses of 10.0.0.0/8, not in
	increasing order

Both print what they counted.  The frames are tests/lib/pcap.py's.
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


def rdos(path):
    d = [f["ip"]["dst"] for f in pcap.frames(path) if "ip" in f]
    key = [tuple(int(x) for x in a.split(".")) for a in d]
    ok = len(d) == 200 and len(set(d)) >= 190 and key != sorted(key) and \
        all(k[0] == 10 for k in key)
    print("%d packets, %d addresses, sorted: %s" % (len(d), len(set(d)), key == sorted(key)))
    return ok


CHECKS = {"tap": tap, "rdos": rdos}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in CHECKS:
        sys.exit(__doc__)
    sys.exit(0 if CHECKS[sys.argv[1]](*sys.argv[2:]) else 1)
