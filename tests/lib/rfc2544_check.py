#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Checks of pktgen-rfc2544's results against the known answers of the
devices under test of tests/rfc2544.sh.  Prints "PASS name" / "FAIL
name|why" lines for ktap_report, and the rows found as plain lines.

    rfc2544_check.py tbf CSV BITS TOL_PCT
	tbf rate BITS/s: at every size the NDR is within TOL_PCT percent of
	BITS / ((size - 4) x 8) frames/s (tbf counts frames without FCS).
    rfc2544_check.py lossy CSV PDR MAX LOSS_PCT
	netem loss LOSS_PCT: NDR none at every size; PDR (PDR %) the maximum
	MAX, its loss within LOSS_PCT +- 5.
    rfc2544_check.py delay CSV DELAY_NS
	netem delay: at every size and load latency min >= DELAY_NS, p50 in
	[DELAY_NS, 2 DELAY_NS), min <= p50 <= p90 <= p99 <= p99.9 <= max, no
	loss.
    rfc2544_check.py forward CSV MAX FRAMES
	plain forwarding: NDR = MAX, the loss steps 100 % and 90 % without
	loss (and no more), back-to-back = FRAMES, latency measured at 10,
	50, 90 and 100 % of MAX.
    rfc2544_check.py json FILE TESTS
	the JSON parses; results and trials of each of TESTS (comma list);
	every latency result's histogram adds up to its samples.
    rfc2544_check.py png FILE
	a PNG that decodes.
