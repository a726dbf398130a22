#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Read a file into a page that userfaultfd holds, so that the read's
copy_to_user() waits inside the kernel until this process lets the page
come (tests/proc-reader-rtnl.sh).  The read is in flight for the file's
whole hold: proc_remove() of it waits for it.

    uffd_read.py FILE HELD RELEASE
    uffd_read.py --probe		exit 0 where userfaultfd can be had, else 4

Creates HELD once the read is waiting in the page fault, serves the page
once RELEASE exists (polled every 50 ms), then prints "read N: <first
line>" or "read: <error>".  Kernel-mode faults on a userfaultfd need root
(CAP_SYS_PTRACE) or vm.unprivileged_userfaultfd=1; exit 4 where the
kernel refuses the userfaultfd.
"""

import ctypes
import mmap
import os
import select
import sys
import threading
import time

NR_USERFAULTFD = 323			# x86_64
UFFD_API = 0xAA
UFFDIO_API = 0xC018AA3F			# _IOWR(0xAA, 0x3F, struct uffdio_api)
UFFDIO_REGISTER = 0xC020AA00		# _IOWR(0xAA, 0x00, struct uffdio_register)
UFFDIO_COPY = 0xC028AA03		# _IOWR(0xAA, 0x03, struct uffdio_copy)
UFFDIO_REGISTER_MODE_MISSING = 1
UFFD_EVENT_PAGEFAULT = 0x12
PAGE = mmap.PAGESIZE

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
libc.read.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
libc.read.restype = ctypes.c_ssize_t


def ioctl(fd, req, buf):
    if libc.ioctl(fd, req, ctypes.addressof(buf)) < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


uffd = libc.syscall(NR_USERFAULTFD, os.O_CLOEXEC)
if uffd < 0:
    print("userfaultfd:", os.strerror(ctypes.get_errno()))
    sys.exit(4)
if sys.argv[1:] == ["--probe"]:
    sys.exit(0)
path, held, release = sys.argv[1:4]
api = (ctypes.c_uint64 * 3)(UFFD_API, 0, 0)
ioctl(uffd, UFFDIO_API, api)

area = mmap.mmap(-1, PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                 prot=mmap.PROT_READ | mmap.PROT_WRITE)
addr = ctypes.addressof(ctypes.c_char.from_buffer(area))
reg = (ctypes.c_uint64 * 4)(addr, PAGE, UFFDIO_REGISTER_MODE_MISSING, 0)
ioctl(uffd, UFFDIO_REGISTER, reg)

fd = os.open(path, os.O_RDONLY)
result = []


def reader():
    n = libc.read(fd, addr, PAGE)	# ctypes lets the GIL go meanwhile
    result.append(n if n >= 0 else -ctypes.get_errno())


t = threading.Thread(target=reader, daemon=True)
t.start()

# the read is held once the fault reaches us
p = select.poll()
p.register(uffd, select.POLLIN)
if not p.poll(60000):
    print("read: never faulted on the held page")
    sys.exit(1)
msg = os.read(uffd, 32)			# struct uffd_msg
if msg[0] != UFFD_EVENT_PAGEFAULT:
    print("read: unexpected userfaultfd event", msg[0])
    sys.exit(1)
open(held, "w").close()

while not os.path.exists(release):
    time.sleep(0.05)

src = mmap.mmap(-1, PAGE)
copy = (ctypes.c_uint64 * 5)(addr, ctypes.addressof(ctypes.c_char.from_buffer(src)),
                             PAGE, 0, 0)
ioctl(uffd, UFFDIO_COPY, copy)
t.join(60)
if not result:
    print("read: still blocked 60 s after the page came")
    sys.exit(1)
if result[0] < 0:
    print("read:", os.strerror(-result[0]))
    sys.exit(1)
text = bytes(area[:result[0]]).decode(errors="replace")
print("read %d: %s" % (result[0], text.split("\n", 1)[0]))
