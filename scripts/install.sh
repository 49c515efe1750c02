#!/usr/bin/env bash
# Builds memories in release mode and installs it with its man page and shell completions.
#   scripts/install.sh [PREFIX=/usr/local]
# MEMORIES_BIN=path installs that binary instead of building one (the tests use the debug build).
# Puts: PREFIX/bin/memories, PREFIX/share/man/man1/memories.1,
#       PREFIX/share/bash-completion/completions/memories, PREFIX/share/zsh/site-functions/_memories,
#       PREFIX/share/fish/vendor_completions.d/memories.fish
set -euo pipefail
cd "$(dirname "$0")/.."
export OPENSWIFTDATA_SWIFT_SYNTAX=${OPENSWIFTDATA_SWIFT_SYNTAX:-toolchain}  # the toolchain's SwiftSyntax (Package.swift)
prefix=${1:-/usr/local}
if [ -n "${MEMORIES_BIN:-}" ]; then
  binary=$MEMORIES_BIN
else
  scripts/setup.sh
  swift build -c release --product memories >/dev/null
  binary=.build/release/memories
fi
install -d "$prefix/bin" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
  "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
install -m 755 "$binary" "$prefix/bin/memories"
"$binary" help --man > "$prefix/share/man/man1/memories.1"
"$binary" completion bash > "$prefix/share/bash-completion/completions/memories"
"$binary" completion zsh > "$prefix/share/zsh/site-functions/_memories"
"$binary" completion fish > "$prefix/share/fish/vendor_completions.d/memories.fish"
echo "installed memories $("$binary" --version | cut -d' ' -f2) under $prefix (man memories; completions for bash, zsh, fish)"
