# SPDX-License-Identifier: GPL-2.0
"""A small PNG chart writer for pktgen-sweep: Python's standard library only.

No plotting package is needed on the machine that runs the sweep (a VM
guest, a router): the PNG is written with zlib, the text with the 5x7
bitmap font below.  chart() draws two series (packets per second on the
left axis, Mb/s on the right) against packet sizes spaced evenly on the
x axis, the shape of Figure 1 of the pktgen paper.
"""

import math
import struct
import zlib

# 5x7 glyphs, rows top to bottom, '#' = ink.  Only what labels need.
# g p q y start at the x-height and are drawn two rows lower (descenders).
_GLYPHS = {
    ' ': ['.....'] * 7,
    '0': ['.###.', '#...#', '#..##', '#.#.#', '##..#', '#...#', '.###.'],
    '1': ['..#..', '.##..', '..#..', '..#..', '..#..', '..#..', '.###.'],
    '2': ['.###.', '#...#', '....#', '...#.', '..#..', '.#...', '#####'],
    '3': ['#####', '...#.', '..#..', '...#.', '....#', '#...#', '.###.'],
    '4': ['...#.', '..##.', '.#.#.', '#..#.', '#####', '...#.', '...#.'],
    '5': ['#####', '#....', '####.', '....#', '....#', '#...#', '.###.'],
    '6': ['..##.', '.#...', '#....', '####.', '#...#', '#...#', '.###.'],
    '7': ['#####', '....#', '...#.', '..#..', '.#...', '.#...', '.#...'],
    '8': ['.###.', '#...#', '#...#', '.###.', '#...#', '#...#', '.###.'],
    '9': ['.###.', '#...#', '#...#', '.####', '....#', '...#.', '.##..'],
    'A': ['.###.', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
    'B': ['####.', '#...#', '#...#', '####.', '#...#', '#...#', '####.'],
    'C': ['.###.', '#...#', '#....', '#....', '#....', '#...#', '.###.'],
    'D': ['###..', '#..#.', '#...#', '#...#', '#...#', '#..#.', '###..'],
    'E': ['#####', '#....', '#....', '####.', '#....', '#....', '#####'],
    'F': ['#####', '#....', '#....', '####.', '#....', '#....', '#....'],
    'G': ['.###.', '#...#', '#....', '#.###', '#...#', '#...#', '.####'],
    'H': ['#...#', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
    'I': ['.###.', '..#..', '..#..', '..#..', '..#..', '..#..', '.###.'],
    'J': ['..###', '...#.', '...#.', '...#.', '...#.', '#..#.', '.##..'],
    'K': ['#...#', '#..#.', '#.#..', '##...', '#.#..', '#..#.', '#...#'],
    'L': ['#....', '#....', '#....', '#....', '#....', '#....', '#####'],
    'M': ['#...#', '##.##', '#.#.#', '#.#.#', '#...#', '#...#', '#...#'],
    'N': ['#...#', '#...#', '##..#', '#.#.#', '#..##', '#...#', '#...#'],
    'O': ['.###.', '#...#', '#...#', '#...#', '#...#', '#...#', '.###.'],
    'P': ['####.', '#...#', '#...#', '####.', '#....', '#....', '#....'],
    'Q': ['.###.', '#...#', '#...#', '#...#', '#.#.#', '#..#.', '.##.#'],
    'R': ['####.', '#...#', '#...#', '####.', '#.#..', '#..#.', '#...#'],
    'S': ['.####', '#....', '#....', '.###.', '....#', '....#', '####.'],
    'T': ['#####', '..#..', '..#..', '..#..', '..#..', '..#..', '..#..'],
    'U': ['#...#', '#...#', '#...#', '#...#', '#...#', '#...#', '.###.'],
    'V': ['#...#', '#...#', '#...#', '#...#', '#...#', '.#.#.', '..#..'],
    'W': ['#...#', '#...#', '#...#', '#.#.#', '#.#.#', '#.#.#', '.#.#.'],
    'X': ['#...#', '#...#', '.#.#.', '..#..', '.#.#.', '#...#', '#...#'],
    'Y': ['#...#', '#...#', '.#.#.', '..#..', '..#..', '..#..', '..#..'],
    'Z': ['#####', '....#', '...#.', '..#..', '.#...', '#....', '#####'],
    'a': ['.....', '.....', '.###.', '....#', '.####', '#...#', '.####'],
    'b': ['#....', '#....', '#.##.', '##..#', '#...#', '#...#', '####.'],
    'c': ['.....', '.....', '.###.', '#....', '#....', '#...#', '.###.'],
    'd': ['....#', '....#', '.##.#', '#..##', '#...#', '#...#', '.####'],
    'e': ['.....', '.....', '.###.', '#...#', '#####', '#....', '.###.'],
    'f': ['..##.', '.#..#', '.#...', '###..', '.#...', '.#...', '.#...'],
    'g': ['.####', '#...#', '#...#', '#...#', '.####', '....#', '.###.'],
    'h': ['#....', '#....', '#.##.', '##..#', '#...#', '#...#', '#...#'],
    'i': ['..#..', '.....', '.##..', '..#..', '..#..', '..#..', '.###.'],
    'j': ['...#.', '.....', '..##.', '...#.', '...#.', '#..#.', '.##..'],
    'k': ['#....', '#....', '#..#.', '#.#..', '##...', '#.#..', '#..#.'],
    'l': ['.##..', '..#..', '..#..', '..#..', '..#..', '..#..', '.###.'],
    'm': ['.....', '.....', '##.#.', '#.#.#', '#.#.#', '#...#', '#...#'],
    'n': ['.....', '.....', '#.##.', '##..#', '#...#', '#...#', '#...#'],
    'o': ['.....', '.....', '.###.', '#...#', '#...#', '#...#', '.###.'],
    'p': ['####.', '#...#', '#...#', '#...#', '####.', '#....', '#....'],
    'q': ['.####', '#...#', '#...#', '#...#', '.####', '....#', '....#'],
    'r': ['.....', '.....', '#.##.', '##..#', '#....', '#....', '#....'],
    's': ['.....', '.....', '.###.', '#....', '.###.', '....#', '####.'],
    't': ['.#...', '.#...', '###..', '.#...', '.#...', '.#..#', '..##.'],
    'u': ['.....', '.....', '#...#', '#...#', '#...#', '#..##', '.##.#'],
    'v': ['.....', '.....', '#...#', '#...#', '#...#', '.#.#.', '..#..'],
    'w': ['.....', '.....', '#...#', '#...#', '#.#.#', '#.#.#', '.#.#.'],
    'x': ['.....', '.....', '#...#', '.#.#.', '..#..', '.#.#.', '#...#'],
    'y': ['#...#', '#...#', '#...#', '#...#', '.####', '....#', '.###.'],
    'z': ['.....', '.....', '#####', '...#.', '..#..', '.#...', '#####'],
    '.': ['.....', '.....', '.....', '.....', '.....', '.##..', '.##..'],
    ',': ['.....', '.....', '.....', '.....', '.##..', '..#..', '.#...'],
    ':': ['.....', '.##..', '.##..', '.....', '.##..', '.##..', '.....'],
    '-': ['.....', '.....', '.....', '#####', '.....', '.....', '.....'],
    '+': ['.....', '..#..', '..#..', '#####', '..#..', '..#..', '.....'],
    '=': ['.....', '.....', '#####', '.....', '#####', '.....', '.....'],
    '/': ['.....', '....#', '...#.', '..#..', '.#...', '#....', '.....'],
    '(': ['...#.', '..#..', '.#...', '.#...', '.#...', '..#..', '...#.'],
    ')': ['.#...', '..#..', '...#.', '...#.', '...#.', '..#..', '.#...'],
    '_': ['.....', '.....', '.....', '.....', '.....', '.....', '#####'],
    '%': ['##...', '##..#', '...#.', '..#..', '.#...', '#..##', '...##'],
    '@': ['.###.', '#...#', '#.###', '#.#.#', '#.###', '#....', '.###.'],
    '?': ['.###.', '#...#', '....#', '...#.', '..#..', '.....', '..#..'],
}

_DESCEND = 'gpqy'
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
GREY = (215, 215, 215)
BLUE = (31, 90, 180)
RED = (200, 50, 40)


class Canvas:
    """An RGB image with the few drawing operations a line chart needs."""

    def __init__(self, width, height, bg=WHITE):
        self.w, self.h = width, height
        self.px = bytearray(bytes(bg) * (width * height))

    def dot(self, x, y, c):
        if 0 <= x < self.w and 0 <= y < self.h:
            i = (y * self.w + x) * 3
            self.px[i:i + 3] = bytes(c)

    def rect(self, x0, y0, x1, y1, c):
        for y in range(max(y0, 0), min(y1, self.h - 1) + 1):
            for x in range(max(x0, 0), min(x1, self.w - 1) + 1):
                self.dot(x, y, c)

    def line(self, x0, y0, x1, y1, c, width=1):
        """Bresenham, thickened by drawing a small square at each step."""
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err, h = dx + dy, width // 2
        while True:
            self.rect(x0 - h, y0 - h, x0 - h + width - 1, y0 - h + width - 1, c)
            if x0 == x1 and y0 == y1:
                return
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy

    def text(self, x, y, s, c=BLACK, scale=2, anchor='left', vertical=False):
        """Draw s with its top-left (or centre/right per anchor) at x, y."""
        adv = 6 * scale
        n = len(s) * adv - scale
        off = {'left': 0, 'centre': n // 2, 'right': n}[anchor]
        for k, ch in enumerate(s):
            rows = _GLYPHS.get(ch, _GLYPHS['?'])
            for r, row in enumerate(rows):
                for col, bit in enumerate(row):
                    if bit != '#':
                        continue
                    u = k * adv + col * scale - off
                    v = (r + (2 if ch in _DESCEND else 0)) * scale
                    if vertical:	# reads bottom to top
                        self.rect(x + v, y - u - scale + 1, x + v + scale - 1, y - u, c)
                    else:
                        self.rect(x + u, y + v, x + u + scale - 1, y + v + scale - 1, c)

    def png(self):
        rows = b''.join(b'\0' + bytes(self.px[y * self.w * 3:(y + 1) * self.w * 3])
                        for y in range(self.h))

        def chunk(kind, data):
            body = kind + data
            return struct.pack('>I', len(data)) + body + \
                struct.pack('>I', zlib.crc32(body) & 0xffffffff)
        hdr = struct.pack('>IIBBBBB', self.w, self.h, 8, 2, 0, 0, 0)
        return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', hdr) + \
            chunk(b'IDAT', zlib.compress(rows, 9)) + chunk(b'IEND', b'')


def nice_ticks(top, n=5):
    """(step, ticks): a round step (1, 2 or 5 times a power of ten) and
    the number of steps covering 0..top in about n ticks."""
    if top <= 0:
        return 1, n
    raw = top / n
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        step = m * mag
        if step >= raw:
            break
    return step, max(1, math.ceil(top / step))


def fmt(v):
    """Compact tick label: 1500000 -> 1.5M, 25000 -> 25k, 0.5 -> 0.5."""
    for div, suf in ((1e9, 'G'), (1e6, 'M'), (1e3, 'k')):
        if abs(v) >= div:
            return f'{v / div:g}{suf}'
    return f'{v:g}'


def chart(sizes, pps, mbps, title, subtitle='', spread=None, line_pps=None,
          xlabel='frame size (bytes, with FCS)'):
    """PNG bytes: pps (left axis) and Mb/s (right axis) per frame size
    (with FCS); spread: (lowest, highest) pps per size, drawn as a bar;
    line_pps: the packet rate of the line per size, drawn dashed."""
    w, h = 880, 520
    left, right, top, bottom = 100, w - 100, 80, h - 70
    cv = Canvas(w, h)
    cv.text(w // 2, 14, title, anchor='centre', scale=3)
    if subtitle:
        cv.text(w // 2, 44, subtitle, anchor='centre')
    n = len(sizes)

    def xpos(i):
        return left + (right - left) * (2 * i + 1) // (2 * n)

    axes = ((pps, BLUE, left, 'right', 'packets per second'),
            (mbps, RED, right, 'left', 'Mb/s'))
    pps_top = max(list(pps) + [hi for _, hi in spread or []] + list(line_pps or []) + [0])
    for vals, colour, ax, anchor, label in axes:
        step, ticks = nice_ticks((pps_top if ax == left else max(vals + [0])) * 1.05)
        span = step * ticks
        for t in range(ticks + 1):
            y = bottom - (bottom - top) * t // ticks
            if ax == left:
                cv.line(left, y, right, y, GREY)
            tx = ax - 8 if anchor == 'right' else ax + 8
            cv.line(ax, y, ax + (-5 if anchor == 'right' else 5), y, colour, 2)
            cv.text(tx, y - 7, fmt(step * t), colour, anchor=anchor)
        pts = [(xpos(i), bottom - round((bottom - top) * v / span))
               for i, v in enumerate(vals)]
        for a, b in zip(pts, pts[1:]):
            cv.line(a[0], a[1], b[0], b[1], colour, 3)
        for x, y in pts:
            cv.rect(x - 4, y - 4, x + 4, y + 4, colour)
        if ax == left:
            def ypos(v):
                return bottom - round((bottom - top) * v / span)
            for i, (lo, hi) in enumerate(spread or []):
                cv.line(xpos(i), ypos(lo), xpos(i), ypos(hi), colour, 1)
                cv.line(xpos(i) - 6, ypos(lo), xpos(i) + 6, ypos(lo), colour, 1)
                cv.line(xpos(i) - 6, ypos(hi), xpos(i) + 6, ypos(hi), colour, 1)
            lp = [(xpos(i), ypos(v)) for i, v in enumerate(line_pps or [])]
            for a, b in zip(lp, lp[1:]):
                for k in range(0, 10, 2):	# dashed: 5 of every 10 steps
                    cv.line(a[0] + (b[0] - a[0]) * k // 10, a[1] + (b[1] - a[1]) * k // 10,
                            a[0] + (b[0] - a[0]) * (k + 1) // 10,
                            a[1] + (b[1] - a[1]) * (k + 1) // 10, BLACK, 2)
            if lp:
                cv.text(lp[0][0] + 8, lp[0][1] - 18, 'line rate', BLACK)
        lx = 14 if ax == left else w - 30
        cv.text(lx, (top + bottom) // 2, label, colour, anchor='centre', vertical=True)
    cv.line(left, bottom, right, bottom, BLACK, 2)
    cv.line(left, top, left, bottom, BLUE, 2)
    cv.line(right, top, right, bottom, RED, 2)
    for i, s in enumerate(sizes):
        cv.line(xpos(i), bottom, xpos(i), bottom + 5, BLACK, 2)
        cv.text(xpos(i), bottom + 12, str(s), anchor='centre')
    cv.text((left + right) // 2, h - 28, xlabel, anchor='centre')
    return cv.png()
