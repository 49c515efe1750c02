#!/usr/bin/env bash
# A lifetime of syncs (issue 34): a camera roll that grows by PER photos a month for MONTHS months,
# synced into one memory each month. For each month it prints the sync that finds the new photos,
# an immediate sync that finds nothing new, `find -printf '%s %T@ %p'` over the same tree (what a
# directory listing costs), and the import of that month's new photos alone into an empty library.
#   scripts/bench-sync.sh [MONTHS=24] [PER=200]
# The photos are the corpus's 2048-px phone photos (../shared/bench), each copy made distinct by a
# counter appended after its end of image (so their thumbnails repeat: each is stored once and
# re-hashed when put again). Each month's photos are copied, then the script waits two seconds (a
# file changed within two seconds of being recorded is read again: SourceIndex). Also printed:
# `memories list`, the cost of starting the program and opening the library.
set -euo pipefail
cd "$(dirname "$0")/.."
months=${1:-24} per=${2:-200}
corpus=/tmp/devbench-photos
[ -d "$corpus/photos" ] || ../shared/bench/make_photos.sh "$corpus" >/dev/null
swift build -c release --product memories >/dev/null
bin=$(pwd)/.build/release/memories
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mapfile -t sources < <(find "$corpus/photos/2023/phone" -type f | sort)
roll=$scratch/DCIM lib=$scratch/library
# elapsed COMMAND...: wall seconds (output discarded), from a file system with nothing left to
# write (an import ends with syncfs(2), which would otherwise also write the photos just copied).
elapsed() { sync; local s; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; echo "$(date +%s.%N) - $s" | bc; }
# peak COMMAND...: peak resident KB.
peak() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1; }
echo "# a camera roll growing by $per photos a month for $months months (2048-px JPEGs)"
printf "month\tphotos\tsync_s\tno_change_s\tfind_s\tlist_s\tnew_alone_s\tno_change/(find+list)\tsync/(alone+no_change)\tpeak_KB\n"
n=0
for month in $(seq "$months"); do
  dir=$roll/$(printf "%04d-%02d" $((2025 + (month - 1) / 12)) $(((month - 1) % 12 + 1)))
  fresh=$scratch/fresh/$month
  mkdir -p "$dir" "$fresh"
  for _ in $(seq "$per"); do
    src=${sources[$((n % ${#sources[@]}))]}
    name=IMG_$(printf "%05d" "$n").JPG
    { cat "$src"; printf "%d" "$n"; } >"$dir/$name"
    cp "$dir/$name" "$fresh/$name"  # not a hard link: linking changes the file's ctime
    n=$((n + 1))
  done
  sleep 2.1
  sync_s=$(elapsed "$bin" --library "$lib" import "$roll" --title Phone -q)
  [ -z "${DEBUG:-}" ] || MEMORIES_IMPORT_STAGES=1 "$bin" --library "$lib" import "$roll" --title Phone --json -n >&2
  peak_kb=$(peak "$bin" --library "$lib" import "$roll" --title Phone -q)
  none_s=$(elapsed "$bin" --library "$lib" import "$roll" --title Phone -q)
  find_s=$(elapsed find "$roll" -type f -printf '%s %T@ %p\n')
  list_s=$(elapsed "$bin" --library "$lib" list)
  rm -rf "$scratch/alone"
  alone_s=$(elapsed "$bin" --library "$scratch/alone" import "$fresh" --title Phone -q)
  rm -rf "$fresh"
  printf "%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.2f\t%s\n" "$month" "$n" "$sync_s" "$none_s" "$find_s" "$list_s" "$alone_s" \
    "$(echo "$none_s / ($find_s + $list_s)" | bc -l)" "$(echo "$sync_s / ($alone_s + $none_s)" | bc -l)" "$peak_kb"
done
