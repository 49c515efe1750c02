#!/usr/bin/env bash
# Exports the bundled photos with --html and opens the gallery in headless Chromium (Debian's
# `chromium`): screenshots at 1280 and 390 px wide (docs/gallery.png, docs/gallery-phone.png), and
# a check, from Chromium's own network log, that opening it requests nothing beyond the folder.
#   scripts/gallery-screenshot.sh [OUTPUT_DIR=docs]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs}
mkdir -p "$out"
out=$(cd "$out" && pwd)
command -v chromium >/dev/null || { [ "$(id -u)" -eq 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
swift build --product memories >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
.build/debug/memories --library "$work/lib" import Fixtures/photos --title "Rome and Paris 2024" --notes "Demo photos bundled with the project." >/dev/null 2>&1
.build/debug/memories --library "$work/lib" export "Rome and Paris 2024" "$work/export" --html >/dev/null
shot() {
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="$1" \
    --log-net-log="$work/net-$2.json" --screenshot="$out/$2" "file://$work/export/index.html" 2>/dev/null
  [ -s "$out/$2" ] || { echo "chromium made no screenshot $out/$2" >&2; exit 1; }
  # The page's own requests (Chromium's updates and the like are not the page's): there must be none.
  if ! scripts/netlog-page-requests.py "$work/net-$2.json" > "$work/requests"; then
    echo "the gallery requested something outside its folder:" >&2
    cat "$work/requests" >&2
    exit 1
  fi
}
shot 1280,900 gallery.png
shot 390,844 gallery-phone.png
echo "screenshots: $out/gallery.png, $out/gallery-phone.png; no request outside the folder"
