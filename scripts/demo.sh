#!/usr/bin/env bash
# The main job on a bundled default: builds and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --product osd-demo
rm -rf demo-library
.build/debug/osd-demo demo-library/budget.store
