#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Sample every SAMPLE-th pktgen packet on a device (tests/wire-patch.sh).

    pktsock_sample.py DEV OFF SAMPLE READY GO OUT

A raw packet socket on DEV whose filter takes frames with (32-bit word at
OFF) & (SAMPLE - 1) == 1, i.e. the pktgen seq; READY is created once it
is bound; once GO exists the queue is read and each frame written to OUT
in hex, one a line, with the time of its arrival (SO_TIMESTAMPNS: taken
at the burst's first injection, just after the packet was built).
wire_patch_check.py checks what it wrote.
"""

import ctypes, os, socket, struct, sys, time
dev, off, sample, ready, go, out = sys.argv[1:7]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)	# SO_RCVBUFFORCE
# ld [off]; and #sample-1; jeq #1 ? accept : drop
prog = [(0x20, 0, 0, int(off)), (0x54, 0, 0, int(sample) - 1),
	(0x15, 0, 1, 1), (0x06, 0, 0, 0xffff), (0x06, 0, 0, 0)]
buf = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *i) for i in prog))
s.setsockopt(socket.SOL_SOCKET, 26,	# SO_ATTACH_FILTER
	     struct.pack("HL", len(prog), ctypes.addressof(buf)))
s.setsockopt(socket.SOL_SOCKET, 35, 1)	# SO_TIMESTAMPNS
s.bind((dev, 0))
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.05)
s.setblocking(False)
with open(out, "w") as f:
    while True:
        try:
            fr, anc, _, _ = s.recvmsg(4096, 64)
        except BlockingIOError:
            break
        sec, nsec = struct.unpack("qq", anc[0][2][:16]) if anc else (0, 0)
        f.write("%s %d %d\n" % (fr.hex(), sec, nsec))
