#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Receiver streams whose keys collide under a known hash, for
tests/rx-streams.sh: frames with the NS_TIMESTAMP extension (stream ids),
by AF_PACKET on a device, timed.

    rx_collide.py IFACE DSTMAC COUNT ROUNDS collide|plain
    rx_collide.py --ids COUNT

collide: the COUNT smallest ids whose stream key hashes, under the
receiver's former fixed hash (jhash with seed 0, 8192 slots), into slots
0..511: without a keyed hash they make one probe chain of COUNT slots.
plain: ids 1..COUNT.  ROUNDS rounds: round r sends number r of every
id, in id order.  The frames carry no stamp (no clock is read for them).
Prints "sent N seconds S" (S: the time the sends took, which on veth
includes the receiver's hook: the receive runs in the sender's send).
--ids prints the colliding ids, one a line.
"""
import socket
import struct
import sys
import time

MAGIC, EXT_MAGIC = 0xBE9BE955, 0xBE9BE956
M32 = 0xFFFFFFFF
OLD_SLOTS, WINDOW = 8192, 512


def rol(x, r):
    return ((x << r) | (x >> (32 - r))) & M32


def old_hash(sid):
    """jhash(struct pg_rx_key, 16, 0) of an extension stream: {id, ifindex 0,
    ipver 0, has_id 1, mac 0} on a little-endian host."""
    v = [(0xDEADBEEF + 16) & M32] * 3
    v[0] = (v[0] + sid) & M32
    v[2] = (v[2] + 0x100) & M32    # bytes 8..11: ipver 0, has_id 1, mac[0..1] 0
    # __jhash_mix: x -= z, x ^= rol(z, r), z += y for (x, y, z) = (a, b, c), (b, c, a), ...
    for i, r in enumerate((4, 6, 8, 16, 19, 4)):
        x, y, z = i % 3, (i + 1) % 3, (i + 2) % 3
        v[x] = ((v[x] - v[z]) & M32) ^ rol(v[z], r)
        v[z] = (v[z] + v[y]) & M32
    # the last 4 bytes (mac[2..5]) are 0; __jhash_final: x ^= z, x -= rol(z, r)
    # for (x, z) = (c, b), (a, c), (b, a), ...
    for i, r in enumerate((14, 11, 25, 16, 4, 14, 24)):
        x, z = (i + 2) % 3, (i + 1) % 3
        v[x] = ((v[x] ^ v[z]) - rol(v[z], r)) & M32
    return v[2]


def colliding(count):
    ids, sid = [], 0
    while len(ids) < count:
        sid += 1
        if old_hash(sid) & (OLD_SLOTS - 1) < WINDOW:
            ids.append(sid)
    return ids


def main(argv):
    if argv[1] == '--ids':
        print('\n'.join(str(i) for i in colliding(int(argv[2]))))
        return 0
    iface, dst, count, rounds, how = argv[1], argv[2], int(argv[3]), int(argv[4]), argv[5]
    ids = colliding(count) if how == 'collide' else list(range(1, count + 1))
    eth = bytes.fromhex(dst.replace(':', '')) + bytes.fromhex('020000000001') + b'\x08\x00'
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + 8 + 32, 1, 0, 64, 17, 0,
                     socket.inet_aton('10.96.1.1'), socket.inet_aton('10.96.1.2'))
    udp = struct.pack('!HHHH', 9, 9, 8 + 32, 0)
    head = eth + ip + udp + struct.pack('!I', MAGIC)
    # per id: the bytes after the sequence number (no stamp, the id)
    tails = [struct.pack('!IIIIII', 0, 0, EXT_MAGIC, sid, 0, 0) for sid in ids]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    sent = 0
    t0 = time.monotonic()
    for r in range(1, rounds + 1):
        seq = struct.pack('!I', r)
        for tail in tails:
            s.send(head + seq + tail)
            sent += 1
    print(f'sent {sent} seconds {time.monotonic() - t0:.3f}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
