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

# A HEIF of 40 images: only the primary is decoded.
for i in $(seq 1 40); do cp "$raw/small.jpg" "$raw/img$i.jpg"; done
heif-enc -q 50 $(for i in $(seq 1 40); do echo "$raw/img$i.jpg"; done) -o "$out/heif-40-images.heic" >/dev/null

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
TSV
ls -l "$out"
