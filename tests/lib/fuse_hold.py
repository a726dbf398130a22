#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A FUSE file system of one read-only file whose reads are held: a test's
way to stop a write(2) inside the kernel for as long as it likes, without
delay injection.  Map the file and write from the mapping: the kernel's
copy_from_user() faults on the page, and the fault waits for this server's
answer to FUSE_READ.

    fuse_hold.py MNT CONTENT HELD RELEASE

mounts at MNT a file "cmd" holding CONTENT; at the first FUSE_READ creates
the file HELD and answers no read until the file RELEASE exists.  Runs
until MNT is unmounted.  Standard library only: the protocol is spelled
here (include/uapi/linux/fuse.h), /dev/fuse and mount(2) through ctypes.
Exit 4 when the kernel has no FUSE.
"""
import ctypes
import errno
import os
import select
import struct
import sys

LOOKUP, FORGET, GETATTR, OPEN, READ, RELEASE = 1, 2, 3, 14, 15, 18
FLUSH, INIT, OPENDIR, RELEASEDIR, DESTROY, BATCH_FORGET = 25, 26, 27, 29, 38, 42
IN_HDR = struct.Struct("<IIQQIIIHH")        # fuse_in_header, 40 bytes
OUT_HDR = struct.Struct("<IiQ")             # fuse_out_header, 16 bytes
ROOT, FILE = 1, 2


def attr(ino, mode, size):
    """struct fuse_attr (88 bytes)"""
    return struct.pack("<QQQQQQIIIIIIIIII", ino, size, (size + 511) // 512,
                       0, 0, 0, 0, 0, 0, mode, 1, 0, 0, 0, 4096, 0)


def main():
    mnt, content, held, release = sys.argv[1], sys.argv[2].encode(), sys.argv[3], sys.argv[4]
    try:
        fd = os.open("/dev/fuse", os.O_RDWR)
    except OSError as e:
        print(f"fuse_hold: /dev/fuse: {e}", file=sys.stderr)
        sys.exit(4)
    libc = ctypes.CDLL(None, use_errno=True)
    opts = f"fd={fd},rootmode=40000,user_id=0,group_id=0".encode()
    if libc.mount(b"pgfuse", mnt.encode(), b"fuse", 0, opts) != 0:
        print(f"fuse_hold: mount: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        sys.exit(4)
    size = len(content)
    pending = []

    def reply(unique, err=0, data=b""):
        os.write(fd, OUT_HDR.pack(OUT_HDR.size + len(data), -err, unique) + data)

    def read_reply(unique, arg):
        _fh, off, want = struct.unpack_from("<QQI", arg)
        reply(unique, data=content[off:off + want])

    while True:
        if pending and os.path.exists(release):
            for unique, arg in pending:
                read_reply(unique, arg)
            pending = []
        if not select.select([fd], [], [], 0.05)[0]:
            continue
        try:
            req = os.read(fd, 1 << 20)
        except OSError as e:
            if e.errno == errno.ENODEV:     # unmounted
                return
            if e.errno in (errno.EINTR, errno.ENOENT):
                continue
            raise
        _len, op, unique, node, _u, _g, _p, _x, _pad = IN_HDR.unpack_from(req)
        arg = req[IN_HDR.size:]
        if op in (FORGET, BATCH_FORGET):
            continue
        if op == INIT:
            reply(unique, data=struct.pack("<IIIIHHIIHHII24x", 7, 31, 0, 0, 0, 0,
                                           4096, 1, 0, 0, 0, 0))
        elif op == LOOKUP:
            if node == ROOT and arg.rstrip(b"\0") == b"cmd":
                reply(unique, data=struct.pack("<QQQQII", FILE, 0, 3600, 3600, 0, 0) +
                      attr(FILE, 0o100444, size))
            else:
                reply(unique, errno.ENOENT)
        elif op == GETATTR:
            a = attr(ROOT, 0o40755, 0) if node == ROOT else attr(FILE, 0o100444, size)
            reply(unique, data=struct.pack("<QII", 3600, 0, 0) + a)
        elif op in (OPEN, OPENDIR):
            reply(unique, data=struct.pack("<QII", 0, 0, 0))
        elif op == READ and node == FILE:
            if os.path.exists(release):
                read_reply(unique, arg)
            else:
                pending.append((unique, arg))
                open(held, "w").close()
        elif op in (RELEASE, RELEASEDIR, FLUSH):
            reply(unique)
        elif op == DESTROY:
            reply(unique)
            return
        else:
            reply(unique, errno.ENOSYS)


if __name__ == "__main__":
    main()
