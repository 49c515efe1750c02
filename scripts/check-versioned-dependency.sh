#!/usr/bin/env bash
# OpenSwiftData as a dependency by version (issue 35): Examples/swiftdata-consumer, a package that
# writes `.package(url: …, from: VERSION)` and uses the SwiftData product, is built and run against
# a clone of this repository's HEAD tagged with the package's version.
#
#   scripts/check-versioned-dependency.sh                  offline: the toolchain's SwiftSyntax
#                                                          (OPENSWIFTDATA_SWIFT_SYNTAX=toolchain)
#   SWIFT_SYNTAX_MIRROR=/path/to/swift-syntax.git scripts/check-versioned-dependency.sh
#                                                          the swift-syntax package by version, as a
#                                                          user with network gets it, from a local
#                                                          copy (`swift package config set-mirror`)
#
# The SwiftData product needs SQLite and libcrypto only: where this can make a private mount
# namespace (root), libcurl's and libxml2's headers are hidden while it builds; in any case the
# program must not link libcurl or libxml2.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d /tmp/versioned-dependency.XXXXXX)
trap 'rm -rf "$work"' EXIT
version=$(sed -n 's/.*static let string = "\(.*\)"/\1/p' Sources/MemoriesKit/Version.swift)
git clone -q "$root" "$work/memories"
git -C "$work/memories" tag "$version"
cp -r Examples/swiftdata-consumer "$work/consumer"
cd "$work/consumer"
export OPENSWIFTDATA_URL="$work/memories" OPENSWIFTDATA_VERSION="$version"
if [ -n "${SWIFT_SYNTAX_MIRROR:-}" ]; then
  swift package config set-mirror --original https://github.com/swiftlang/swift-syntax.git --mirror "$SWIFT_SYNTAX_MIRROR"
  export OPENSWIFTDATA_SWIFT_SYNTAX=package
else
  export OPENSWIFTDATA_SWIFT_SYNTAX=toolchain
fi
build() { swift build 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\] (Compiling|Emitting|Write|Linking|Applying|Planning)' || true; }
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
  empty=$(mktemp -d "$work/empty.XXXXXX")
  export -f build
  unshare -m --propagation private bash -c "
    for d in /usr/include/curl /usr/include/x86_64-linux-gnu/curl /usr/include/libxml2; do
      [ -d \"\$d\" ] && mount --bind '$empty' \"\$d\"
    done
    [ ! -e /usr/include/curl/curl.h ] || { echo 'versioned-dependency: could not hide libcurl headers' >&2; exit 1; }
    build"
  echo "versioned-dependency: built with libcurl's and libxml2's headers hidden"
else
  build
fi
[ -x .build/debug/consumer ] || { echo "versioned-dependency: the consumer did not build" >&2; exit 1; }
if ldd .build/debug/consumer | grep -E 'libcurl|libxml2'; then
  echo "versioned-dependency: the SwiftData product links libcurl or libxml2" >&2
  exit 1
fi
.build/debug/consumer
[ -x .build/debug/consumer-main-actor ] || { echo "versioned-dependency: the main-actor consumer did not build" >&2; exit 1; }
.build/debug/consumer-main-actor
echo "versioned-dependency: ok (memories $version by version, SwiftSyntax from the $OPENSWIFTDATA_SWIFT_SYNTAX)"
