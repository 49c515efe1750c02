#!/usr/bin/env bash
# Valid JPEGs whose segments cannot be walked exactly, each carrying GPS, EXIF, XMP, IPTC and a
# comment: `export --strip-metadata` must re-encode them rather than fail or keep any of it.
# Needs: exiftool (libimage-exiftool-perl), python3. Output: Fixtures/strip/edge-*.jpg.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/strip"
base=$(mktemp --suffix=.jpg)
trap 'rm -f "$base"' EXIT
cp "$here/images/good/private.jpg" "$base"
exiftool -q -overwrite_original -IPTC:City="secret city" -IPTC:Keywords="secret keyword" "$base"
python3 - "$base" "$out" <<'PY'
import struct, sys
data, out = open(sys.argv[1], "rb").read(), sys.argv[2]

def segments(data):
    """(offset, marker, end) of each segment before the first scan."""
    i, found = 2, []
    while data[i] == 0xFF and data[i + 1] != 0xDA:
        end = i + 2 + struct.unpack(">H", data[i + 2:i + 4])[0]
        found.append((i, data[i + 1], end))
        i = end
    return found

dqt = next(s for s in segments(data) if s[1] == 0xDB)
# 1. Bytes between two segments (libjpeg: "3 extraneous bytes before marker 0xdb", a warning).
open(f"{out}/edge-junk-before-marker.jpg", "wb").write(data[:dqt[0]] + b"\x00\x13\x37" + data[dqt[0]:])
# 2. A Photoshop (APP13, IPTC) segment whose length says 16 bytes less than it holds: its last 16
#    bytes are left between segments (libjpeg skips them to the next marker).
app13 = next(s for s in segments(data) if s[1] == 0xED)
length = app13[2] - app13[0] - 2
broken = data[:app13[0] + 2] + struct.pack(">H", length - 16) + data[app13[0] + 4:]
open(f"{out}/edge-broken-photoshop.jpg", "wb").write(broken)
# 3. An Adobe (APP14) segment cut to its name: the 7 bytes of its body that should follow are left
#    between segments (libjpeg ignores an APP14 shorter than 12 bytes, then skips them).
app14 = b"\xff\xee" + struct.pack(">H", 7) + b"Adobe" + b"\x00\x64\x00\x00\x00\x00\x01"
open(f"{out}/edge-truncated-app14.jpg", "wb").write(data[:dqt[0]] + app14 + data[dqt[0]:])
PY
