#!/usr/bin/env bash
# A lifetime library: PHOTOS photos in MEMORIES memories (Benchmarks/scale-gen, through the journal's
# own models and blob store, nothing decoded), then each command timed beside a peer where one exists.
#   scripts/bench-scale.sh [PHOTOS=1000000] [MEMORIES=20000] [RUNS=3]
#   SKIP=verify,gc scripts/bench-scale.sh …: leave those out (verify reads every blob: on a disk that
#   serves cold 4 KB reads at a few MB/s, 2,000,000 blobs take half an hour, and so does the peer).
# The library is kept in /tmp/bench-scale-PHOTOS (made again only when missing); the 300 photos
# imported are the first 300 files of the benchmark corpus (../shared/bench).
set -euo pipefail
cd "$(dirname "$0")/.."
photos=${1:-1000000} memories=${2:-20000} runs=${3:-3}
lib=/tmp/bench-scale-$photos
corpus=/tmp/devbench-photos
[ -d "$corpus/photos" ] || ../shared/bench/make_photos.sh "$corpus" >/dev/null
command -v sqlite3 >/dev/null || { echo "sqlite3 missing: apt-get install sqlite3" >&2; exit 1; }
swift build -c release --product memories >/dev/null
swift build -c release --product scale-gen >/dev/null
bin=$(pwd)/.build/release
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if [ ! -f "$lib/DONE" ]; then
  rm -rf "$lib"
  /usr/bin/time -f "%e s, peak %M KB" "$bin/scale-gen" "$lib" "$photos" "$memories" 5000
  touch "$lib/DONE"
fi
mkdir -p "$scratch/three-hundred"
# The first 300 files of the corpus (JPEG and PNG, up to 6000x4000), each under a name of its own.
find "$corpus/photos" -type f | sort | sed -n '1,300p' | while read -r f; do
  cp "$f" "$scratch/three-hundred/$(echo "$f" | sha256sum | cut -c1-8)-$(basename "$f")"
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# seconds COMMAND...: the median wall time of RUNS runs (output discarded).
seconds() {
  for _ in $(seq "$runs"); do
    local s; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; echo "$(date +%s.%N) - $s" | bc
  done | median
}
m() { "$bin/memories" --library "$lib" "$@"; }
store=$lib/library.store
echo "# $photos photos in $memories memories ($(du -sh "$lib" | cut -f1) on disk), median of $runs runs"
printf "what\tmemories_s\tpeer\tpeer_s\n"
printf "list\t%.3f\tsqlite3 SELECT of the memories\t%.3f\n" "$(seconds m list)" \
  "$(seconds sqlite3 "$store" "SELECT id, title, date FROM Memory ORDER BY date DESC")"
printf "list --search rome\t%.3f\tsqlite3 FTS5 MATCH\t%.3f\n" "$(seconds m list --search rome)" \
  "$(seconds sqlite3 "$store" "SELECT memory FROM memory_search WHERE memory_search MATCH 'rome'")"
printf "show (5000 photos)\t%.3f\tsqlite3 SELECT of its photos\t%.3f\n" "$(seconds m show "Big memory")" \
  "$(seconds sqlite3 "$store" "SELECT filename, sha256, takenAt FROM MemoryImage WHERE memory = (SELECT _pk FROM Memory WHERE title = 'Big memory') ORDER BY takenAt")"
skip=",${SKIP:-},"
[[ $skip == *,gc,* ]] || printf "gc --dry-run\t%.3f\tfind over the blob tree\t%.3f\n" "$(seconds m gc --dry-run)" \
  "$(seconds find "$lib/.library_SUPPORT/sha256" -type f)"
[[ $skip == *,verify,* ]] || printf "verify\t%.3f\tsha256sum over the same files\t%.3f\n" "$(runs=1 seconds m verify)" \
  "$(runs=1 seconds sh -c "find '$lib/.library_SUPPORT/sha256' -type f -print0 | xargs -0 -P 2 -n 2000 sha256sum")"
# The import: into the big library and into an empty one, alternated.
big=() empty=()
for r in $(seq "$runs"); do
  rm -rf "$scratch/empty"; m delete "Scale import" --yes >/dev/null 2>&1 || true
  s=$(date +%s.%N); m import "$scratch/three-hundred" --title "Scale import" >/dev/null 2>&1; big+=("$(echo "$(date +%s.%N) - $s" | bc)")
  s=$(date +%s.%N); "$bin/memories" --library "$scratch/empty" import "$scratch/three-hundred" --title "Scale import" >/dev/null 2>&1
  empty+=("$(echo "$(date +%s.%N) - $s" | bc)")
done
printf "import 300 photos\t%.3f\tthe same into an empty library\t%.3f\n" "$(printf "%s\n" "${big[@]}" | median)" "$(printf "%s\n" "${empty[@]}" | median)"
m delete "Scale import" --yes >/dev/null 2>&1 || true
# Delete: a 5,000-photo memory added for the purpose (copying the library would take longer than
# the rest), then its blobs emptied from the trash so the library is as before.
"$bin/scale-gen" "$lib" 5000 1 5000 "Delete me" >/dev/null 2>&1
s=$(date +%s.%N); m delete "Delete me" --yes >/dev/null
printf "delete (5000 photos)\t%.3f\t\t\n" "$(echo "$(date +%s.%N) - $s" | bc)"
m gc --prune-now >/dev/null 2>&1 || true
# A re-sync of an unchanged 20,000-photo folder (tiny distinct JPEGs: the import's cost here is
# the walk, the record's lookups and the checks of the stored copies, not decoding), beside find.
roll=$scratch/roll20k
python3 - "$roll" <<'PY'
import os, sys
src = open('Fixtures/images/good/orientation-1.jpg', 'rb').read()
for i in range(20000):
    folder = os.path.join(sys.argv[1], '%03d' % (i // 200))
    os.makedirs(folder, exist_ok=True)
    open(os.path.join(folder, 'IMG_%05d.JPG' % i), 'wb').write(src + str(i).encode())
PY
m delete "Roll 20k" --yes >/dev/null 2>&1 || true
first=$(seconds_once() { local s; s=$(date +%s.%N); m import "$roll" --title "Roll 20k" -q >/dev/null 2>&1; echo "$(date +%s.%N) - $s" | bc; }; seconds_once)
sleep 2.1
printf "import 20,000 small photos\t%.3f\t\t\n" "$first"
printf "re-sync them, unchanged\t%.3f\tfind -printf over the folder\t%.3f\n" "$(seconds m import "$roll" --title "Roll 20k" -q)" \
  "$(seconds find "$roll" -type f -printf '%s %T@ %p\n')"
m delete "Roll 20k" --yes >/dev/null 2>&1 || true
m gc --prune-now >/dev/null 2>&1 || true
size=$(stat -c %s "$store")
printf "store size\t%d bytes\tper photo\t%d bytes\n" "$size" $((size / photos))
