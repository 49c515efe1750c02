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
#  4. gc after damaging one page of each index of the store: nothing removed, a clear refusal.
#  5. gc after emptying, deleting and replacing the store file: nothing removed, a clear error.
#  6. 4 processes importing the same folder into the same title at once, 20 rounds: one memory,
#     exactly the folder's photos, one row each.
#  7. import, delete, gc, edit and verify running together: verify never reports a false alarm,
#     no command prints a raw SQLite error.
#  8. this build opening a store a newer version wrote (an extra column and an extra table, both
#     referencing blobs): reads work, writes and gc refuse, nothing is dropped or removed.
# Prints a summary line per part and exits non-zero on the first violation. MEMORIES_BIN runs
# another binary (the debug build, say) instead of building the release one; PARTS="4 5" runs
# only those parts (1-3 need each other).
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${1:-30}
# Part 3 deletes kill-11..13 while gc loops, so there must be at least 13 of them.
[ "$kills" -ge 13 ] || { echo "reliability.sh: KILLS must be at least 13" >&2; exit 64; }
photos=${2:-/tmp/devbench-photos/photos}
[ -d "$photos" ] || ../shared/bench/make_photos.sh "$(dirname "$photos")"
if [ -n "${MEMORIES_BIN:-}" ]; then m=$MEMORIES_BIN; else
  swift build -c release --product memories >/dev/null
  m=$(pwd)/.build/release/memories
fi
parts=${PARTS:-1 2 3 4 5 6 7 8}
want() { [[ " $parts " == *" $1 "* ]]; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lib="$work/lib"
fail() { echo "VIOLATION: $*" >&2; exit 1; }
shas() { $m --library "$1" show "$2" --json | python3 -c 'import json,sys; print("\n".join(sorted(i["sha256"] for i in json.load(sys.stdin)["images"])))'; }
healthy() { $m --library "$lib" verify --json > "$work/verify.json" || fail "verify after $1: $(cat "$work/verify.json")"; }

blobs() { find "$1/.library_SUPPORT/sha256" -type f | sort; }
if want 1; then
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
fi


# A small library of its own for parts 4, 5 and 8: 40 photos in two memories.
small="$work/small-photos"
mkdir -p "$small"
find "$photos" -type f \( -iname '*.jpg' -o -iname '*.png' \) | sort | sed -n '1,40p' | while read -r f; do cp "$f" "$small/$(echo "$f" | sha256sum | cut -c1-12)-$(basename "$f")"; done
fresh() {  # a new library at $1 with the 40 photos
  rm -rf "$1"
  $m --library "$1" import "$small" --title first --jobs 2 >/dev/null 2>&1 || [ $? -eq 2 ] || fail "import into $1"
  $m --library "$1" import "$photos/2024" --title second --jobs 2 >/dev/null 2>&1 || [ $? -eq 2 ] || fail "import into $1"
}
raw() { grep -l "SQLite error" "$@" 2>/dev/null && fail "a raw SQLite error in $(grep -h "SQLite error" "$@" | head -1)" || true; }

if want 4; then
# 4. A damaged page of each index.
fresh "$work/idx-base"
indexes=$(python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(" ".join(n for (n,) in c.execute("SELECT name FROM sqlite_master WHERE type = \"index\"")))' "$work/idx-base/library.store")
tried=0
for index in $indexes; do
  copy="$work/idx-$tried"; rm -rf "$copy"; cp -a "$work/idx-base" "$copy"
  python3 - "$copy/library.store" "$index" <<'PY'
import sqlite3, sys
path, index = sys.argv[1], sys.argv[2]
c = sqlite3.connect(path); c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
size = c.execute("PRAGMA page_size").fetchone()[0]
try:  # a leaf page of the index and its neighbour, as a misdirected write would leave them
    pages = [p for (p,) in c.execute("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno", (index,))]
except sqlite3.OperationalError:
    pages = []
if not pages: pages = [c.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (index,)).fetchone()[0]]
c.close()
victim = pages[0]; neighbour = pages[1] if len(pages) > 1 else victim + 1
with open(path, "r+b") as f:
    f.seek((neighbour - 1) * size); data = f.read(size)
    if len(data) < size: data = bytes(size)
    f.seek((victim - 1) * size); f.write(data)
PY
  before=$(blobs "$copy" | wc -l)
  $m --library "$copy" gc --prune-now >"$work/out" 2>"$work/err" && status=0 || status=$?
  after=$(blobs "$copy" | wc -l)
  [ "$after" = "$before" ] || fail "gc removed $((before - after)) blobs after index $index was damaged"
  [ "$status" != 0 ] || python3 -c 'import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute("PRAGMA integrity_check").fetchall(); sys.exit(0 if r==[("ok",)] else 1)' "$copy/library.store" \
    || fail "gc succeeded on a store whose index $index is damaged"
  raw "$work/err"
  tried=$((tried + 1))
done
echo "damaged index: $tried indexes damaged one at a time; gc refused each time, nothing removed"
fi

if want 5; then
# 5. An emptied, deleted and replaced store.
fresh "$work/gone-base"
fresh "$work/other"
for damage in empty delete replace; do
  copy="$work/gone-$damage"; rm -rf "$copy"; cp -a "$work/gone-base" "$copy"
  rm -f "$copy"/library.store-wal "$copy"/library.store-shm
  case $damage in
    empty) : > "$copy/library.store" ;;
    delete) rm "$copy/library.store" ;;
    replace) cp "$work/other/library.store" "$copy/library.store" ;;
  esac
  before=$(blobs "$copy" | wc -l)
  for command in "gc --prune-now" verify "import $small --title again"; do
    $m --library "$copy" $command >/dev/null 2>"$work/err" && fail "$command succeeded on a $damage store" || true
    grep -q "restore\|does not belong" "$work/err" || fail "$command on a $damage store said: $(cat "$work/err")"
    raw "$work/err"
  done
  [ "$(blobs "$copy" | wc -l)" = "$before" ] || fail "blobs removed after the store was ${damage}d"
