#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Send IPv4 packets with options by a raw IP_HDRINCL socket (tests/ipodump.sh).

    ipv4_raw.py SRC DST PROTO:OPTHEX:COUNT[:PAYLOADHEX]...

pktgen only sends UDP: this sends COUNT packets of each group, IP ids
from 1000 per group, TTL 32, the options OPTHEX, the payload PAYLOADHEX
(else 8 zero bytes); UDP (17) gets ports 5004 > 5005.  One python for
all groups (each start costs seconds under TCG: run it with -S).
"""

import socket, struct, sys
src, dst = sys.argv[1:3]
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
for group in sys.argv[3:]:
    f = group.split(":") + [""]
    proto, opt, n = int(f[0]), bytes.fromhex(f[1]), int(f[2])
    pl = bytes.fromhex(f[3]) if f[3] else b"\0" * 8
    if proto == 17:
        pl = struct.pack("!HHHH", 5004, 5005, 8 + len(pl), 0) + pl
    for i in range(n):
        ihl = 5 + len(opt) // 4
        h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, ihl * 4 + len(pl), 1000 + i, 0,
                        32, proto, 0, socket.inet_aton(src), socket.inet_aton(dst))
        s.sendto(h + opt + pl, (dst, 0))
