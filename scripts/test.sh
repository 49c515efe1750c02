#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds everything (tests run the built
# executables), runs the C image wrapper over every fixture under ASan and UBSan, then every test.
set -euo pipefail
cd "$(dirname "$0")/.."
# The macros' SwiftSyntax: the toolchain's own, since there is no package registry here
# (Package.swift; OPENSWIFTDATA_SWIFT_SYNTAX=package builds with the swift-syntax package instead).
export OPENSWIFTDATA_SWIFT_SYNTAX=${OPENSWIFTDATA_SWIFT_SYNTAX:-toolchain}
scripts/setup.sh --tests
# Docs that stay true: every public declaration has a /// comment, no link goes to a missing file.
python3 scripts/check-docs.py
swift build --build-tests
# The DocC reference of each library, warnings as errors (.build/docs/<Module>.doccarchive).
scripts/build-docs.sh
scripts/fuzz-imaging.sh check
# The S3 tests run against a real one-node Ceph cluster (scripts/s3-test-cluster.sh), started here
# and stopped after; where it cannot start, the rest still runs and this says so.
if [ -z "${S3_TEST_ENDPOINT:-}" ]; then
  if scripts/s3-test-cluster.sh start; then
    # The fault tests' own clusters go too, should a test process have died before its purge.
    trap 'scripts/s3-test-cluster.sh stop; for d in /tmp/memories-s3-faults-*/; do [ -d "$d" ] && S3_CLUSTER_DIR="$d/cluster" scripts/s3-test-cluster.sh purge; rm -rf "$d"; done' EXIT
    eval "export $(scripts/s3-test-cluster.sh env)"
    # The packages work: the fault tests bring up a cluster of their own and kill its daemons.
    export S3_FAULT_TESTS=1
  else
    echo "=================================================================" >&2
    echo "test: THE S3 TESTS ARE SKIPPED: the Ceph test cluster did not start" >&2
    echo "      (scripts/setup.sh --s3 installs its packages)" >&2
    echo "=================================================================" >&2
  fi
fi
swift test --skip-build
# A package that adds OpenSwiftData by version builds and runs (without libcurl's headers).
scripts/check-versioned-dependency.sh
