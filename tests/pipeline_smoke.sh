#!/usr/bin/env bash
# The pipeline smoke config end to end: one generation of self-play and training, then the gating
# match; the new network must beat the first one (95 % Wilson interval above 50 %).
set -euo pipefail
bin="$1"
root="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bin" pipeline --config "$root/configs/smoke.toml" --dir "$dir/run" --generations 1
line=$(head -n 1 "$dir/run/generations.jsonl")
echo "generation 0: $line"
for f in config.toml models/gen-0000.ckpt models/gen-0001.ckpt report.html train/curves.svg train/metrics.jsonl; do
  [ -s "$dir/run/$f" ] || { echo "missing $f"; exit 1; }
done
echo "$line" | grep -q '"verdict":"better"' || { echo "FAIL: generation 1 did not beat generation 0"; exit 1; }
echo "pipeline smoke: generation 1 beat generation 0"
