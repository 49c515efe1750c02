#!/usr/bin/env bash
# Builds the C image wrapper with AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer
# (the Swift toolchain's clang), then either
#   scripts/fuzz-imaging.sh check          runs every fixture through it once (fails on any report)
#   scripts/fuzz-imaging.sh fuzz [SECONDS] fuzzes from the fixtures for SECONDS (default 600)
# Crashes land in .build/fuzz/crashes/; turn each into a fixture under Fixtures/images/bad/ and a test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
mode=${1:-check}
out=.build/fuzz
mkdir -p "$out/corpus" "$out/crashes"
clang=$(command -v clang || echo /opt/swift/usr/bin/clang)
"$clang" -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I Sources/CImaging/include -I /usr/include/libpng16 -I /usr/include/x86_64-linux-gnu \
  Fuzz/imaging_fuzzer.c Sources/CImaging/animation.c Sources/CImaging/jpeg.c Sources/CImaging/png.c Sources/CImaging/pixels.c Sources/CImaging/exif.c \
  Sources/CImaging/heif.c Sources/CImaging/webp.c Sources/CImaging/xmp.c Sources/CImaging/lcms.c \
  -ljpeg -lpng16 -lexif -lheif -lwebp -lwebpdemux -lexpat -llcms2 -o "$out/imaging_fuzzer" 2> "$out/build.log" || { cat "$out/build.log"; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS=suppressions=$(pwd)/Fuzz/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
case "$mode" in
  check)
    # The fixtures, the bombs (Fixtures/make-bombs.sh) and the strip edge cases.
    files=$(find Fixtures/images Fixtures/bombs Fixtures/strip -type f ! -name '*.tsv' ! -name '*.md' | sort)
    "$out/imaging_fuzzer" -runs=0 $files 2>&1 | tail -3
    for f in $files; do "$out/imaging_fuzzer" "$f" >/dev/null 2>&1 || { echo "sanitizer report on $f"; "$out/imaging_fuzzer" "$f"; exit 1; }; done
    echo "sanitizers: $(echo "$files" | wc -l) fixtures, no report"
    ;;
  fuzz)
    seconds=${2:-600}
    cp Fixtures/images/good/* Fixtures/images/bad/* Fixtures/bombs/* Fixtures/strip/*.jpg "$out/corpus/" 2>/dev/null || true
    "$out/imaging_fuzzer" "$out/corpus" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix="$out/crashes/" -print_final_stats=1 2>&1 | tail -25
    ;;
  *) echo "usage: $0 check | fuzz [SECONDS]" >&2; exit 64 ;;
esac
