#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Helpers of tests/rx-samples.sh (/proc/net/pktgen/pgrx_samples).

    rx_samples_check.py every CSV N COUNT
        one stream whose samples are the numbers N, 2N, ... COUNT (every
        Nth of COUNT packets numbered 1..COUNT), numbered 0, 1, ...,
        latencies > 0 and < 10 s, arrival times rising, within 10 minutes
        of now.
    rx_samples_check.py random CSV N COUNT
        one stream, sequence numbers rising, their count within 5 standard
        deviations of COUNT / N (binomial), gaps not all equal.
    rx_samples_check.py last CSV COUNT RING
        one stream sampled every packet of COUNT: the ring holds the last
        RING, numbered COUNT - RING .. COUNT - 1, sequence = number + 1.
    rx_samples_check.py parse CSV
        the header and well-formed rows, per stream the numbers rising;
        prints the number of rows.
    rx_samples_check.py interrupt CMD
        (in the receiver's netns) read pgrx_samples 4096 bytes at a time;
        after the first read write CMD to pgrx; read to the end: every
        row read well formed; prints how many.
    rx_samples_check.py netns-exit NETNS PEERNS PEERDEV
        open pgrx_samples in NETNS (setns), read 4096 bytes, leave it,
        delete it (ip netns del), wait until PEERDEV leaves PEERNS (the
        namespace's exit took its veth), then read: must fail with EIO or
        end (no data); prints what it got.
"""
import ctypes
import os
import subprocess
import sys
import time

HEADER = 'stream,name,sample,rx_ns,seq,latency_ns'
PROC = '/proc/net/pktgen/'


def rows(text):
    """[(stream, name, sample, rx_ns, seq, latency)], or raise ValueError."""
    lines = text.split('\n')
    if lines[0] != HEADER:
        raise ValueError(f'header {lines[0]!r}')
    if lines[-1] != '':
        raise ValueError('no newline at the end')
    out = []
    for ln in lines[1:-1]:
        first, rest = ln.split(',', 1)
        if not rest.startswith('"'):
            raise ValueError(f'row {ln!r}')
        end = rest.index('",', 1)
        name = rest[1:end]
        f = rest[end + 2:].split(',')
        if len(f) != 4:
            raise ValueError(f'row {ln!r}')
        out.append((int(first), name, int(f[0]), int(f[1]), int(f[2]), int(f[3])))
    return out


def load(path):
    with open(path, encoding='ascii') as f:
        return rows(f.read())


def rising(rs):
    last = {}
    for r in rs:
        if r[0] in last and r[2] <= last[r[0]]:
            raise ValueError(f'stream {r[0]}: sample {r[2]} after {last[r[0]]}')
        last[r[0]] = r[2]


def every(path, n, count):
    rs = load(path)
    n, count = int(n), int(count)
    bad = []
    if {r[0] for r in rs} != {0}:
        bad.append(f'streams {sorted({r[0] for r in rs})}')
    want = list(range(n, count + 1, n))
    got = [r[4] for r in rs]
    if got != want:
        bad.append(f'{len(got)} samples, seqs {got[:5]}...{got[-3:]}, want {len(want)}: '
                   f'{want[:5]}...{want[-3:]}')
    if [r[2] for r in rs] != list(range(len(rs))):
        bad.append('sample numbers not 0, 1, ...')
    if any(not 0 < r[5] < 10**10 for r in rs):
        bad.append('a latency outside (0, 10 s)')
    if any(b[3] < a[3] for a, b in zip(rs, rs[1:])):
        bad.append('arrival times going back')
    if rs and abs(rs[-1][3] - time.time_ns()) > 600 * 10**9:
        bad.append(f'last arrival {rs[-1][3]} not near now {time.time_ns()}')
    print('\n'.join(bad) or f'{len(rs)} samples as expected')
    return 1 if bad else 0


def rand(path, n, count):
    rs = load(path)
    n, count = int(n), int(count)
    p = 1 / n
    mean, sd = count * p, (count * p * (1 - p)) ** 0.5
    seqs = [r[4] for r in rs]
    bad = []
    if not mean - 5 * sd <= len(rs) <= mean + 5 * sd:
        bad.append(f'{len(rs)} samples, want {mean:.0f} +- {5 * sd:.0f}')
    if seqs != sorted(set(seqs)) or (seqs and not 1 <= seqs[0] <= seqs[-1] <= count):
        bad.append('sequence numbers not rising within 1..COUNT')
    gaps = {b - a for a, b in zip(seqs, seqs[1:])}
    if len(gaps) < 5:
        bad.append(f'gaps {sorted(gaps)}: not random')
    print('\n'.join(bad) or f'{len(rs)} samples (expected {mean:.0f} +- {5 * sd:.0f}), '
          f'{len(gaps)} distinct gaps')
    return 1 if bad else 0


def last(path, count, ring):
    rs = load(path)
    count, ring = int(count), int(ring)
    want = list(range(count - ring, count))
    bad = []
    if [r[2] for r in rs] != want:
        bad.append(f'samples {rs[0][2] if rs else None}..{rs[-1][2] if rs else None} '
                   f'({len(rs)}), want {want[0]}..{want[-1]}')
    if any(r[4] != r[2] + 1 for r in rs):
        bad.append('a sequence number is not its sample number + 1')
    print('\n'.join(bad) or f'{len(rs)} samples, the last {ring}')
    return 1 if bad else 0


def parse(path):
    rs = load(path)
    rising(rs)
    print(len(rs))
    return 0


def read_all(fd, first=None):
    chunks = []
    while True:
        b = os.read(fd, 4096)
        if not b:
            break
        chunks.append(b)
        if first:
            first()
            first = None
    return b''.join(chunks).decode('ascii')


def interrupt(*cmd):
    fd = os.open(PROC + 'pgrx_samples', os.O_RDONLY)

    def poke():
        w = os.open(PROC + 'pgrx', os.O_WRONLY)
        os.write(w, (' '.join(cmd) + '\n').encode())
        os.close(w)
    text = read_all(fd, poke)
    os.close(fd)
    rs = rows(text)
    rising(rs)
    print(f'{len(rs)} rows read, the read ended')
    return 0


def setns(path):
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(path, os.O_RDONLY)
    if libc.setns(fd, 0x40000000) != 0:     # CLONE_NEWNET
        raise OSError(ctypes.get_errno(), 'setns ' + path)
    os.close(fd)


def netns_exit(ns, peer_ns, peer_dev):
    home = os.open('/proc/self/ns/net', os.O_RDONLY)
    setns('/run/netns/' + ns)
    fd = os.open(PROC + 'pgrx_samples', os.O_RDONLY)
    first = os.read(fd, 4096)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(home, 0x40000000) != 0:
        raise OSError(ctypes.get_errno(), 'setns back')
    subprocess.run(['ip', 'netns', 'del', ns], check=True)
    for _ in range(300):
        r = subprocess.run(['ip', '-n', peer_ns, 'link', 'show', peer_dev],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        if r.returncode:
            break
        time.sleep(0.1)
    else:
        print(f'{peer_dev} still in {peer_ns}: the namespace did not exit')
        return 1
    try:
        rest = os.read(fd, 4096)
    except OSError as e:
        print(f'read {len(first)} bytes; after the exit: {e.strerror}')
        return 0 if e.errno == 5 else 1
    print(f'read {len(first)} bytes; after the exit: {len(rest)} bytes')
    return 0 if not rest else 1


def main():
    cmds = {'every': every, 'random': rand, 'last': last, 'parse': parse,
            'interrupt': interrupt, 'netns-exit': netns_exit}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return cmds[sys.argv[1]](*sys.argv[2:])
    except ValueError as e:
        print(f'malformed: {e}')
        return 1


if __name__ == '__main__':
    sys.exit(main())
