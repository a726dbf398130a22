#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Write the first 14 bytes of a FUSE-held file into a pktgen file, so that
the write's copy_from_user() waits in the middle of the write until the
FUSE server (fuse_hold.py) lets go (tests/regress-thread-file.sh).

    held_write.py PKTGEN_FILE HELD_FILE

Prints "wrote N" or "write: <error>".
"""

import mmap
import os
import sys

fd = os.open(sys.argv[1], os.O_WRONLY)
src = os.open(sys.argv[2], os.O_RDONLY)
page = mmap.mmap(src, 0, prot=mmap.PROT_READ)
try:
    print("wrote", os.write(fd, memoryview(page)[:14]))
except OSError as e:
    print("write:", e)
