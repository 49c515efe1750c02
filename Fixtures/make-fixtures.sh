#!/usr/bin/env bash
# Rebuilds every fixture in Fixtures/ from nothing, deterministically.
# Needs: python3, cjpeg (libjpeg-turbo-progs), vips (libvips-tools), exiftool (libimage-exiftool-perl),
# heif-enc (libheif-examples), cwebp and img2webp (webp).
#   Fixtures/make-fixtures.sh
# Output: Fixtures/images/ (good and bad files, EXPECTED.tsv) and Fixtures/photos/ (the demo folder).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
python3 "$here/make_fixtures.py" "$raw"
img="$here/images"
rm -rf "$img" "$here/photos"
mkdir -p "$img/good" "$img/bad" "$here/photos/Rome" "$here/photos/Rome/day 2" "$here/photos/Paris"

exif() { exiftool -q -overwrite_original "$@"; }

# Orientation 1–8: pixels stored rotated, the tag says how to show them upright.
for o in 1 2 3 4 5 6 7 8; do
  cjpeg -quality 95 -sample 1x1 "$raw/orientation-$o.ppm" > "$img/good/orientation-$o.jpg"
  exif -Orientation#=$o -DateTimeOriginal="2024:06:0$o 10:00:00" -OffsetTimeOriginal="+02:00" \
       -Make="Fixture Camera" -Model="Model $o" "$img/good/orientation-$o.jpg"
done
cjpeg -quality 90 -progressive "$raw/photo.ppm" > "$img/good/progressive.jpg"
# Baseline, one scan per component: decoded through whole-image coefficient arrays like a progressive file.
printf '0;\n1;\n2;\n' > "$raw/scans.txt"
cjpeg -quality 90 -scans "$raw/scans.txt" "$raw/photo.ppm" > "$img/good/multiscan.jpg"
cjpeg -quality 90 -grayscale "$raw/photo.ppm" > "$img/good/greyscale.jpg"
cjpeg -quality 90 "$raw/grey.pgm" > "$img/good/grey-source.jpg"
vips colourspace "$raw/photo.ppm" "$img/good/cmyk.jpg[strip]" cmyk
cjpeg -quality 90 "$raw/photo.ppm" > "$img/good/photo.jpg"
for f in rgba rgb16 grey8 grey1 palette interlaced; do cp "$raw/$f.png" "$img/good/$f.png"; done
cp "$raw/rgba.png" "$img/good/png-named.jpg"

# Bad files.
head -c $(( $(stat -c %s "$img/good/photo.jpg") / 2 )) "$img/good/photo.jpg" > "$img/bad/truncated.jpg"
: > "$img/bad/zero-bytes.jpg"
printf 'these are holiday notes, not a photo\n' > "$img/bad/text.jpg"
# Corrupt header: garble the SOF0 marker's segment (precision and dimensions).
python3 - "$img/good/photo.jpg" "$img/bad/corrupt-header.jpg" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.index(b"\xff\xc0")
d[i + 4:i + 10] = b"\x03\x00\x00\x00\x00\x07"
open(sys.argv[2], "wb").write(d)
PY
# Corrupt entropy data: overwrite bytes in the middle of the scan.
python3 - "$img/good/photo.jpg" "$img/bad/corrupt-data.jpg" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
start = d.index(b"\xff\xda")
mid = start + (len(d) - start) // 2
for k in range(mid, mid + 40):
    d[k] = 0xff if k % 2 else 0x00
open(sys.argv[2], "wb").write(d)
PY
# Decompression bomb: a real JPEG whose SOF says 60000x60000.
python3 - "$img/good/photo.jpg" "$img/bad/bomb.jpg" <<'PY'
import sys, struct
d = bytearray(open(sys.argv[1], "rb").read())
i = d.index(b"\xff\xc0")
d[i + 5:i + 9] = struct.pack(">HH", 60000, 60000)
open(sys.argv[2], "wb").write(d)
PY
cp "$raw/bomb.png" "$raw/crc.png" "$raw/corrupt-idat.png" "$raw/truncated.png" "$img/bad/"

# The demo folder: six photo-like pictures in nested folders, with capture dates.
n=0
for dest in "Rome/IMG_0001.jpg" "Rome/IMG_0002.jpg" "Rome/day 2/IMG_0003.jpg" "Paris/IMG_0004.jpg" "Paris/IMG_0005.jpg" "Rome/IMG_0006.jpg"; do
  n=$((n + 1))
  cjpeg -quality 85 "$raw/demo-$n.ppm" > "$here/photos/$dest"
  exif -DateTimeOriginal="2024:06:$((10 + n)) 1$n:30:00" -Make="Demo" -Model="Camera" "$here/photos/$dest"
done
cp "$here/photos/Rome/IMG_0001.jpg" "$here/photos/Paris/copy of IMG_0001.jpg"
printf 'not a photo\n' > "$here/photos/Rome/notes.txt"

# What each fixture must give: file, then "ok FORMAT WIDTH HEIGHT ORIENTATION" or "error KIND".
{
  for o in 1 2 3 4 5 6 7 8; do
    if [ $o -ge 5 ]; then echo -e "good/orientation-$o.jpg\tok jpeg 32 48 $o"; else echo -e "good/orientation-$o.jpg\tok jpeg 48 32 $o"; fi
  done
  echo -e "good/progressive.jpg\tok jpeg 96 64 1"
  echo -e "good/multiscan.jpg\tok jpeg 96 64 1"
  echo -e "good/greyscale.jpg\tok jpeg 96 64 1"
  echo -e "good/grey-source.jpg\tok jpeg 64 40 1"
  echo -e "good/cmyk.jpg\tok jpeg 96 64 1"
  echo -e "good/photo.jpg\tok jpeg 96 64 1"
  for f in rgba rgb16 grey8 grey1 palette interlaced; do echo -e "good/$f.png\tok png 48 32 1"; done
  echo -e "good/png-named.jpg\tok png 48 32 1"
  echo -e "bad/truncated.jpg\terror truncated"
  echo -e "bad/zero-bytes.jpg\terror unrecognized"
  echo -e "bad/text.jpg\terror unrecognized"
  echo -e "bad/corrupt-header.jpg\terror corrupt"
  echo -e "bad/corrupt-data.jpg\terror corrupt"
  echo -e "bad/bomb.jpg\terror tooLarge"
  echo -e "bad/bomb.png\terror tooLarge"
  echo -e "bad/crc.png\terror corrupt"
  echo -e "bad/corrupt-idat.png\terror corrupt"
  echo -e "bad/truncated.png\terror truncated"
} > "$img/EXPECTED.tsv"
"$here/make-phone-fixtures.sh"
echo "fixtures written to $img and $here/photos"
