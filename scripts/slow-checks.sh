#!/usr/bin/env bash
# Every slow reliability check, one after another (about 30 minutes on 2 cores):
#   scripts/slow-checks.sh [KILLS=30] [FUZZ_SECONDS=600]
# 1. scripts/reliability.sh: kills of import, delete and gc; gc alongside imports and deletes
# 2. scripts/fuzz-imaging.sh fuzz: libFuzzer + ASan + UBSan on the C image wrapper
# 3. scripts/fuzz-predicates.sh: random #Predicates, SQLite against Foundation
# Record what each prints in docs/reliability.md.
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${1:-30}
seconds=${2:-600}
echo "== reliability ($kills kills)"; scripts/reliability.sh "$kills"
echo "== image wrapper fuzzing (${seconds}s)"; scripts/fuzz-imaging.sh fuzz "$seconds" | grep -E "Done|stat::|crash|ERROR" || true
[ -z "$(ls -A .build/fuzz/crashes 2>/dev/null)" ] || { echo "fuzzing found crashes in .build/fuzz/crashes"; exit 1; }
echo "== predicate fuzzing (${seconds}s)"; scripts/fuzz-predicates.sh "$seconds"
