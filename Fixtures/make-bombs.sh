#!/usr/bin/env bash
# Decompression bombs and files whose work grows with a header's numbers, not with their size:
# each must import or be rejected quickly and in little memory (docs/reliability.md has the
# figures). Made by Debian's own tools where one makes the shape (cwebp, webpmux, cjpeg, heif-enc),
# assembled by python3 where none does (APNG frames, zTXt and XMP bombs, appended MPO images).
# Needs: python3, cwebp and webpmux (webp), cjpeg (libjpeg-turbo-progs), heif-enc (libheif-examples).
#   Fixtures/make-bombs.sh
# Output: Fixtures/bombs/ and its EXPECTED.tsv (file, then ok or the error kind, then a word of the
# message); the fuzz script's check runs every one under the sanitizers.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/bombs"
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
rm -rf "$out"
mkdir -p "$out"

# Animated WebP: 2x2 frames spread over a 10000x10000 canvas. libwebp's animation decoder
# composites the whole canvas for every frame (600 frames: 46 s and 1.2 GB before the fix).
printf 'P6\n2 2\n255\n\xff\x00\x00\xff\x00\x00\xff\x00\x00\xff\x00\x00' > "$raw/red.ppm"
cwebp -quiet -lossless "$raw/red.ppm" -o "$raw/red.webp"
animation() {  # FRAMES OUTPUT
  local args=() i
  for i in $(seq 1 $(( $1 - 1 ))); do args+=(-frame "$raw/red.webp" "+10+$(( i * 2 % 9998 ))+$(( i * 4 % 9998 ))"); done
  # The last frame in the far corner makes the canvas 10000x10000 (webpmux sizes it from the frames).
  webpmux "${args[@]}" -frame "$raw/red.webp" +10+9998+9998 -loop 0 -o "$2" >/dev/null
}
animation 50 "$out/webp-50-frames-10000x10000.webp"
animation 600 "$out/webp-600-frames-10000x10000.webp"

python3 - "$out" "$raw" <<'PY'
import struct, sys, zlib
out, raw = sys.argv[1], sys.argv[2]

def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

def png(width, height, extra_before_idat=b"", after_idat=b"", colour=(200, 30, 30)):
    row = b"\x00" + bytes(colour) * width
    idat = zlib.compress(row * height, 9)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + extra_before_idat + chunk(b"IDAT", idat) + after_idat + chunk(b"IEND", b""))

