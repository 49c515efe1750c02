#!/usr/bin/env bash
# Import throughput against vipsthumbnail, side by side in one run, with the same parallelism.
#   scripts/bench-import.sh [CORPUS_DIR=/tmp/devbench-photos] [RUNS=3]
#   PHOTOS=DIR scripts/bench-import.sh: that folder instead of CORPUS_DIR/photos (scripts/bench-phone.sh).
# Builds the corpus with ../shared/bench/make_photos.sh if it is missing. For JOBS in 1 and 2:
# `memories import CORPUS/photos --jobs JOBS` into a fresh library (everything: walk, validate,
# thumbnail, hash, store durably, record) against `vipsthumbnail -s 256` of the same files with
# `xargs -n 8 -P JOBS` (thumbnails only), the median of RUNS, and the import's peak memory.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-/tmp/devbench-photos}
runs=${2:-3}
photos=${PHOTOS:-$corpus/photos}
[ -d "$photos" ] || ../shared/bench/make_photos.sh "$corpus"
command -v vipsthumbnail >/dev/null || { echo "vipsthumbnail missing: apt-get install libvips-tools" >&2; exit 1; }
swift build -c release --product memories >/dev/null
memories=$(pwd)/.build/release/memories
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
: > "$scratch/stages"
find "$photos" -type f -print0 > "$scratch/files"
count=$(tr -cd '\0' < "$scratch/files" | wc -c)
xargs -0 cat < "$scratch/files" > /dev/null   # warm the page cache
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "# $count files in $photos, $runs runs each, median seconds"
printf "jobs\timport_s\tphotos/s\tpeak_rss_MB\tvips_s\tphotos/s\tratio(vips/import)\n"
for jobs in 1 2; do
  imp=(); vip=(); rss=0
  for r in $(seq "$runs"); do
    rm -rf "$scratch/lib" "$scratch/thumbs"; mkdir -p "$scratch/thumbs"; sync
    /usr/bin/time -f "%e %M" -o "$scratch/time" "$memories" --library "$scratch/lib" import "$photos" --title bench --jobs "$jobs" > /dev/null 2>&1 || true
    read -r t m < "$scratch/time"; imp+=("$t"); [ "$m" -gt "$rss" ] && rss=$m
    start=$(date +%s.%N)
    xargs -0 -n 8 -P "$jobs" vipsthumbnail -s 256 -o "$scratch/thumbs/%s.jpg[Q=80]" < "$scratch/files" 2>/dev/null || true
    vip+=("$(echo "$(date +%s.%N) - $start" | bc)")
  done
  ti=$(printf "%s\n" "${imp[@]}" | median); tv=$(printf "%s\n" "${vip[@]}" | median)
  # Where the import's time went, from one more run (MEMORIES_IMPORT_STAGES=1; workers' seconds summed over threads).
  rm -rf "$scratch/lib"
  MEMORIES_IMPORT_STAGES=1 "$memories" --library "$scratch/lib" import "$photos" --title bench --jobs "$jobs" 2>&1 >/dev/null | grep '^memories: stages' | sed "s/^memories: /# jobs $jobs /" >> "$scratch/stages" || true
  printf "%s\t%.2f\t%.1f\t%d\t%.2f\t%.1f\t%.2fx\n" "$jobs" "$ti" "$(echo "$count / $ti" | bc -l)" $((rss / 1024)) "$tv" "$(echo "$count / $tv" | bc -l)" "$(echo "$tv / $ti" | bc -l)"
done
cat "$scratch/stages"
