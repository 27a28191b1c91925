#!/usr/bin/env bash
# Set up, build, then run the main job on its small built-in default.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
./build/cli/fusekilab demo "$@"