# APNG: frames are fcTL + fdAT chunks after the default image. Nothing here decodes them, but a
# viewer plays them all: the frame count and canvas x frames are limited as for WebP.
def apng(width, height, frames, name):
    actl = chunk(b"acTL", struct.pack(">II", frames, 0))
    def fctl(seq, w, h, x, y):
        return chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, w, h, x, y, 1, 30, 0, 0))
    tiny = zlib.compress(b"\x00" + b"\x20\xc0\x20", 9)
    seq, rest = 1, []
    for i in range(frames - 1):
        rest.append(fctl(seq, 1, 1, i % width, (i // width) % height))
        rest.append(chunk(b"fdAT", struct.pack(">I", seq + 1) + tiny))
        seq += 2
    data = png(width, height, actl + fctl(0, width, height, 0, 0), b"".join(rest))
    open(f"{out}/{name}", "wb").write(data)

apng(64, 64, 10001, "apng-10001-frames.png")
apng(4000, 4000, 1000, "apng-1000-frames-4000x4000.png")

# Strips: one pixel wide or high, at the formats' largest sides.
open(f"{out}/strip-1x65535.png", "wb").write(png(1, 65535))
open(f"{out}/strip-65535x1.png", "wb").write(png(65535, 1))
open(f"{raw}/strip-1x65500.pgm", "wb").write(b"P5\n1 65500\n255\n" + bytes([128]) * 65500)
open(f"{raw}/strip-65500x1.pgm", "wb").write(b"P5\n65500 1\n255\n" + bytes([128]) * 65500)

# zTXt: 30 chunks of 8 MB of text each, compressed to 8 kB: libpng inflates and keeps every text
# chunk it reads unless told to skip them.
text = zlib.compress(b"a" * 8_000_000, 9)
ztxt = b"".join(chunk(b"zTXt", b"Comment\x00\x00" + text) for _ in range(30))
open(f"{out}/png-ztxt-240MB.png", "wb").write(png(32, 32, ztxt))
PY

cjpeg -quality 90 "$raw/strip-1x65500.pgm" > "$out/strip-1x65500.jpg"
cjpeg -quality 90 "$raw/strip-65500x1.pgm" > "$out/strip-65500x1.jpg"

# A photo with many images after it, as an MPO (a camera's 3D or depth pair) carries them, and an
# XMP packet whose entities expand a billion times (expat refuses the amplification).
printf 'P6\n16 16\n255\n' > "$raw/small.ppm"
head -c 768 /dev/zero | tr '\0' '\200' >> "$raw/small.ppm"
cjpeg -quality 90 "$raw/small.ppm" > "$raw/small.jpg"
python3 - "$out" "$raw" <<'PY'
import struct, sys
out, raw = sys.argv[1], sys.argv[2]
small = open(f"{raw}/small.jpg", "rb").read()
open(f"{out}/mpo-300-images.jpg", "wb").write(small * 301)
entities = '<!ENTITY a0 "laughing">' + "".join(f'<!ENTITY a{i} "{("&a%d;" % (i - 1)) * 10}">' for i in range(1, 10))
xmp = (f'<?xml version="1.0"?><!DOCTYPE x [{entities}]>'
       '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
       '<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:DateTimeOriginal="&a9;"/>'
       '</rdf:RDF></x:xmpmeta>').encode()
body = b"http://ns.adobe.com/xap/1.0/\x00" + xmp
segment = b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body
open(f"{out}/xmp-billion-laughs.jpg", "wb").write(small[:2] + segment + small[2:])
PY

# Whole-image decoders: a progressive JPEG of 380 scans (each may touch every coefficient: 12 s
# for 499 scans at 10000x10000), an interlaced PNG and a lossless WebP of tens of megapixels in a
# few hundred kilobytes (each decoded whole: over 200 MB).
python3 - "$out" "$raw" <<'PY'
import struct, sys, zlib
out, raw = sys.argv[1], sys.argv[2]

def segment(marker, payload):
    return struct.pack(">BBH", 0xFF, marker, len(payload) + 2) + payload

class Bits:
    def __init__(self): self.out, self.acc, self.n = bytearray(), 0, 0
    def put(self, value, count):
        for i in range(count - 1, -1, -1):
            self.acc = self.acc << 1 | (value >> i) & 1
            self.n += 1
            if self.n == 8:
                self.out.append(self.acc)
                if self.acc == 0xFF: self.out.append(0)   # byte stuffing
                self.acc, self.n = 0, 0
    def bytes(self):
        while self.n: self.put(1, 1)
        return bytes(self.out)

# Every coefficient zero: the DC table's one code (length 1) says "no difference", the AC table's
# one code (length 1) is EOB14, whose 14 extra bits end the band in up to 32767 blocks at once.
side, components = 4000, 3
blocks = (side // 8) * (side // 8)
jpeg = bytearray(b"\xff\xd8") + segment(0xDB, b"\x00" + bytes([1] * 64))
jpeg += segment(0xC2, struct.pack(">BHHB", 8, side, side, components) + b"".join(bytes([c + 1, 0x11, 0]) for c in range(components)))
jpeg += segment(0xC4, b"\x00" + bytes([1] + [0] * 15) + b"\x00") + segment(0xC4, b"\x10" + bytes([1] + [0] * 15) + b"\xe0")
def scan(comps, start, end, high, low):
    return segment(0xDA, bytes([len(comps)]) + b"".join(bytes([c + 1, 0]) for c in comps) + bytes([start, end, high << 4 | low]))
jpeg += scan(range(components), 0, 0, 0, 0) + bytes(blocks * components // 8)
scans = 1
for high, low in [(0, 1), (1, 0)]:               # each AC coefficient alone, first its high bits, then its last
    for c in range(components):
        for k in range(1, 64):
            bits, left = Bits(), blocks
            while left > 0:
                bits.put(0, 1); bits.put(16383, 14); left -= 32767
            jpeg += scan([c], k, k, high, low) + bits.bytes()
            scans += 1
jpeg += b"\xff\xd9"
open(f"{out}/jpeg-{scans}-scans-{side}x{side}.jpg", "wb").write(jpeg)

# Adam7: seven passes of rows, each a filter byte and zeros.
side = 7000
data, stream = bytearray(), zlib.compressobj(9)
for x0, y0, dx, dy in [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]:
    width, height = (side - x0 + dx - 1) // dx, (side - y0 + dy - 1) // dy
    row = b"\x00" + bytes(width * 3)
    for _ in range(height): data += stream.compress(row)
data += stream.flush()
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
open(f"{out}/png-interlaced-{side}x{side}.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 1))
                                                     + chunk(b"IDAT", bytes(data)) + chunk(b"IEND", b""))
open(f"{raw}/white-8000.ppm", "wb").write(b"P6\n8000 8000\n255\n" + b"\xff" * (8000 * 8000 * 3))
# Transparency in a pattern the lossless alpha coder cannot keep to 8 bits a pixel.
side, rows, stream = 7000, [], zlib.compressobj(6)
for y in range(side):
    row = bytearray(b"\x00") + bytes([200, 100, 50, 0]) * side
    row[4::4] = bytes((x ^ y) & 255 for x in range(side))
    rows.append(stream.compress(bytes(row)))
rows.append(stream.flush())
open(f"{raw}/alpha-{side}.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 6, 0, 0, 0))
                                         + chunk(b"IDAT", b"".join(rows)) + chunk(b"IEND", b""))
PY
cwebp -quiet -lossless -z 0 "$raw/white-8000.ppm" -o "$out/webp-lossless-8000x8000.webp"
# A lossy WebP whose transparency is a lossless bitstream: decoded whole (525 MB for 10000x10000).
cwebp -quiet -alpha_filter none "$raw/alpha-7000.png" -o "$out/webp-transparent-7000x7000.webp"

# A HEIF of 40 images: only the primary is decoded.
for i in $(seq 1 40); do cp "$raw/small.jpg" "$raw/img$i.jpg"; done
heif-enc -q 50 $(for i in $(seq 1 40); do echo "$raw/img$i.jpg"; done) -o "$out/heif-40-images.heic" >/dev/null

# A HEIF image sequence (as a phone's burst or live photo writes: brand msf1, a 'pict' track in a
# moov box) whose track says 100 million frames of 10000x10000, beside a small primary image. No
# Debian tool writes sequences (heif-enc 1.15 cannot); the track is assembled by python3. libheif
# 1.15 reads items, not tracks: the primary image alone is decoded, the track never touched.
heif-enc -q 50 "$raw/small.jpg" -o "$raw/primary.heic" >/dev/null
python3 - "$raw/primary.heic" "$out/heif-sequence-100M-frames.heic" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
def box(kind, body): return struct.pack(">I", 8 + len(body)) + kind + body
def full(kind, version, flags, body): return box(kind, struct.pack(">I", version << 24 | flags) + body)
boxes, i = [], 0
while i < len(data):
    size, kind = struct.unpack(">I4s", data[i:i + 8])
    boxes.append((kind, data[i:i + size]))
    i += size
frames, side = 100_000_000, 10000
matrix = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
hvc1 = box(b"hvc1", bytes(6) + struct.pack(">H", 1) + bytes(16) + struct.pack(">HHIIIH", side, side, 0x480000, 0x480000, 0, 1) + bytes(32) + struct.pack(">Hh", 24, -1))
stbl = box(b"stbl", full(b"stsd", 0, 0, struct.pack(">I", 1) + hvc1)
           + full(b"stts", 0, 0, struct.pack(">III", 1, frames, 1))
           + full(b"stsc", 0, 0, struct.pack(">IIII", 1, 1, frames, 1))
           + full(b"stsz", 0, 0, struct.pack(">II", 16, frames))
           + full(b"stco", 0, 0, struct.pack(">II", 1, 0)))
minf = box(b"minf", full(b"vmhd", 0, 1, bytes(8)) + box(b"dinf", full(b"dref", 0, 0, struct.pack(">I", 1) + full(b"url ", 0, 1, b""))) + stbl)
mdia = box(b"mdia", full(b"mdhd", 0, 0, struct.pack(">IIIIHH", 0, 0, 30, frames, 0x55C4, 0))
           + full(b"hdlr", 0, 0, struct.pack(">I4s12x", 0, b"pict") + b"sequence\0") + minf)
trak = box(b"trak", full(b"tkhd", 0, 3, struct.pack(">IIIII", 0, 0, 1, 0, frames) + bytes(8) + struct.pack(">hhhH", 0, 0, 0, 0) + matrix
                                     + struct.pack(">II", side << 16, side << 16)) + mdia)
moov = box(b"moov", full(b"mvhd", 0, 0, struct.pack(">IIII", 0, 0, 30, frames) + struct.pack(">IH", 0x10000, 0x100) + bytes(10) + matrix + bytes(24) + struct.pack(">I", 2)) + trak)
# Brand msf1 (an image sequence), in the ftyp's own size: the items' offsets stay as they were.
ftyp = next(body for kind, body in boxes if kind == b"ftyp")
compatible = [ftyp[i:i + 4] for i in range(16, len(ftyp), 4)]
if b"msf1" not in compatible: compatible[-1] = b"msf1"
assert b"mif1" in compatible
ftyp = ftyp[:8] + b"msf1" + ftyp[12:16] + b"".join(compatible)
# The moov after everything else, so no offset moves.
out = ftyp + b"".join(body for kind, body in boxes if kind != b"ftyp") + moov
open(sys.argv[2], "wb").write(out)
PY

cat > "$out/EXPECTED.tsv" <<'TSV'
webp-50-frames-10000x10000.webp	ok
webp-600-frames-10000x10000.webp	tooLarge gigapixels
apng-10001-frames.png	tooLarge frames
apng-1000-frames-4000x4000.png	tooLarge gigapixels
strip-1x65535.png	ok
strip-65535x1.png	ok
strip-1x65500.jpg	ok
strip-65500x1.jpg	ok
png-ztxt-240MB.png	ok
mpo-300-images.jpg	ok
xmp-billion-laughs.jpg	ok
heif-40-images.heic	ok
heif-sequence-100M-frames.heic	ok
jpeg-379-scans-4000x4000.jpg	tooLarge work
png-interlaced-7000x7000.png	ok
webp-lossless-8000x8000.webp	tooLarge lossless
webp-transparent-7000x7000.webp	tooLarge transparency
TSV
ls -l "$out"
