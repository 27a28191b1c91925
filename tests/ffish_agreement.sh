#!/usr/bin/env bash
# Runs tests/ffish_agreement.js after installing the npm package ffish (pinned) into a folder of
# the build. Skipped (exit 77) when Node.js or npm is missing or the npm registry is unreachable.
set -euo pipefail
bin="$1"
folder="$2"
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null && command -v npm >/dev/null || { echo "SKIP: no Node.js/npm"; exit 77; }
if [ ! -f "$folder/node_modules/ffish/ffish.wasm" ]; then
  mkdir -p "$folder"
  npm install --prefix "$folder" --no-audit --no-fund --loglevel=error ffish@0.7.10 >"$folder/npm.log" 2>&1 ||
    { echo "SKIP: npm install ffish failed: $(tail -3 "$folder/npm.log")"; exit 77; }
fi
exec node "$here/ffish_agreement.js" "$bin" "$folder" 300 2026
