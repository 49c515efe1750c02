#!/usr/bin/env bash
# The phone formats against vipsthumbnail, in one run: scripts/bench-import.sh over
#   1. the phone folder as a phone gives it (HEIC with a 320 px embedded thumbnail, and WebP),
#   2. its HEICs alone, and
#   3. the same HEICs without the embedded thumbnail, where vipsthumbnail must decode each photo
#      as the import does (the import always decodes a photo to prove it whole).
#   scripts/bench-phone.sh [RUNS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
scripts/make-phone-photos.sh /tmp/devbench-photos /tmp/devbench-phone >/dev/null
for folder in /tmp/devbench-phone/photos /tmp/devbench-phone/photos/heic /tmp/devbench-phone/plain/heic; do
  PHOTOS=$folder scripts/bench-import.sh /tmp/devbench-photos "$runs"
done
