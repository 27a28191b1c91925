#!/usr/bin/env bash
# The pipeline smoke config end to end: one generation of self-play and training, then the gating
# match; training must have learnt (the value head predicts the reward).
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
# The gating match played to a verdict with its interval, and training learnt: the value head's
# prediction of the reward correlates with it (an untrained head: about 0). Not "generation 1
# beats generation 0": one smoke generation gains about +13 Elo, and whether a 95 % interval
# shows it depends on the CPU's floating-point sums (above 0.5 on earlier machines, 0.494
# [0.455, 0.532] on a 2026-12-05 one, the same code).
echo "$line" | grep -q '"gating":{[^}]*"ci95":\[[0-9.eE+-]*,' ||
  { echo "FAIL: no gating interval in generations.jsonl"; exit 1; }
echo "$line" | grep -q '"verdict":"' || { echo "FAIL: no gating verdict in generations.jsonl"; exit 1; }
corr=$(echo "$line" | grep -o '"value_reward_corr":[0-9.eE+-]*' | cut -d: -f2)
[ -n "$corr" ] || { echo "FAIL: no value_reward_corr in generations.jsonl"; exit 1; }
awk -v c="$corr" 'BEGIN { exit !(c > 0.3) }' ||
  { echo "FAIL: the value head did not learn the reward (correlation $corr)"; exit 1; }
echo "pipeline smoke: the value head learnt the reward (correlation $corr)"

# A run started from another run's network (network.init_from) trains train.steps steps in its
# first generation, counted from the steps that network carries (gen-0001 here: 400).
"$bin" pipeline --config "$root/configs/smoke.toml" --dir "$dir/warm" --generations 1 \
  --network.init-from "$dir/run/models/gen-0001.ckpt" --selfplay.games 64 --selfplay.shard-games 64 \
  --train.steps 20 --gating.games 0 --strength.games 0 >/dev/null 2>"$dir/warm.err" ||
  { cat "$dir/warm.err"; echo "FAIL: the run from gen-0001"; exit 1; }
grep -qE '^pipeline: gen-0001 of 1 published, [0-9.]+ minutes, [0-9.]+ minutes a generation, ETA 0.0 minutes$' \
  "$dir/warm.err" || { cat "$dir/warm.err"; echo "FAIL: no progress line of the run"; exit 1; }
step=$(tail -n 1 "$dir/warm/train/metrics.jsonl" | grep -o '"step":[0-9]*' | cut -d: -f2)
[ "$step" = 420 ] ||
  { echo "FAIL: the run from gen-0001 (400 steps) ended its first training at step '$step', not 420"; exit 1; }
echo "pipeline smoke: a run from gen-0001 trained steps 401-420"
