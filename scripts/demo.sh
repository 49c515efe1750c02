#!/usr/bin/env bash
# The main job on the bundled default: imports Fixtures/photos into a demo library, lists it,
# and exports it with an HTML gallery (open demo-export/index.html).
set -euo pipefail
cd "$(dirname "$0")/.."
export OPENSWIFTDATA_SWIFT_SYNTAX=${OPENSWIFTDATA_SWIFT_SYNTAX:-toolchain}  # the toolchain's SwiftSyntax (Package.swift)
scripts/setup.sh
swift build --product memories
memories=.build/debug/memories
rm -rf demo-library demo-export
$memories --library demo-library import Fixtures/photos --title "Rome and Paris 2024" --notes "Demo photos bundled with the project."
$memories --library demo-library list
$memories --library demo-library export "Rome and Paris 2024" demo-export --html
$memories --library demo-library verify
echo "gallery: $(pwd)/demo-export/index.html"
