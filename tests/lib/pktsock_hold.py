#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Hold every pktgen frame a device receives (tests/wire-reuse.sh).

    pktsock_hold.py DEV READY GO OUT

A raw packet socket on DEV with a 64 MiB queue; READY is created once it
is bound, and once GO exists the queue is read and every pktgen IPv4
frame written to OUT as "seq ipid csum_ok".  wire_reuse_check.py checks
what it wrote.
"""

import os, socket, struct, sys, time
dev, ready, go, out = sys.argv[1:5]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)	# SO_RCVBUFFORCE
s.bind((dev, 0))
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.05)
s.setblocking(False)

def csum_ok(h):
    t = sum(struct.unpack("!10H", h))
    while t >> 16:
        t = (t & 0xffff) + (t >> 16)
    return t == 0xffff

with open(out, "w") as f:
    while True:
        try:
            fr = s.recv(2048)
        except BlockingIOError:
            break
        if len(fr) < 50 or fr[12:14] != b"\x08\x00":
            continue
        ip = fr[14:34]
        magic, seq = struct.unpack("!II", fr[42:50])
        if magic != 0xbe9be955:
            continue
        f.write("%d %d %d\n" % (seq, struct.unpack("!H", ip[4:6])[0],
                                csum_ok(ip)))
