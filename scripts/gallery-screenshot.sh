#!/usr/bin/env bash
# Exports the bundled photos with --html and opens the gallery in headless Chromium (Debian's
# `chromium`), saving a screenshot: docs/gallery.png by default.
#   scripts/gallery-screenshot.sh [OUTPUT.png]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/gallery.png}
command -v chromium >/dev/null || { [ "$(id -u)" -eq 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
swift build --product memories >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
.build/debug/memories --library "$work/lib" import Fixtures/photos --title "Rome and Paris 2024" --notes "Demo photos bundled with the project." >/dev/null
.build/debug/memories --library "$work/lib" export "Rome and Paris 2024" "$work/export" --html >/dev/null
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,800 \
  --screenshot="$(pwd)/$out" "file://$work/export/index.html" 2>/dev/null
echo "screenshot: $out"
