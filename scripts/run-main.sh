#!/usr/bin/env bash
# Set up, build, then run the main job on its small built-in default:
#   1. a perft and one random placement played out (fusekilab demo);
#   2. the smoke training pipeline (configs/smoke.toml: two generations of self-play and training
#      with gating matches) into runs/smoke;
#   3. a small king-pair table rebuild with the newest network into runs/table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
bin=./build/cli/fusekilab
$bin demo "$@"
# A runs/smoke left by an older fusekilab (no published networks, checkpoint format 1) cannot be
# resumed: keep it aside and start afresh.
if [ -d runs/smoke ] && [ ! -f runs/smoke/models/gen-0000.json ]; then
  old="runs/smoke.old-$(date +%Y%m%d-%H%M%S)"
  mv runs/smoke "$old"
  echo "run-main: runs/smoke was made by an older fusekilab; moved to $old"
fi
$bin pipeline --config configs/smoke.toml
net=$(ls runs/smoke/models/gen-*.ckpt | grep -v partial | sort | tail -n 1)
compare=()
[ -f ../shared/data/king_pairs_iter2455_games.json ] && compare=(--compare ../shared/data/king_pairs_iter2455_games.json)
$bin eval table --config configs/smoke.toml --network "$net" "${compare[@]}"   # its [eval] section
echo
echo "pipeline run:    runs/smoke (report: runs/smoke/report.html)"
echo "king-pair table: runs/table/table.json (report: runs/table/report.html)"
