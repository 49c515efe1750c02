#!/usr/bin/env python3
"""Writes the raw images for Fixtures/ (PPM for cjpeg, PNGs of every colour type) using only the
standard library; make-fixtures.sh turns them into the committed fixtures. Deterministic."""
import math, os, struct, sys, zlib

OUT = sys.argv[1]

def quadrants(w, h):
    """Upright reference: red top-left, green top-right, blue bottom-left, white bottom-right."""
    colours = [(220, 30, 30), (30, 200, 30), (30, 30, 220), (250, 250, 250)]
    return [[colours[(y >= h // 2) * 2 + (x >= w // 2)] for x in range(w)] for y in range(h)]

def source_for(upright, orientation):
    """The stored pixels that the EXIF orientation turns into `upright` (the inverse transform)."""
    inverse = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6}[orientation]
    return orient(upright, inverse)

def orient(img, o):
    h, w = len(img), len(img[0])
    swap = o in (5, 6, 7, 8)
    W, H = (h, w) if swap else (w, h)
    out = []
    for y in range(H):
        row = []
        for x in range(W):
            sx, sy = {1: (x, y), 2: (w - 1 - x, y), 3: (w - 1 - x, h - 1 - y), 4: (x, h - 1 - y),
                      5: (y, x), 6: (y, h - 1 - x), 7: (w - 1 - y, h - 1 - x), 8: (w - 1 - y, x)}[o]
            row.append(img[sy][sx])
        out.append(row)
    return out

def ppm(path, img):
    h, w = len(img), len(img[0])
    with open(path, "wb") as f:
        f.write(b"P6 %d %d 255\n" % (w, h))
        f.write(bytes(c for row in img for px in row for c in px))

def pgm(path, img):
    h, w = len(img), len(img[0])
    with open(path, "wb") as f:
        f.write(b"P5 %d %d 255\n" % (w, h))
        f.write(bytes(row_px[0] for row in img for row_px in row))

def photo(w, h, seed):
    """Something photo-like: smooth colour fields with detail."""
    img = []
    for y in range(h):
        row = []
        for x in range(w):
            r = 128 + 100 * math.sin(x / (7 + seed) + y / 13)
            g = 128 + 100 * math.sin(y / (9 + seed) - x / 17 + seed)
            b = 128 + 100 * math.cos((x + y) / (11 + seed))
            row.append((int(r), int(g), int(b)))
        img.append(row)
    return img

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)

def png(path, w, h, colour_type, bit_depth, rows, interlace=False, extra=b""):
    """rows: list of lists of sample tuples (already in the file's sample format)."""
    def pack_row(samples):
        if bit_depth == 16:
            return b"".join(struct.pack(">H", v) for px in samples for v in px)
        if bit_depth == 8:
            return bytes(v for px in samples for v in px)
        # packed grey / palette below 8 bits
        bits, acc, n, out = bit_depth, 0, 0, bytearray()
        for px in samples:
            acc = (acc << bits) | px[0]
            n += bits
            if n == 8:
                out.append(acc); acc = 0; n = 0
        if n:
            out.append(acc << (8 - n))
        return bytes(out)
    raw = bytearray()
    if interlace:
        passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        for x0, y0, dx, dy in passes:
            for y in range(y0, h, dy):
                samples = [rows[y][x] for x in range(x0, w, dx)]
                if samples:
                    raw += b"\0" + pack_row(samples)
    else:
        for y in range(h):
            raw += b"\0" + pack_row(rows[y])
    ihdr = struct.pack(">IIBBBBB", w, h, bit_depth, colour_type, 0, 0, 1 if interlace else 0)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(data)
    return data

os.makedirs(OUT, exist_ok=True)
W, H = 48, 32
up = quadrants(W, H)
for o in range(1, 9):
    ppm(f"{OUT}/orientation-{o}.ppm", source_for(up, o))
ppm(f"{OUT}/photo.ppm", photo(96, 64, 1))
pgm(f"{OUT}/grey.pgm", [[(v,) for v in (int(255 * x / 63) for x in range(64))] for _ in range(40)])
for i, (w, h) in enumerate([(640, 480), (480, 640), (640, 427), (512, 512), (600, 400), (400, 600)]):
    ppm(f"{OUT}/demo-{i + 1}.ppm", photo(w, h, i + 1))

# PNG variants
q = quadrants(W, H)
png(f"{OUT}/rgba.png", W, H, 6, 8, [[(r, g, b, 255 if x < W // 2 else 0) for x, (r, g, b) in enumerate(row)] for row in q])
png(f"{OUT}/rgb16.png", W, H, 2, 16, [[(r * 257, g * 257, b * 257) for (r, g, b) in row] for row in q])
png(f"{OUT}/grey8.png", W, H, 0, 8, [[(x * 5 % 256,) for x in range(W)] for _ in range(H)])
png(f"{OUT}/grey1.png", W, H, 0, 1, [[((x // 4 + y // 4) % 2,) for x in range(W)] for y in range(H)])
palette = chunk(b"PLTE", bytes([220, 30, 30, 30, 200, 30, 30, 30, 220, 250, 250, 250])) + chunk(b"tRNS", bytes([255, 255, 255, 0]))
index = {(220, 30, 30): 0, (30, 200, 30): 1, (30, 30, 220): 2, (250, 250, 250): 3}
png(f"{OUT}/palette.png", W, H, 3, 8, [[(index[px],) for px in row] for row in q], extra=palette)
png(f"{OUT}/interlaced.png", W, H, 2, 8, q, interlace=True)
# Bad PNGs: a decompression bomb (declared 50000x50000, tiny data) and a CRC error.
bomb_ihdr = struct.pack(">IIBBBBB", 50000, 50000, 8, 2, 0, 0, 0)
with open(f"{OUT}/bomb.png", "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", bomb_ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + chunk(b"IEND", b""))
good = open(f"{OUT}/interlaced.png", "rb").read()
i = good.index(b"IDAT") + 10
with open(f"{OUT}/corrupt-idat.png", "wb") as f:   # deflate data damaged (and so its CRC)
    f.write(good[:i] + bytes([good[i] ^ 0xff]) + good[i + 1:])
length = struct.unpack(">I", good[good.index(b"IDAT") - 4:good.index(b"IDAT")])[0]
c = good.index(b"IDAT") + 4 + length                 # the IDAT's CRC field: data intact, CRC wrong
with open(f"{OUT}/crc.png", "wb") as f:
    f.write(good[:c] + bytes([good[c] ^ 0x01]) + good[c + 1:])
with open(f"{OUT}/truncated.png", "wb") as f:
    f.write(good[: len(good) * 2 // 3])
