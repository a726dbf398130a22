#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Load a tiny BPF program and pin it, for tests that need a receive hook
without clang: the instructions are spelled here, and bpf(2) is called
through ctypes.

    bpfprog.py xdp-pass PIN     XDP: return XDP_PASS
    bpfprog.py tc-grow PIN      tc (SCHED_CLS): bpf_skb_change_head(skb,
                                1024, 0), then TC_ACT_OK
    bpfprog.py tcx-link PIN DEV LINK
                                attach the program pinned at PIN to DEV's
                                tc ingress as a tcx link (6.6 and newer: no
                                qdisc), pinned at LINK
    bpfprog.py link-detach LINK detach the link pinned at LINK (at once, where
                                unpinning it would leave that to a
                                workqueue) and unpin it

Attach with `ip link set dev D xdpgeneric pinned PIN` or `tc filter add dev
D ingress bpf direct-action object-pinned PIN`.  Exit 4 when the kernel
has no bpf(2) or refuses the program or link (a kernel without BPF, or
tcx): tests skip.
"""
import ctypes
import os
import socket
import struct
import sys

NR_BPF = 321                    # x86_64
BPF_PROG_LOAD, BPF_OBJ_PIN, BPF_OBJ_GET, BPF_LINK_CREATE = 5, 6, 7, 28
BPF_LINK_DETACH = 34
BPF_TCX_INGRESS = 46
PROG_TYPE = {"xdp-pass": 6, "tc-grow": 3}   # BPF_PROG_TYPE_XDP, _SCHED_CLS
BPF_FUNC_SKB_CHANGE_HEAD = 43


def insn(code, dst=0, src=0, off=0, imm=0):
    return struct.pack("<BBhi", code, dst | src << 4, off, imm)


def mov_imm(reg, imm):
    return insn(0xb7, reg, imm=imm)             # BPF_ALU64 | BPF_MOV | BPF_K


EXIT = insn(0x95)
PROGRAMS = {
    "xdp-pass": mov_imm(0, 2) + EXIT,           # XDP_PASS
    "tc-grow": (mov_imm(2, 1024) + mov_imm(3, 0) +
                insn(0x85, imm=BPF_FUNC_SKB_CHANGE_HEAD) +  # call
                mov_imm(0, 0) + EXIT),          # TC_ACT_OK
}


def bpf(libc, cmd, attr):
    buf = ctypes.create_string_buffer(attr, 128)
    ret = libc.syscall(NR_BPF, cmd, buf, len(buf))
    if ret < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return ret


def pin_fd(libc, fd, pin):
    path = ctypes.create_string_buffer(pin.encode())
    bpf(libc, BPF_OBJ_PIN, struct.pack("<QII", ctypes.addressof(path), fd, 0))


def get_fd(libc, pin):
    path = ctypes.create_string_buffer(pin.encode())
    return bpf(libc, BPF_OBJ_GET, struct.pack("<QII", ctypes.addressof(path), 0, 0))


def tcx_link(libc, pin, dev, link_pin):
    prog = get_fd(libc, pin)
    try:
        link = bpf(libc, BPF_LINK_CREATE, struct.pack(
            "<IIII", prog, socket.if_nametoindex(dev), BPF_TCX_INGRESS, 0))
    except OSError as e:
        print(f"bpfprog: tcx link on {dev}: {e}", file=sys.stderr)
        sys.exit(4)
    pin_fd(libc, link, link_pin)


def main():
    libc = ctypes.CDLL(None, use_errno=True)
    if len(sys.argv) == 5 and sys.argv[1] == "tcx-link":
        tcx_link(libc, *sys.argv[2:])
        return
    if len(sys.argv) == 3 and sys.argv[1] == "link-detach":
        bpf(libc, BPF_LINK_DETACH, struct.pack("<I", get_fd(libc, sys.argv[2])))
        os.unlink(sys.argv[2])
        return
    if len(sys.argv) != 3 or sys.argv[1] not in PROGRAMS:
        sys.exit(__doc__)
    name, pin = sys.argv[1], sys.argv[2]
    code = ctypes.create_string_buffer(PROGRAMS[name])
    lic = ctypes.create_string_buffer(b"GPL")
    log = ctypes.create_string_buffer(4096)
    try:
        fd = bpf(libc, BPF_PROG_LOAD, struct.pack(
            "<IIQQIIQ", PROG_TYPE[name], len(PROGRAMS[name]) // 8,
            ctypes.addressof(code), ctypes.addressof(lic), 1, len(log),
            ctypes.addressof(log)))
    except OSError as e:
        print(f"bpfprog: {name}: {e}: {log.value.decode(errors='replace')}",
              file=sys.stderr)
        sys.exit(4)
    pin_fd(libc, fd, pin)


if __name__ == "__main__":
    main()
