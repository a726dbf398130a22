#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the CLOCK_REALTIME arrival time (ns) of the first pktgen frame.

    first_rx.py IFACE READY_FILE [TIMEOUT_S]

Binds an AF_PACKET socket to IFACE (in the caller's netns), creates
READY_FILE once it receives, and prints the kernel's receive timestamp
(SO_TIMESTAMPNS: taken as the frame enters the stack of IFACE) of the
first IPv4 UDP frame carrying pktgen's magic (0xbe9be955), then exits.
Exit 1 on timeout.  tests/start-at.sh measures start_at's error with it.
"""
import os
import socket
import struct
import sys

SO_TIMESTAMPNS = 35
ETH_P_ALL = 0x0003
PG_MAGIC = 0xBE9BE955


def main():
    iface, ready = sys.argv[1], sys.argv[2]
    timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind((iface, 0))
    s.settimeout(timeout)
    with open(ready, "w"):
        pass
    while True:
        try:
            data, anc, _flags, _addr = s.recvmsg(2048, 64)
        except socket.timeout:
            print("no pktgen frame within %g s" % timeout, file=sys.stderr)
            return 1
        if len(data) < 46 or data[12:14] != b"\x08\x00" or data[23] != 17:
            continue
        ihl = (data[14] & 0xF) * 4
        off = 14 + ihl + 8
        if len(data) < off + 4 or struct.unpack_from("!I", data, off)[0] != PG_MAGIC:
            continue
        for level, kind, val in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", val[:16])
                print(sec * 1000000000 + nsec)
                sys.stdout.flush()
                os._exit(0)
        print("no timestamp on the frame", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
