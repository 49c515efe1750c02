#!/usr/bin/env bash
# A phone's share of the benchmark corpus: HEIC (as an iPhone writes them: HEVC, a 320 px
# embedded thumbnail, EXIF kept) and WebP, made by Debian's heif-enc and cwebp from the
# 2048 px phone photos of ../shared/bench/make_photos.sh; and OUT_DIR/plain/heic, the same HEICs
# without the embedded thumbnail (what a peer must then decode is what the import decodes).
#   scripts/make-phone-photos.sh [CORPUS_DIR=/tmp/devbench-photos] [OUT_DIR=/tmp/devbench-phone] [HEIC=40] [WEBP=20]
# Idempotent: an existing OUT_DIR with the same counts is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-/tmp/devbench-photos} out=${2:-/tmp/devbench-phone} heic=${3:-40} webp=${4:-20}
[ -d "$corpus/photos" ] || ../shared/bench/make_photos.sh "$corpus"
for tool in heif-enc cwebp; do command -v $tool >/dev/null || { echo "$tool missing: apt-get install libheif-examples webp" >&2; exit 1; }; done
if [ -f "$out/COUNTS" ] && [ "$(cat "$out/COUNTS")" = "$heic $webp plain" ]; then echo "kept $out"; exit 0; fi
rm -rf "$out"; mkdir -p "$out/photos/heic" "$out/photos/webp" "$out/plain/heic"
mapfile -t sources < <(find "$corpus/photos/2023/phone" -type f -name '*.JPG' | sort)
i=0
for src in "${sources[@]:0:$heic}"; do
  i=$((i + 1)); printf -v name 'IMG_%04d.HEIC' "$i"
  heif-enc -q 75 -t 320 "$src" -o "$out/photos/heic/$name" >/dev/null
  heif-enc -q 75 "$src" -o "$out/plain/heic/$name" >/dev/null
done
for src in "${sources[@]:$heic:$webp}"; do
  i=$((i + 1)); printf -v name 'IMG_%04d.webp' "$i"
  cwebp -quiet -q 80 -metadata exif "$src" -o "$out/photos/webp/$name"
done
echo "$heic $webp plain" > "$out/COUNTS"
echo "built $out/photos: $heic HEIC, $webp WebP ($(du -sh "$out/photos" | cut -f1))"
