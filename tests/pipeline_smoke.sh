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
# The gating match's 95 % interval (the first ci95 of its "gating" object): above 50 %. Not the
# SPRT's verdict: its H1 is +30 Elo, and one generation of the smoke run gains about half that
# (+13 Elo over 5,376 games on one machine, H0; the floating-point sums differ by CPU).
low=$(echo "$line" | grep -o '"gating":{[^}]*' | grep -o '"ci95":\[[0-9.eE+-]*' | head -n 1 | cut -d'[' -f2)
[ -n "$low" ] || { echo "FAIL: no gating interval in generations.jsonl"; exit 1; }
awk -v low="$low" 'BEGIN { exit !(low > 0.5) }' ||
  { echo "FAIL: generation 1 did not beat generation 0 (interval from $low)"; exit 1; }
echo "pipeline smoke: generation 1 beat generation 0 (interval from $low)"
