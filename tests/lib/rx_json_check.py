#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Helpers of tests/rx-json.sh (pgrx's display json).

    rx_json_check.py send IFACE DSTMAC STREAMS PER EXTRA SEED
        STREAMS streams (extension ids 1..STREAMS) of PER frames each,
        stamped now minus a latency drawn log-uniformly from 2^10 to 2^39
        ns, then EXTRA frames of one more stream; by AF_PACKET on IFACE.
    rx_json_check.py compare SCRIPT JSON
        JSON (display json) against SCRIPT (display script) of the same
        quiesced state: the schema's keys, every value equal, every
        bucket one of the table's, ascending, their counts adding up to
        latency_samples (statistics time), the total's buckets the sum of
        the streams' (the Result: that of "display json" the snapshot
        took after the script's).  Prints each difference; exit 1 if any.
    rx_json_check.py same A B
        A and B parse and are equal.
    rx_json_check.py keys JSON KEY...
        print the value of each KEY (a.b.0.c: a path; a list's length).
    rx_json_check.py result FILE
        the Result of a pgrx read in any display (json: its "result").
    rx_json_check.py buckets JSON MIN
        every stream has at least MIN buckets; exit 1 otherwise.
"""
import json
import random
import socket
import struct
import sys
import time

HEAD = ('version', 'devices', 'statistics', 'copies', 'stream_count', 'streams_max',
        'overflow_packets', 'total', 'streams', 'result')
FIGS = ('rx_packets', 'rx_bytes', 'lost', 'reordered', 'reordered_ratio_ppm', 'duplicates',
        'late', 'restarts', 'malformed', 'rate_pps', 'rate_bps', 'latency_samples',
        'latency_negative', 'latency_min_ns', 'latency_avg_ns', 'latency_max_ns',
        'latency_stddev_ns', 'latency_p50_ns', 'latency_p90_ns', 'latency_p99_ns',
        'latency_p999_ns', 'jitter_ns', 'gap_samples', 'gap_min_ns', 'gap_avg_ns',
        'gap_max_ns', 'gap_stddev_ns')
STREAM = ('index', 'stream', 'latency_resolution_ns', 'first_seq', 'last_seq')


def b_lo(b):
    if b < 16:
        return b
    e = (b >> 4) + 3
    return (16 + (b & 15)) << (e - 4)


def b_hi(b):
    return 1 << 40 if b == 511 else b_lo(b + 1)


TABLE = {b_lo(b): b_hi(b) for b in range(512)}


def send(iface, dst, nstreams, per, extra, seed):
    rnd = random.Random(int(seed))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    eth = bytes.fromhex(dst.replace(':', '')) + bytes.fromhex('020000000001') + b'\x08\x00'
    plan = [(i, q) for q in range(1, int(per) + 1) for i in range(1, int(nstreams) + 1)]
    plan += [(int(nstreams) + 1, q) for q in range(1, int(extra) + 1)]
    for sid, seq in plan:
        ns = time.time_ns() - int(2 ** rnd.uniform(10, 39))
        sec, nsec = divmod(ns, 10**9)
        pay = struct.pack('!IIIIIIII', 0xBE9BE955, seq, sec & 0xFFFFFFFF, nsec // 1000,
                          0xBE9BE956, sid, nsec, 0)
        udp = struct.pack('!HHHH', 9, 9, 8 + len(pay), 0) + pay
        ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0,
                         socket.inet_aton('10.96.1.1'), socket.inet_aton('10.96.1.2'))
        s.send(eth + ip + udp)
    return 0


def script_kv(path):
    kv = {}
    with open(path, encoding='ascii') as f:
        for line in f:
            if line.startswith('Result: '):
                kv['Result'] = line[8:].rstrip('\n')
                continue
            k, sep, v = line.rstrip('\n').partition('=')
            if sep:
                kv[k] = v
    return kv


def check_hist(where, fig, bad):
    prev = -1
    for ent in fig['histogram']:
        if not (isinstance(ent, list) and len(ent) == 3 and all(type(x) is int for x in ent)):
            bad.append(f'{where}: bucket {ent!r} is not [lo, hi, count]')
            continue
        lo, hi, c = ent
        if TABLE.get(lo) != hi:
            bad.append(f'{where}: bucket [{lo}, {hi}] is not one of the table')
        if lo <= prev:
            bad.append(f'{where}: buckets not ascending at {lo}')
        if c <= 0:
            bad.append(f'{where}: empty bucket {lo} listed')
        prev = lo


def compare(script, path):
    kv = script_kv(script)
    with open(path, encoding='utf-8') as f:
        obj = json.load(f)
    bad = []
    for k in HEAD:
        if k not in obj:
            bad.append(f'no key {k}')
    if bad:
        print('\n'.join(bad))
        return 1
    if obj['version'] != 1:
        bad.append(f'version {obj["version"]}')
    want = {'statistics': kv.get('statistics'), 'copies': kv.get('copies'),
            'stream_count': kv.get('streams'), 'streams_max': kv.get('streams_max'),
            'overflow_packets': kv.get('overflow_packets'),
            # read after "display json": the script's was "display=script"
            'result': (kv.get('Result') or '').replace('display=script', 'display=json')}
    for k, v in want.items():
        if str(obj[k]) != v:
            bad.append(f'{k}: json {obj[k]!r}, script {v!r}')
    devs = kv.get('devices', '')
    if obj['devices'] != (devs.split(',') if devs else []):
        bad.append(f'devices: json {obj["devices"]}, script {devs!r}')
    if len(obj['streams']) != obj['stream_count']:
        bad.append(f'{len(obj["streams"])} streams listed, stream_count {obj["stream_count"]}')
    figs = [('total', '', obj['total'])]
    figs += [(f's{i}', f's{i}_', s) for i, s in enumerate(obj['streams'])]
    time_mode = obj['statistics'] == 'time'
    tot = {}
    for where, prefix, fig in figs:
        keys = FIGS + (STREAM if prefix else ())
        for k in keys:
            if k not in fig:
                bad.append(f'{where}: no key {k}')
                continue
            if k == 'index':
                if fig[k] != int(where[1:]):
                    bad.append(f'{where}: index {fig[k]}')
                continue
            if k != 'stream' and type(fig[k]) is not int:
                bad.append(f'{where}: {k} is {fig[k]!r}, not an integer')
            if str(fig[k]) != kv.get(prefix + k):
                bad.append(f'{where}: {k}: json {fig[k]!r}, script {kv.get(prefix + k)!r}')
        if 'histogram' not in fig:
            bad.append(f'{where}: no histogram')
            continue
        check_hist(where, fig, bad)
        n = sum(c for _, _, c in fig['histogram'])
        if time_mode and n != fig.get('latency_samples'):
            bad.append(f'{where}: buckets sum to {n}, latency_samples {fig.get("latency_samples")}')
        if not time_mode and fig['histogram']:
            bad.append(f'{where}: a histogram under statistics {obj["statistics"]}')
        if prefix:
            for lo, _, c in fig['histogram']:
                tot[lo] = tot.get(lo, 0) + c
    if sorted(tot.items()) != [(lo, c) for lo, _, c in obj['total']['histogram']]:
        bad.append('the total\'s buckets are not the sum of the streams\'')
    for b in bad[:40]:
        print(b)
    if len(bad) > 40:
        print(f'... {len(bad) - 40} more')
    print(f'{len(figs)} objects, {sum(len(f["histogram"]) for _, _, f in figs)} buckets, '
          f'{len(bad)} differences')
    return 1 if bad else 0


def same(a, b):
    with open(a, encoding='utf-8') as f:
        x = json.load(f)
    with open(b, encoding='utf-8') as f:
        y = json.load(f)
    if x != y:
        print(f'{a} and {b} differ')
        return 1
    return 0


def keys(path, *names):
    with open(path, encoding='utf-8') as f:
        obj = json.load(f)
    for n in names:
        o = obj
        for part in n.split('.'):
            o = o[part] if isinstance(o, dict) else o[int(part)]
        print(len(o) if isinstance(o, list) else o)
    return 0


def result(path):
    with open(path, encoding='utf-8') as f:
        text = f.read()
    if text.startswith('{'):
        print(json.loads(text)['result'])
        return 0
    for line in text.splitlines():
        if line.startswith('Result: '):
            print(line[8:])
    return 0


def buckets(path, least):
    with open(path, encoding='utf-8') as f:
        obj = json.load(f)
    few = [(s['index'], len(s['histogram'])) for s in obj['streams']
           if len(s['histogram']) < int(least)]
    for i, n in few:
        print(f'stream {i}: {n} buckets')
    return 1 if few else 0


def main():
    cmds = {'send': send, 'compare': compare, 'same': same, 'keys': keys,
            'result': result, 'buckets': buckets}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        print(__doc__, file=sys.stderr)
        return 2
    return cmds[sys.argv[1]](*sys.argv[2:])


if __name__ == '__main__':
    sys.exit(main())
