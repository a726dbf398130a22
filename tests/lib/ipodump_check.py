#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Output checker of tests/ipodump.sh: what ipodump printed for each form.

    ipodump_check.py MODE ARGS...	one check
    ipodump_check.py batch LINES	one per line: MODE<TAB>ARG<TAB>...

Modes: forms RDIR IPR0 IPR1 DST (every option form sent through R, as R
and K decoded it, -x hex dumps, no -i), filter OUT FORM N (the filter
keeps only its N packets), intercept OUT LABEL N REGEX, inorder OUT LABEL
N1 REGEX1 N2 REGEX2... (each packet once, in order: consecutive IP ids),
timers ERR N (the --timers summary line).  Prints PASS/FAIL
lines (tests/lib/lib.sh ktap_report).
"""

import re, sys

ERRS = {}

def blocks(path):
    """ipodump output: [(header, [option lines], [hex lines])]"""
    try:
        ERRS[id(path)] = open(path[:-4] + ".err").read()[-400:]
    except OSError:
        pass
    out = []
    for line in open(path):
        line = line.rstrip("\n")
        if re.match(r"\d\d:\d\d:\d\d\.\d{6} ", line):
            out.append((line, [], []))
        elif line.startswith("\t0x") and out:
            out[-1][2].append(line)
        elif line.startswith("  ") and out:
            out[-1][1].append(line.strip())
    return out

def report(name, why):
    print("PASS " + name if why is None else "FAIL %s|%s" % (name, why))

def expect(name, got, want):
    """want: list of (header regex, [option regexes]) per packet."""
    why = None
    if len(got) != len(want):
        why = "%d packets, want %d: %s" % (len(got), len(want), [g[0] for g in got])
        if not got:
            why += " " + repr(list(ERRS.values())[-1:])
    else:
        for (h, opts, _), (wh, wopts) in zip(got, want):
            if not re.search(wh, h):
                why = "header %r !~ %r" % (h, wh)
            elif len(opts) != len(wopts) or not all(
                    re.fullmatch(w, o) for w, o in zip(wopts, opts)):
                why = "%s: options %r, want %r" % (h, opts, wopts)
            if why:
                break
    report(name, why)

def run(mode, args):
    T = r"[1-9]\d{0,7}"     # a timestamp: ms since midnight UT, not 0
    if mode == "forms":
        rdir, ipr0, ipr1, dst = args
        hdr = r" 10\.61\.0\.1 > %s: udp 9 > 9, len 186, ttl %%d, id \d+, optlen %%d$" % re.escape(dst)
        ra = r"ra len 4 value 0 \(examine packet\)"
        # per form: optlen, options at R (ingress), options at K (None: dropped)
        forms = [
            ("rr", 12, [r"rr len 11 ptr 4: \^0\.0\.0\.0 0\.0\.0\.0", "eol"],
             [r"rr len 11 ptr 8: %s \^0\.0\.0\.0" % re.escape(ipr1), "eol"]),
            ("ts:tsonly:3", 16, [r"ts len 16 ptr 5 oflw 0 flg 0 \(tsonly\): \^0 0 0"],
             [r"ts len 16 ptr 9 oflw 0 flg 0 \(tsonly\): %s \^0 0" % T]),
            ("ts:tsandaddr:2", 20,
             [r"ts len 20 ptr 5 oflw 0 flg 1 \(tsandaddr\): \^0\.0\.0\.0@0 0\.0\.0\.0@0"],
             # Linux records the address of the receiving interface (RR: the outgoing one)
             [r"ts len 20 ptr 13 oflw 0 flg 1 \(tsandaddr\): %s@%s \^0\.0\.0\.0@0" %
              (re.escape(ipr0), T)]),
            ("ts:prespec", 20,
             [r"ts len 20 ptr 5 oflw 0 flg 3 \(prespec\): \^%s@0 10\.9\.9\.9@0" % re.escape(ipr0)],
             [r"ts len 20 ptr 13 oflw 0 flg 3 \(prespec\): %s@%s \^10\.9\.9\.9@0" %
              (re.escape(ipr0), T)]),
            ("lsrr", 12, [r"lsrr len 11 ptr 4: \^%s %s" % (re.escape(ipr1), re.escape(dst)),
                          "eol"], None),
            ("ssrr", 12, [r"ssrr len 11 ptr 4: \^%s %s" % (re.escape(ipr0), re.escape(dst)),
                          "eol"], None),
            ("ra", 4, [ra], [ra]),
            ("ra:1234", 4, [r"ra len 4 value 1234"], [r"ra len 4 value 1234"]),
            ("sec", 12, [r"sec len 11 S 0x0000 \(unclassified\) C 0x0000 H 0x0000 TCC 0x000000",
                         "eol"], "same"),
            ("hex:9e03ff01 (unknown)", 4, [r"opt 158 \(0x9e\) len 3: ff", "nop"], "same"),
            ("hex:440c (malformed)", 4,
             [r"malformed ts: len 12 at offset 0, 4 bytes left: 440c0000"], None),
        ]
        per = 2
        r_all, k_all = blocks(rdir + "/r_all.out"), blocks(rdir + "/k_all.out")
        want_r, want_k = [], []
        for i, (lab, ol, at_r, at_k) in enumerate(forms):
            at_k = at_r if at_k == "same" else at_k
            g_r = r_all[per * i:per * (i + 1)] if len(r_all) == per * len(forms) else r_all
            expect("listen in R (-i): %s decoded as sent" % lab, g_r,
                   [(r"^\S+ r0" + hdr % (32, ol), at_r)] * per)
            want_k += [(lab, ol, at_k)] * per if at_k else []
        n = len(want_k)
        expect("listen in K: %d packets forwarded by R, none of lsrr/ssrr/malformed" % n,
               k_all, [(r"^\S+" + hdr % (31, ol), ak) for lab, ol, ak in want_k])
        for j in range(0, n, per):
            lab = want_k[j][0]
            expect("in K: %s as R changed it" % lab,
                   k_all[j:j + per] if len(k_all) == n else k_all,
                   [(r"^\S+" + hdr % (31, want_k[j][1]), want_k[j][2])] * per)
        hexr = [b for b in blocks(rdir + "/f_ra.out")
            if "udp 9 > 9" in b[0] and b[1] == ["ra len 4 value 0 (examine packet)"]]
        why = None if len(hexr) == per else "%d packets" % len(hexr)
        for h, opts, hx in hexr:
            data = "".join("".join(l.split(":", 1)[1].split()) for l in hx)
            if len(hx) != 8 or len(data) != 256:
                why = "%d hex lines, %d bytes, want 8 lines, 128 bytes" % (len(hx), len(data) // 2)
            elif not (data.startswith("460000ba") and data[16:20] == "2011" and
                      data[40:48] == "94040000" and data[48:56] == "00090009"):
                why = "bytes %s" % data[:64]
            if why:
                break
        report("-x ra (pktgen ra packets): 128 bytes dumped (default snaplen), IHL 6, RA 94040000, UDP 9>9", why)
        hexs = blocks(rdir + "/f_sec.out")
        why = None if len(hexs) == per else "%d packets" % len(hexs)
        for h, opts, hx in hexs:
            data = "".join("".join(l.split(":", 1)[1].split()) for l in hx)
            if len(hx) != 3 or len(data) != 80 or not data.startswith("480000ba"):
                why = "%d hex lines, %d bytes: %s" % (len(hx), len(data) // 2, data)
            elif not re.fullmatch(r"sec len 11 .*", opts[0]):
                why = "options %r" % opts
            if why:
                break
        report("-x -s 40 sec: 40 bytes dumped, options still decoded in full", why)
        noif = blocks(rdir + "/f_rr.out")
        report("without -i: no interface name in the header",
               None if noif and all(re.match(r"^\S+ 10\.61\.0\.1 > ", h) for h, _, _ in noif)
               else "headers %r" % [h for h, _, _ in noif])
    elif mode == "filter":
        path, f, want = args[0], args[1], int(args[2])
        rx = {"rr": r"^rr ", "ts": r"^(malformed )?ts[ :]", "sec": r"^sec ", "lsrr": r"^lsrr ",
              "ssrr": r"^ssrr ", "ra": r"^ra ", "rsvp": r"^ra len 4 value 0",
              "rtcp": r"^ra len 4 value 0"}[f]
        got = blocks(path)
        why = None if len(got) == want else "%d packets, want %d: %s" % (
            len(got), want, [g[0] for g in got])
        for h, opts, _ in got:
            if why:
                break
            if not any(re.match(rx, o) for o in opts):
                why = "no %s option: %r %r" % (f, h, opts)
            elif f == "rsvp" and ": rsvp," not in h:
                why = "not rsvp: %r" % h
            elif f == "rtcp" and " rtcp," not in h:
                why = "not rtcp: %r" % h
        report("filter %s: only its %d packets" % (f, want), why)
    elif mode == "intercept":
        path, lab, n, rx = args[0], args[1], int(args[2]), args[3]
        got = blocks(path)
        why = None if len(got) == n else "%d packets, want %d" % (len(got), n)
        for h, opts, _ in got:
            if why is None and not re.search(rx, h + " | " + " ".join(opts)):
                why = "%r %r !~ %r" % (h, opts, rx)
        report(lab, why)

    elif mode == "inorder":
        # OUT LABEL N1 REGEX1 N2 REGEX2...: the packets in that order, each
        # once: IP ids one apart (pktgen numbers them; reinjection keeps them)
        path, lab, segs = args[0], args[1], args[2:]
        got = blocks(path)
        want = []
        for i in range(0, len(segs), 2):
            want += [segs[i + 1]] * int(segs[i])
        why = None if len(got) == len(want) else "%d packets, want %d: %s" % (
            len(got), len(want), [g[0] for g in got][:4])
        prev = None
        for (h, opts, _), rx in zip(got, want):
            line = h + " | " + " ".join(opts)
            m = re.search(r", id (\d+),", h)
            if not re.search(rx, line):
                why = "%r !~ %r" % (line, rx)
            elif not m or (prev is not None and int(m.group(1)) != prev + 1):
                why = "id after %s: %r (lost, duplicated or reordered)" % (prev, h)
            if why:
                break
            prev = int(m.group(1))
        report(lab, why)
    elif mode == "timers":
        # ERR N: ipodump's --timers line: recvmsg, user, sendto, each N
        # packets, mean and median above 0 and below a second
        path, n = args[0], int(args[1])
        line = [l for l in open(path) if l.startswith("ipodump: timers (us): ")]
        why = None if len(line) == 1 else "%d timers lines" % len(line)
        if not why:
            parts = line[0].split(": ", 2)[2].strip().split("; ")
            names = [p.split()[0] for p in parts]
            if names != ["recvmsg", "user", "sendto"]:
                why = "parts %r" % names
            for p in parts:
                f = p.split()
                if why:
                    break
                if len(f) != 7 or f[1:6:2] != ["n", "mean", "median"] or int(f[2]) != n:
                    why = "%r: want NAME n %d mean X median Y" % (p, n)
                elif not all(0 < float(v) < 1e6 for v in (f[4], f[6])):
                    why = "%r: not within (0, 1 s)" % p
        report("--timers: recvmsg, user and sendto of %d packets, mean and median "
               "in (0, 1 s)" % n, why if why is None else why + " " + "".join(line))

if sys.argv[1] == "batch":
    for line in sys.argv[2].split("\n"):
        if line.strip():
            f = line.split("\t")
            run(f[0], f[1:])
else:
    run(sys.argv[1], sys.argv[2:])
