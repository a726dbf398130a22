#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Many receiver streams at once, for tests/rx-streams.sh and bench/: frames
with the NS_TIMESTAMP extension (stream ids), by AF_PACKET on a device.

    rx_many.py [--seq0=N] IFACE DSTMAC FIRST COUNT [SECONDS]

Streams FIRST .. FIRST + COUNT - 1 (extension ids); stream i gets
1 + i % 4 frames, numbered 1, 2, ..., sent in rounds: round r sends
number r + 1 of every stream that has one, in id order, so the streams
appear in the receiver in id order.  Each frame is stamped as sent.
--seq0=N adds N to every number (a stream sent before goes on).
Prints the frames sent per stream id total ("sent N").

With SECONDS, the rounds repeat (numbers go on rising, every stream one
frame a round) until SECONDS have passed, and a failing send (the device
or its namespace gone) is counted, not fatal: for traffic during
rx_reset and namespace deletion.  Prints "sending" once bound, then
"sent N failed M".
"""
import socket
import struct
import sys
import time

MAGIC, EXT_MAGIC, EXT_F_SENT = 0xBE9BE955, 0xBE9BE956, 1


def frame(eth, sid, seq):
    ns = time.time_ns()
    sec, nsec = divmod(ns, 10**9)
    pay = struct.pack('!IIIIIIII', MAGIC, seq, sec & 0xFFFFFFFF, nsec // 1000,
                      EXT_MAGIC, sid, nsec, EXT_F_SENT)
    udp = struct.pack('!HHHH', 9, 9, 8 + len(pay), 0) + pay
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0,
                     socket.inet_aton('10.96.1.1'), socket.inet_aton('10.96.1.2'))
    return eth + ip + udp


def main(argv):
    seq0 = 0
    if argv[1].startswith('--seq0='):
        seq0 = int(argv[1][7:])
        argv = argv[:1] + argv[2:]
    iface, dst, first, count = argv[1], argv[2], int(argv[3]), int(argv[4])
    seconds = float(argv[5]) if len(argv) > 5 else None
    eth = bytes.fromhex(dst.replace(':', '')) + bytes.fromhex('020000000001') + b'\x08\x00'
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    ids = range(first, first + count)
    sent = failed = 0
    if seconds is None:
        for r in range(4):
            for sid in ids:
                if r < 1 + sid % 4:
                    s.send(frame(eth, sid, seq0 + r + 1))
                    sent += 1
        print(f'sent {sent}')
        return 0
    print('sending', flush=True)
    end = time.monotonic() + seconds
    seq = 0
    while time.monotonic() < end:
        seq += 1
        for sid in ids:
            try:
                s.send(frame(eth, sid, seq0 + seq))
                sent += 1
            except OSError:
                failed += 1
                if failed % 64 == 0 and time.monotonic() >= end:
                    break
    print(f'sent {sent} failed {failed}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
