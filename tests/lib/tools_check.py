#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Checks of the tools' output (tests/packaging.sh): exit 0 if it holds.

    tools_check.py sweep CSV SIZES RUNS LINE
	pktgen-sweep's CSV: one row per size (with FCS), in order, pkt_size
	4 less; every row from RUNS runs, sent at a rate, min <= median <=
	max, no errors; L2 Mb/s is pps * size * 8, L1 pps * (size + 20) * 8,
	line_pct L1 / LINE (Mb/s), within 1 %.
    tools_check.py duration CSV
	pktgen-sweep -D 0.5 over two sizes: each run lasted at least 0.5 s
	and less than 10 s, at a rate.
    tools_check.py png FILE
	a PNG that decodes (signature, IHDR: 8-bit RGB or RGBA as
	matplotlib writes, CRCs, pixel data size).
    tools_check.py wire PCAP SIZES COUNT DST
	COUNT pktgen frames of each size to DST, IPv4 checksum good (the
	capture has no FCS: 4 bytes less than the size).
    tools_check.py top-json OUT DEV
	pktgen-top --json over DEV and DEV@1: every refresh parses; the
	last has the totals "DEV (2)" and "all" summing the two devices'
	packets, and both Results OK.
    tools_check.py pgstats-json DEV < pgstats --json
	an object per device; DEV's pkts_sofar a number, above 0.
"""

import collections
import csv
import json
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcap  # noqa: E402


def sweep(path, sizes, runs, line):
    rows = list(csv.DictReader(open(path)))
    sizes = [int(s) for s in sizes.split(',')]
    runs, line = int(runs), float(line)
    got = [int(r['size']) for r in rows]
    assert got == sizes, f'sizes {got} != {sizes}'

    def near(a, b):
        return abs(a - b) <= 0.01 * b + 0.01
    for r in rows:
        size, pps = int(r['size']), int(r['pps'])
        assert int(r['pkt_size']) == size - 4 and int(r['runs']) == runs, r
        assert 0 < int(r['pps_min']) <= pps <= int(r['pps_max']), r
        assert int(r['errors']) == 0 and float(r['elapsed']) > 0, r
        assert near(float(r['mbps']), pps * size * 8 / 1e6), r
        l1 = pps * (size + 20) * 8 / 1e6
        assert near(float(r['l1_mbps']), l1), r
        assert near(float(r['line_pct']), 100 * l1 / line), r


def duration(path):
    rows = list(csv.DictReader(open(path)))
    assert len(rows) == 2 and all(0.5 <= float(r["elapsed"]) < 10 and int(r["pps"]) > 0
                                  for r in rows), rows


def png(path):
    d = open(path, 'rb').read()
    assert d[:8] == b'\x89PNG\r\n\x1a\n', 'signature'
    pos, idat, w, colour = 8, b"", 0, 2
    while pos < len(d):
        n, kind = struct.unpack('>I4s', d[pos:pos + 8])
        body = d[pos + 4:pos + 8 + n]
        assert struct.unpack('>I', d[pos + 8 + n:pos + 12 + n])[0] == zlib.crc32(body), kind
        if kind == b'IHDR':
            w, h, depth, colour = struct.unpack('>IIBB', body[4:14])
            assert depth == 8 and colour in (2, 6), f'IHDR depth {depth} colour {colour}'
        idat += body[4:] if kind == b'IDAT' else b''
        pos += 12 + n
    assert len(zlib.decompress(idat)) == h * (1 + (3 if colour == 2 else 4) * w), 'pixel data'


def wire(path, sizes, count, dst):
    sizes, count = [int(s) for s in sizes.split(",")], int(count)
    lens = collections.Counter()
    for f in pcap.frames(path):
        assert f.get("pktgen") and f["ip"]["dst"] == dst and f["ip"]["csum_ok"], f
        lens[f["wire_len"]] += 1
    assert lens == {s - 4: count for s in sizes}, f"frames per size {dict(lens)}"


def top_json(path, dev):
    objs = [json.loads(l) for l in open(path)]
    last = objs[-1]
    tot = {t["row"]: t for t in last["totals"]}
    sent = sum(d["sent"] for d in last["devices"])
    ok = len(last["devices"]) == 2 and set(tot) == {dev + " (2)", "all"} and \
        tot["all"]["sent"] == sent == tot[dev + " (2)"]["sent"] and sent > 0 and \
        all(r.startswith("OK:") for r in last["results"].values()) and \
        len(last["results"]) == 2
    print(len(objs), "refreshes; last:", json.dumps(last))
    sys.exit(0 if ok else 1)


def pgstats_json(dev):
    devs = json.load(sys.stdin)
    d = {x["device"]: x for x in devs}
    assert dev in d, devs
    assert isinstance(d[dev]["pkts_sofar"], int) and d[dev]["pkts_sofar"] > 0, d


CHECKS = {"sweep": sweep, "duration": duration, "png": png, "wire": wire,
          "top-json": top_json, "pgstats-json": pgstats_json}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in CHECKS:
        sys.exit(__doc__)
    CHECKS[sys.argv[1]](*sys.argv[2:])
