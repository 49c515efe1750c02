#!/usr/bin/env bash
# The slow reliability runs (the fast ones are in Tests/MemoriesTests/ReliabilityTests.swift).
#   scripts/reliability.sh [KILLS=30 (at least 13)] [PHOTOS_DIR]
# PHOTOS_DIR defaults to the bench corpus (/tmp/devbench-photos/photos, built if missing).
#  1. import killed with SIGKILL at a random moment KILLS times on one library; after each kill
#     `verify` must be healthy and the re-run of the same import must complete with exactly the
#     photos (by SHA-256) that a clean import gives; at the end `gc` leaves no orphans.
#  2. delete and gc killed at random moments; rows and blobs stay consistent, nothing referenced lost.
#  3. gc in a loop in a second process while imports and deletes run: no referenced blob lost, no
#     busy errors.
# Prints a summary line per part and exits non-zero on the first violation.
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${1:-30}
# Part 3 deletes kill-11..13 while gc loops, so there must be at least 13 of them.
[ "$kills" -ge 13 ] || { echo "reliability.sh: KILLS must be at least 13" >&2; exit 64; }
photos=${2:-/tmp/devbench-photos/photos}
[ -d "$photos" ] || ../shared/bench/make_photos.sh "$(dirname "$photos")"
swift build -c release --product memories >/dev/null
m=$(pwd)/.build/release/memories
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lib="$work/lib"
fail() { echo "VIOLATION: $*" >&2; exit 1; }
shas() { $m --library "$1" show "$2" --json | python3 -c 'import json,sys; print("\n".join(sorted(i["sha256"] for i in json.load(sys.stdin)["images"])))'; }
healthy() { $m --library "$lib" verify --json > "$work/verify.json" || fail "verify after $1: $(cat "$work/verify.json")"; }

# The reference: one clean import.
$m --library "$work/clean" import "$photos" --title ref >/dev/null 2>&1 || true
shas "$work/clean" ref > "$work/ref.txt"
expected=$(wc -l < "$work/ref.txt")

# 1. Kills during import.
survived=0
for i in $(seq "$kills"); do
  $m --library "$lib" import "$photos" --title "kill-$i" --jobs 2 >/dev/null 2>&1 &
  pid=$!
  sleep "$(python3 -c "import random; print(round(random.uniform(0.05, 2.5), 2))")"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  healthy "kill $i during import"
  $m --library "$lib" import "$photos" --title "kill-$i" --jobs 2 >/dev/null 2>&1 || [ $? -eq 2 ] || fail "re-run $i failed"
  shas "$lib" "kill-$i" > "$work/got.txt"
  cmp -s "$work/got.txt" "$work/ref.txt" || fail "memory kill-$i differs from a clean import"
  survived=$((survived + 1))
done
$m --library "$lib" gc >/dev/null
healthy "gc"
orphans=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["orphans"])' "$work/verify.json")
[ "$orphans" = 0 ] || fail "$orphans orphans after gc"
echo "import: $survived kills survived, each re-run completed with the $expected photos of a clean import; 0 orphans after gc"

# 2. Kills during delete and gc.
deletes=0
for i in $(seq 1 10); do
  $m --library "$lib" delete "kill-$i" --yes >/dev/null 2>&1 &
  pid=$!
  sleep "$(python3 -c "import random; print(round(random.uniform(0.0, 0.3), 3))")"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  healthy "kill $i during delete"
  $m --library "$lib" delete "kill-$i" --yes >/dev/null 2>&1 || true   # completes it, or it is gone already
  $m --library "$lib" gc >/dev/null 2>&1 &
  pid=$!
  sleep "$(python3 -c "import random; print(round(random.uniform(0.0, 0.2), 3))")"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  healthy "kill $i during gc"
  deletes=$((deletes + 1))
done
for i in $(seq 11 "$kills"); do
  shas "$lib" "kill-$i" > "$work/got.txt"
  cmp -s "$work/got.txt" "$work/ref.txt" || fail "memory kill-$i lost photos after the delete/gc kills"
done
echo "delete/gc: $deletes kills of each survived; the other memories intact"

# 3. gc looping in a second process while imports and deletes run.
( while [ ! -f "$work/stop" ]; do $m --library "$lib" gc >/dev/null 2>>"$work/gc-errors" || echo "gc failed" >> "$work/gc-errors"; done ) &
gcloop=$!
for i in 1 2 3; do
  $m --library "$lib" import "$photos" --title "concurrent-$i" --jobs 2 >/dev/null 2>&1 || [ $? -eq 2 ] || fail "import concurrent-$i failed"
  $m --library "$lib" delete "kill-$((10 + i))" --yes >/dev/null || fail "delete during gc loop failed"
done
touch "$work/stop"
wait "$gcloop"
[ ! -s "$work/gc-errors" ] || fail "gc errors: $(cat "$work/gc-errors")"
healthy "the concurrent run"
for i in 1 2 3; do
  shas "$lib" "concurrent-$i" > "$work/got.txt"
  cmp -s "$work/got.txt" "$work/ref.txt" || fail "concurrent-$i lost photos"
done
echo "concurrent: 3 imports and 3 deletes with gc looping alongside; no error, nothing lost"
echo "files tried per import: $(find "$photos" -type f | wc -l); all healthy"