Several at once: CHECK ARG... -- CHECK ARG... (one Python start).
"""

import csv
import json
import os
import struct
import sys
import zlib


def rows_of(path):
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


def compact(why):
    """A row (or rows) as its non-empty key=value pairs."""
    if isinstance(why, dict):
        return ' '.join(f'{k}={v}' for k, v in why.items() if v != '')
    if isinstance(why, list):
        return '; '.join(compact(r) for r in why)
    return str(why)


def out(ok, name, why=''):
    print(f'PASS {name}' if ok else f'FAIL {name}|{compact(why)}')


def show(rows):
    for r in rows:
        print(compact(r))


def tbf(path, bits, tol):
    rows = [r for r in rows_of(path) if r['test'] == 'throughput-ndr']
    show(rows)
    out(len(rows) >= 1, f'tbf: {len(rows)} NDR rows')
    bits, tol = float(bits), float(tol)
    for r in rows:
        size = int(r['frame_size'])
        want = bits / ((size - 4) * 8)
        got = r['throughput_pps']
        ok = got != 'none' and abs(float(got) - want) <= tol / 100 * want
        dev = f'{100 * (float(got) - want) / want:+.1f}%' if got != 'none' else 'none'
        out(ok, f'tbf {bits / 1e6:g} Mbit/s, {size} bytes: NDR {got} pps, '
            f'R {want:.0f} ({dev}, within {tol:g}%)', r)


def lossy(path, pdr, top, loss):
    rows = rows_of(path)
    show(rows)
    ndr = [r for r in rows if r['test'] == 'throughput-ndr']
    pdrs = [r for r in rows if r['test'] == 'throughput-pdr']
    out(ndr and all(r['throughput_pps'] == 'none' for r in ndr),
        f'netem loss {loss}%: NDR none at {len(ndr)} size(s)', ndr)
    loss, top = float(loss), int(top)
    ok = pdrs and all(r['throughput_pps'] == str(top) and float(r['accept_loss_pct']) == float(pdr)
                      and abs(float(r['loss_pct']) - loss) <= 5 for r in pdrs)
    out(ok, f'netem loss {loss:g}%: PDR ({pdr}%) {top} pps, loss '
        f'{",".join(r["loss_pct"] for r in pdrs)}% within 5 of {loss:g}', pdrs)


def delay(path, d):
    rows = [r for r in rows_of(path) if r['test'] == 'latency']
    show(rows)
    d = int(d)
    out(len(rows) >= 1, f'delay: {len(rows)} latency rows')
    for r in rows:
        v = {k: int(r[f'latency_{k}_ns']) for k in ('min', 'p50', 'p90', 'p99', 'p999', 'max')}
        at = f'{r["frame_size"]} bytes at {r["load_pct"]}% ({r["offered_pps"]} pps)'
        out(v['min'] >= d and d <= v['p50'] < 2 * d,
            f'netem delay {d / 1e6:g} ms, {at}: min {v["min"]} ns, '
            f'p50 {v["p50"]} ns in [{d}, {2 * d})', r)
        out(v['min'] <= v['p50'] <= v['p90'] <= v['p99'] <= v['p999'] <= v['max'] and
            float(r['loss_pct']) == 0,
            f'delay, {at}: min <= p50 <= p90 <= p99 <= p99.9 <= max, no loss', r)


def forward(path, top, frames):
    rows = rows_of(path)
    show(rows)
    by = {}
    for r in rows:
        by.setdefault(r['test'], []).append(r)
    ndr = by.get('throughput-ndr', [])
    out(len(ndr) == 1 and ndr[0]['throughput_pps'] == top and float(ndr[0]['loss_pct']) == 0,
        f'forwarding: NDR = the maximum {top} pps, no loss', ndr)
    loss = by.get('loss', [])
    out([(float(r['load_pct']), float(r['loss_pct'])) for r in loss] == [(100, 0), (90, 0)],
        'forwarding: frame loss 0 at 100% and 90%, then stopped (two clean steps)', loss)
    b2b = by.get('back-to-back', [])
    out(len(b2b) == 1 and float(b2b[0]['back_to_back']) == float(frames),
        f'forwarding: back-to-back {frames} frames (the longest tried)', b2b)
    lat = by.get('latency', [])
    want = [(p, str(int(int(top) * p / 100))) for p in (10, 50, 90, 100)]
    got = [(float(r['load_pct']), r['offered_pps']) for r in lat]
    out(got == want and all(0 < int(r['latency_min_ns']) <= int(r['latency_p50_ns']) <=
                            int(r['latency_p90_ns']) <= int(r['latency_max_ns']) for r in lat),
        f'forwarding: latency at 10, 50, 90 and 100% of the NDR ({top} pps): '
        f'{[o for _, o in got]} pps, 0 < min <= p50 <= p90 <= max', lat)


def jsonfile(path, tests):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        out(False, 'JSON parses', str(e))
        return
    got = {r['test'] for r in doc['results']}
    tr = {t['test'] for t in doc['trials']}
    want = tests.split(',')
    ok = all(any(g.startswith(w) for g in got) and w in tr for w in want)
    out(ok, f'JSON: results and trials of {tests} ({len(doc["trials"])} trials)',
        f'results {sorted(got)}, trials {sorted(tr)}')
    lat = [r for r in doc['results'] if r['test'] == 'latency']
    sums = [(sum(b[2] for b in r.get('latency_histogram', [])), r.get('latency_samples'))
            for r in lat]
    out(lat and all(h == n and n > 0 for h, n in sums),
        f'JSON: {len(lat)} latency histograms add up to their samples {sums}', lat)


def png(path):
    """A PNG that decodes: signature, CRCs, the pixels' size (8-bit RGB
    or RGBA, as matplotlib writes)."""
    try:
        with open(path, 'rb') as f:
            data = f.read()
        ok, pos, idat = data[:8] == b'\x89PNG\r\n\x1a\n', 8, b''
        while ok and pos < len(data):
            n, kind = struct.unpack('>I4s', data[pos:pos + 8])
            body = data[pos + 4:pos + 8 + n]
            crc = struct.unpack('>I', data[pos + 8 + n:pos + 12 + n])[0]
            ok = zlib.crc32(body) & 0xffffffff == crc
            if kind == b'IDAT':
                idat += body[4:]
            pos += 12 + n
        w, h, depth, colour = struct.unpack('>IIBB', data[16:26])
        bpp = {2: 3, 6: 4}.get(colour) if depth == 8 else None	# RGB, RGBA
        ok = ok and bpp is not None and len(zlib.decompress(idat)) == h * (1 + bpp * w)
        out(ok, f'{os.path.basename(path)}: a {w}x{h} PNG that decodes', 'bad PNG')
    except (OSError, struct.error, zlib.error) as e:
        out(False, f'{os.path.basename(path)}: a PNG that decodes', str(e))


def main():
    """Several checks in one run (Python starts slowly under TCG):
    CHECK ARG... [-- CHECK ARG...]..."""
    cmds = {'tbf': tbf, 'lossy': lossy, 'delay': delay, 'forward': forward,
            'json': jsonfile, 'png': png}
    args = sys.argv[1:]
    while args:
        n = args.index('--') if '--' in args else len(args)
        one, args = args[:n], args[n + 1:]
        try:
            cmds[one[0]](*one[1:])
        except (OSError, KeyError, ValueError) as e:
            out(False, ' '.join(one), f'{type(e).__name__}: {e}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
