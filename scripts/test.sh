#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds everything (tests run the built
# executables), runs the C image wrapper over every fixture under ASan and UBSan, then every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --tests
swift build --build-tests
scripts/fuzz-imaging.sh check
swift test --skip-build
