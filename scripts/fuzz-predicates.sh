#!/usr/bin/env bash
# Differential fuzzing of the #Predicate → SQL translator for SECONDS (default 600): random
# predicate trees, SQLite's rows compared with Foundation's own evaluation of the same Predicate.
#   scripts/fuzz-predicates.sh [SECONDS] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests >/dev/null
OSD_PREDICATE_FUZZ_SECONDS=${1:-600} OSD_PREDICATE_FUZZ_SEED=${2:-$RANDOM} \
  swift test --skip-build --filter PredicateFuzzTests 2>&1 | grep -E "predicate fuzz|seed|✘|✔ Test run"
