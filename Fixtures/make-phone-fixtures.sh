#!/usr/bin/env bash
# HEIC, AVIF and WebP fixtures, made from the JPEG and PNG fixtures by Debian's own encoders.
# Needs: heif-enc (libheif-examples), cwebp and img2webp (webp), exiftool, cjpeg, cc and liblcms2-dev, python3. Run by make-fixtures.sh;
# can be run alone (it replaces its own files and its lines of EXPECTED.tsv).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
img="$here/images"
good="$img/good" bad="$img/bad"
rm -f "$good"/*.heic "$good"/*.avif "$good"/*.webp "$good/heic-named.jpg" "$bad/truncated.heic" "$bad"/*.webp "$good"/private.* "$good"/date-* "$good"/display-p3.*
# Kept as found: bad/grid-bomb.heic, a 3.6 kB file the fuzzer made whose grid declares 28001x27756.
# bad/grid-bomb-wide.heic: the same with its declared size (ispe) made 19999x1, a "panorama" of 20 kpx
# whose grid would still build 28001x27756 (made below from grid-bomb.heic).

heif-enc -q 90 "$good/photo.jpg" -o "$good/photo.heic" >/dev/null
# With an embedded 48 px thumbnail, as phones write them: the photo itself is what is decoded.
heif-enc -q 90 -t 48 "$good/photo.jpg" -o "$good/thumbnailed.heic" >/dev/null
# As a phone writes it: pixels as the sensor saw them, an `irot` turning them upright, and the
# EXIF orientation (6) saying the same again (which must not be applied twice).
heif-enc -q 95 "$good/orientation-6.jpg" -o "$good/rotated.heic" >/dev/null
python3 "$here/heif_rotate.py" "$good/rotated.heic" "$good/rotated.heic" 3
cp "$good/photo.heic" "$good/heic-named.jpg"
heif-enc -A -q 90 "$good/photo.jpg" -o "$good/photo.avif" >/dev/null
cwebp -quiet -q 90 -metadata exif "$good/photo.jpg" -o "$good/photo.webp"
cwebp -quiet -q 95 -metadata exif "$good/orientation-6.jpg" -o "$good/orientation-6.webp"
cwebp -quiet -lossless "$good/rgba.png" -o "$good/lossless-alpha.webp"
img2webp -loop 0 -lossless "$good/rgba.png" -d 100 "$good/palette.png" -o "$good/animated.webp" >/dev/null

# Metadata that --strip-metadata must remove: GPS, XMP, a comment (JPEG, turned by orientation 6);
# EXIF and text chunks (PNG).
cp "$good/orientation-6.jpg" "$good/private.jpg"
exiftool -q -overwrite_original -GPSLatitude=47.37 -GPSLatitudeRef=N -GPSLongitude=8.54 -GPSLongitudeRef=E \
  -XMP-dc:Description="secret place" -Comment="a comment" "$good/private.jpg"
cp "$good/rgba.png" "$good/private.png"
exiftool -q -overwrite_original -Make="Private Camera" -PNG:Comment="secret place" "$good/private.png"

# Capture times: EXIF at +02:00 just after midnight (a different day in UTC), with a fraction of a
# second; only in XMP (JPEG: exif:DateTimeOriginal; PNG: xmp:CreateDate).
cp "$good/photo.jpg" "$good/date-zurich-night.jpg"
exiftool -q -overwrite_original -DateTimeOriginal="2024:06:13 00:30:00" -OffsetTimeOriginal="+02:00" \
  -SubSecTimeOriginal=250 "$good/date-zurich-night.jpg"
# A camera that keeps its clock's time and no zone (most older cameras): 03:00, the day before in
# UTC-anything if it were read as UTC.
cp "$good/photo.jpg" "$good/date-camera-clock.jpg"
exiftool -q -overwrite_original -all= -DateTimeOriginal="2024:06:11 03:00:00" "$good/date-camera-clock.jpg"
cp "$good/photo.jpg" "$good/date-xmp-only.jpg"
exiftool -q -overwrite_original -all= "$good/date-xmp-only.jpg"
exiftool -q -overwrite_original -XMP-exif:DateTimeOriginal="2024-06-13T23:30:00+02:00" "$good/date-xmp-only.jpg"
cp "$good/rgba.png" "$good/date-xmp-only.png"
exiftool -q -overwrite_original -XMP-xmp:CreateDate="2024-06-14T08:15:00-07:00" "$good/date-xmp-only.png"
# The same XMP-only date in a WebP (XMP chunk) and a HEIC (XMP item), and one only in photoshop:DateCreated.
cwebp -quiet -q 90 -metadata xmp "$good/date-xmp-only.jpg" -o "$good/date-xmp-only.webp"
heif-enc -q 90 "$good/date-xmp-only.jpg" -o "$good/date-xmp-only.heic" >/dev/null
cp "$good/photo.jpg" "$good/date-photoshop.jpg"
exiftool -q -overwrite_original -all= "$good/date-photoshop.jpg"
exiftool -q -overwrite_original -XMP-photoshop:DateCreated="2023-03-04T05:06:07-05:00" "$good/date-photoshop.jpg"

# A Display P3 photo: a saturated red and green that sRGB shows differently, with its profile.
scratch=$(mktemp -d)
cc "$here/make_p3_profile.c" -llcms2 -o "$scratch/p3" && "$scratch/p3" "$scratch/p3.icc"
python3 - "$scratch/p3.ppm" <<'PY'
import sys
w, h = 64, 32
open(sys.argv[1], "wb").write(b"P6 64 32 255\n" + b"".join(bytes(c for x in range(w) for c in ((200, 40, 40) if x < 32 else (60, 190, 70))) for y in range(h)))
PY
cjpeg -quality 95 -sample 1x1 "$scratch/p3.ppm" > "$good/display-p3.jpg"
exiftool -q -overwrite_original "-ICC_Profile<=$scratch/p3.icc" "$good/display-p3.jpg"
# The same photo and profile as a HEIC (colr item) and a WebP (ICCP chunk).
heif-enc -q 95 "$good/display-p3.jpg" -o "$good/display-p3.heic" >/dev/null
cwebp -quiet -q 95 -metadata icc "$good/display-p3.jpg" -o "$good/display-p3.webp"

# A phone panorama: 12000x800 (9.6 MP), wider than 10000 px, within the 100 MP limit.
python3 - "$scratch/pano.png" <<'PY'
import struct, sys, zlib
w, h = 12000, 800
rows = b"".join(b"\0" + bytes(v for x in range(w) for v in ((x * 255) // w, (y * 255) // h, 128)) for y in range(h))
chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))
PY
heif-enc -q 20 "$scratch/pano.png" -o "$good/panorama.heic" >/dev/null
rm -rf "$scratch"

half() { head -c $(( $(stat -c %s "$1") / 2 )) "$1" > "$2"; }
half "$good/photo.heic" "$bad/truncated.heic"
half "$good/photo.webp" "$bad/truncated.webp"
# A WebP whose header claims a 16384x16384 canvas (268 MP) and holds nothing else.
python3 - "$bad/bomb.webp" <<'PY'
import struct, sys
vp8x = b"VP8X" + struct.pack("<I", 10) + bytes([0, 0, 0, 0]) + (16383).to_bytes(3, "little") + (16383).to_bytes(3, "little")
open(sys.argv[1], "wb").write(b"RIFF" + struct.pack("<I", 4 + len(vp8x)) + b"WEBP" + vp8x)
PY

python3 - "$bad/grid-bomb.heic" "$bad/grid-bomb-wide.heic" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.find(b"ispe")
data[at + 8:at + 16] = struct.pack(">II", 19999, 1)
open(sys.argv[2], "wb").write(data)
PY

tsv="$img/EXPECTED.tsv"
grep -v -E '\.(heic|avif|webp)|heic-named|private\.|date-|display-p3' "$tsv" > "$tsv.tmp" || true
{
  cat "$tsv.tmp"
  echo -e "good/photo.heic\tok heic 96 64 1"
  echo -e "good/rotated.heic\tok heic 48 32 1"
  echo -e "good/thumbnailed.heic\tok heic 96 64 1"
  echo -e "good/panorama.heic\tok heic 12000 800 1"
  echo -e "good/heic-named.jpg\tok heic 96 64 1"
  echo -e "good/photo.avif\tok avif 96 64 1"
  echo -e "good/photo.webp\tok webp 96 64 1"
  echo -e "good/orientation-6.webp\tok webp 32 48 6"
  echo -e "good/lossless-alpha.webp\tok webp 48 32 1"
  echo -e "good/animated.webp\tok webp 48 32 1"
  echo -e "good/date-zurich-night.jpg\tok jpeg 96 64 1"
  echo -e "good/date-camera-clock.jpg\tok jpeg 96 64 1"
  echo -e "good/date-xmp-only.jpg\tok jpeg 96 64 1"
  echo -e "good/date-xmp-only.png\tok png 48 32 1"
  echo -e "good/date-xmp-only.webp\tok webp 96 64 1"
  echo -e "good/date-xmp-only.heic\tok heic 96 64 1"
  echo -e "good/date-photoshop.jpg\tok jpeg 96 64 1"
  echo -e "good/display-p3.jpg\tok jpeg 64 32 1"
  echo -e "good/display-p3.heic\tok heic 64 32 1"
  echo -e "good/display-p3.webp\tok webp 64 32 1"
  echo -e "good/private.jpg\tok jpeg 32 48 6"
  echo -e "good/private.png\tok png 48 32 1"
  echo -e "bad/truncated.heic\terror truncated"
  echo -e "bad/grid-bomb.heic\terror tooLarge"
  echo -e "bad/grid-bomb-wide.heic\terror tooLarge"
  echo -e "bad/truncated.webp\terror truncated"
  echo -e "bad/bomb.webp\terror tooLarge"
} > "$tsv"
rm "$tsv.tmp"
