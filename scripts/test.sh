#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds everything (tests use the built
# executables), then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests
swift test --skip-build