done
echo "store emptied, deleted, replaced: gc, verify and import refused each time with what to do; nothing removed"
fi

if want 6; then
# 6. Four imports of one folder into one title at once.
folder="$work/four"; mkdir -p "$folder"; find "$small" -type f | sed -n '1,24p' | xargs -I{} cp {} "$folder/"
expect=$(find "$folder" -type f -exec sha256sum {} + | cut -c1-64 | sort -u | wc -l)
for round in $(seq 20); do
  lib6="$work/four-lib"; rm -rf "$lib6"
  for p in 1 2 3 4; do $m --library "$lib6" import "$folder" --title same --jobs 1 >/dev/null 2>"$work/err-$p" & done
  wait || true
  raw "$work"/err-*
  count=$($m --library "$lib6" list --json | python3 -c 'import json,sys; l=json.load(sys.stdin); print(len(l), l[0]["imageCount"] if l else 0)')
  [ "$count" = "1 $expect" ] || fail "round $round: memories and photos $count, expected 1 $expect ($(cat "$work"/err-*))"
  rows=$($m --library "$lib6" show same --json | python3 -c 'import json,sys; i=json.load(sys.stdin)["images"]; print(len(i), len({x["sha256"] for x in i}))')
  [ "$rows" = "$expect $expect" ] || fail "round $round: rows and distinct photos $rows"
done
echo "concurrent imports: 20 rounds of 4 processes into one title; 1 memory with exactly the $expect photos each time"
fi

if want 7; then
# 7. Everything at once.
lib7="$work/mixed"; fresh "$lib7"
stop="$work/stop7"; rm -f "$stop" "$work"/mixed-*.err
loop() { local name=$1; shift; local n=0; while [ ! -f "$stop" ]; do "$@" >/dev/null 2>>"$work/mixed-$name.err" || echo "exit $? from $*" >>"$work/mixed-$name.status"; n=$((n + 1)); done; }
loop gc $m --library "$lib7" gc &
loop verify $m --library "$lib7" verify &
loop edit $m --library "$lib7" edit first --notes "edited" &
for i in 1 2 3 4 5 6; do
  $m --library "$lib7" import "$small" --title "round-$i" --jobs 1 >/dev/null 2>>"$work/mixed-import.err" || [ $? -eq 2 ] || fail "import round-$i"
  $m --library "$lib7" delete "round-$i" --yes >/dev/null 2>>"$work/mixed-delete.err" || fail "delete round-$i"
