#!/usr/bin/env bash
# Installs the Debian packages the build needs, if any are missing. Safe to run again.
#   scripts/setup.sh            what building needs
#   scripts/setup.sh --tests    also what the test suite runs beside the build: a real browser for the
#                               gallery (chromium, fonts, python3 to read its network log), groff for
#                               the man page, zsh and fish for their completions. The tests that need
#                               one of these are skipped, and say so, where it is missing.
set -euo pipefail
#   scripts/setup.sh --s3       (also implied by --tests) a one-node Ceph cluster's packages, for
#                               scripts/s3-test-cluster.sh and the S3 tests.
packages=(pkg-config libsqlite3-dev libssl-dev libcurl4-openssl-dev libjpeg62-turbo-dev libpng-dev libexif-dev libheif-dev libde265-0 libwebp-dev libexpat1-dev liblcms2-dev)
optional=()
ceph=(ceph-mon ceph-osd radosgw ceph-common curl)
case "${1:-}" in
  --tests) optional=(chromium fonts-dejavu-core python3 groff zsh fish libimage-exiftool-perl faketime strace exfat-fuse exfatprogs fusefat dosfstools "${ceph[@]}") ;;
  --s3) optional=("${ceph[@]}") ;;
esac
missing() { for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done; }
mapfile -t needed < <(missing "${packages[@]}")
mapfile -t wanted < <(missing "${optional[@]}")
if [ ${#needed[@]} -gt 0 ] || [ ${#wanted[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    if [ ${#needed[@]} -gt 0 ]; then
      echo "setup: run as root, or install them yourself: apt-get install ${needed[*]} ${wanted[*]}" >&2
      exit 1
    fi
    echo "setup: not root, so the tests that need ${wanted[*]} will be skipped (apt-get install ${wanted[*]})" >&2
  else
    echo "setup: installing ${needed[*]} ${wanted[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || true
    if [ ${#needed[@]} -gt 0 ]; then apt-get install -y -qq --no-install-recommends "${needed[@]}" >/dev/null; fi
    if [ ${#wanted[@]} -gt 0 ] && ! apt-get install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null; then
      echo "setup: could not install ${wanted[*]}; the tests that need them will be skipped" >&2
    fi
  fi
fi
command -v swift >/dev/null || { echo "setup: the Swift 6.3 toolchain is not on PATH" >&2; exit 1; }
