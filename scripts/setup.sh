#!/usr/bin/env bash
# Installs the Debian packages the build needs, if any are missing. Safe to run again.
set -euo pipefail
packages=(pkg-config libsqlite3-dev libssl-dev libjpeg62-turbo-dev libpng-dev libexif-dev libheif-dev libde265-0 libwebp-dev libexpat1-dev liblcms2-dev)
# --tests: also what the test suite runs beside the build (a real browser for the gallery, groff for the
# man page, zsh and fish for their completions).
if [ "${1:-}" = "--tests" ]; then packages+=(chromium fonts-dejavu-core groff zsh fish); fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: run as root, or install them yourself: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "setup: the Swift 6.3 toolchain is not on PATH" >&2; exit 1; }
