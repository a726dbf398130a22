#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Read or clear a pktgen file in a loop (tests/race-counters.sh).

    proc_loop.py FILE MODE SECONDS

Read FILE whole (MODE r) or write clear_counters to it (MODE w), one
open per round, until SECONDS have passed; print the number of rounds.
"""

import os, sys, time
path, mode, end = sys.argv[1], sys.argv[2], time.monotonic() + float(sys.argv[3])
n = 0
while time.monotonic() < end:
    fd = os.open(path, os.O_RDWR if mode == "w" else os.O_RDONLY)
    try:
        if mode == "w":
            os.write(fd, b"clear_counters")
        else:
            while os.read(fd, 4096):
                pass
    except OSError:
        pass
    os.close(fd)
    n += 1
print(n)
