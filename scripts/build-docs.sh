#!/usr/bin/env bash
# DocC reference archives for OpenSwiftData, BlobStore, Imaging and MemoriesKit, from the catalogs in
# Sources/<Module>/<Module>.docc and the compiler's symbol graphs, with warnings treated as errors.
#   scripts/build-docs.sh [OUT=.build/docs]     → OUT/<Module>.doccarchive
# Uses the toolchain's `docc` and `swift package dump-symbol-graph` (which builds the package first).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/docs}
docc=$(dirname "$(command -v swift)")/docc
[ -x "$docc" ] || { echo "build-docs: no docc beside swift ($docc)" >&2; exit 1; }
log=$(mktemp)
swift package dump-symbol-graph --minimum-access-level public >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
rm -f "$log"
graphs=$(find .build -type d -name symbolgraph -print -quit)
[ -n "$graphs" ] || { echo "build-docs: no symbol graphs under .build" >&2; exit 1; }
mkdir -p "$out"
for module in OpenSwiftData BlobStore BlobStoreS3 Imaging MemoriesKit; do
  dir=$(mktemp -d)
  cp "$graphs/$module".symbols.json "$graphs/$module"@*.symbols.json "$dir"/ 2>/dev/null || true
  [ -s "$dir/$module.symbols.json" ] || { echo "build-docs: no symbol graph for $module in $graphs" >&2; exit 1; }
  "$docc" convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$dir" \
    --fallback-display-name "$module" --fallback-bundle-identifier "memories.$module" \
    --output-path "$out/$module.doccarchive" --warnings-as-errors 2>&1 | sed "s/^/$module: /"
  rm -rf "$dir"
  echo "build-docs: $out/$module.doccarchive"
done
