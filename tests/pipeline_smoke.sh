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

# A run started from another run's network (network.init_from) trains train.steps steps in its
# first generation, counted from the steps that network carries (gen-0001 here: 400).
"$bin" pipeline --config "$root/configs/smoke.toml" --dir "$dir/warm" --generations 1 \
  --network.init-from "$dir/run/models/gen-0001.ckpt" --selfplay.games 64 --selfplay.shard-games 64 \
  --train.steps 20 --gating.games 0 --strength.games 0 >/dev/null 2>"$dir/warm.err" ||
  { cat "$dir/warm.err"; echo "FAIL: the run from gen-0001"; exit 1; }
step=$(tail -n 1 "$dir/warm/train/metrics.jsonl" | grep -o '"step":[0-9]*' | cut -d: -f2)
[ "$step" = 420 ] ||
  { echo "FAIL: the run from gen-0001 (400 steps) ended its first training at step '$step', not 420"; exit 1; }
echo "pipeline smoke: a run from gen-0001 trained steps 401-420"