done
touch "$stop"; wait
raw "$work"/mixed-*.err
if [ -s "$work/mixed-verify.status" ]; then fail "verify reported damage while others ran: $(cat "$work/mixed-verify.err" | head -5)"; fi
grep -v "no memory matches" "$work/mixed-edit.err" | grep -q . && fail "edit failed: $(head -3 "$work/mixed-edit.err")" || true
[ ! -s "$work/mixed-gc.status" ] || fail "gc failed: $(head -3 "$work/mixed-gc.err")"
healthy_at() { $m --library "$1" verify --json >"$work/v.json" || fail "verify: $(cat "$work/v.json")"; }
healthy_at "$lib7"
echo "mixed: 6 imports and 6 deletes with gc, verify and edit looping alongside; verify never alarmed, no raw SQLite error"
fi

if want 8; then
# 8. A store written by a newer version.
lib8="$work/newer"; fresh "$lib8"
python3 - "$lib8" <<'PY'
import hashlib, json, os, sqlite3, sys
lib = sys.argv[1]
def blob(text):
    data = text.encode(); h = hashlib.sha256(data).hexdigest()
    d = os.path.join(lib, ".library_SUPPORT", "sha256", h[:2]); os.makedirs(d, exist_ok=True)
    open(os.path.join(d, h), "wb").write(data); return h
c = sqlite3.connect(os.path.join(lib, "library.store"))
edited, cover = blob("an edited photo"), blob("an album cover")
c.execute('ALTER TABLE "MemoryImage" ADD COLUMN "editedData" TEXT')
c.execute('UPDATE "MemoryImage" SET "editedData" = ? WHERE "_pk" = (SELECT min("_pk") FROM "MemoryImage")', (edited,))
c.execute('CREATE TABLE "Album" ("_pk" INTEGER PRIMARY KEY, "name" TEXT, "cover" TEXT)')
c.execute('INSERT INTO "Album" ("name", "cover") VALUES (?, ?)', ("Holidays", cover))
latest = json.loads(c.execute("SELECT description FROM _osd_schemas ORDER BY seq DESC LIMIT 1").fetchone()[0])
latest["entities"]["MemoryImage"]["editedData"] = "external"
latest["entities"]["Album"] = {"name": "attribute TEXT", "cover": "external"}
latest["version"] = "3.0.0"
text = json.dumps(latest, sort_keys=True, separators=(",", ":"))
c.execute("INSERT INTO _osd_schemas (fingerprint, description, recordedAt) VALUES (?, ?, 0)", (text, text))
c.execute("UPDATE _osd_metadata SET value = '3.0.0' WHERE key = 'schemaVersion'")
c.commit()
open(os.path.join(lib, "newer-blobs"), "w").write(edited + "\n" + cover + "\n")
PY
for command in list "show first" verify; do $m --library "$lib8" $command >/dev/null 2>"$work/err" || fail "$command on a newer store: $(cat "$work/err")"; done
for command in gc "edit first --notes x" "import $small --title more" "delete first --yes"; do
  $m --library "$lib8" $command >/dev/null 2>"$work/err" && fail "$command wrote to a newer store" || true
  grep -q "newer version" "$work/err" || fail "$command on a newer store said: $(cat "$work/err")"
done
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); assert c.execute("SELECT count(editedData) FROM MemoryImage").fetchone()[0]==1; assert c.execute("SELECT count(*) FROM Album").fetchone()[0]==1' "$lib8/library.store" || fail "the newer column or table was dropped"
while read -r h; do [ -f "$lib8/.library_SUPPORT/sha256/${h:0:2}/$h" ] || fail "blob $h of the newer version removed"; done < "$lib8/newer-blobs"
echo "newer store: list, show and verify work; gc, edit, import and delete refuse naming the newer version; column, table and blobs kept"
fi
