#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Print what one write(2) of stdin to FILE returned (tests/errors.sh).

    write_ret.py FILE < BYTES

Prints write(2)'s return value (the bytes it took), or -errno.
"""

import os, sys
d = sys.stdin.buffer.read()
fd = os.open(sys.argv[1], os.O_WRONLY)
try:
    print(os.write(fd, d))
except OSError as e:
    print(-e.errno)
