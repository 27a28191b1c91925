#!/usr/bin/env bash
# Stopping cleanly and resuming, without Slurm: a self-play worker is stopped with SIGTERM at each
# fault point (before its first game, in the middle of a game, while a shard is committed, while
# its journal is rewritten), and killed with SIGKILL at the two that write files; the trainer is
# stopped mid-training. Each stop exits 143 (128 + SIGTERM) and leaves the worker's lock free; the
# same command resumes, and the games and the trained network are byte for byte those of an
# uninterrupted run.
set -euo pipefail
bin="$1"
source "$(dirname "$0")/cli_lib.sh"
sets=(--set run.seed=5 --set selfplay.games=40 --set selfplay.shard_games=12 --set selfplay.batch=6
      --set selfplay.playout=builtin:nodes=100:noise=20 --set train.steps=12 --set gating.games=0
      --set run.generations=1)

# The reference: no interruption.
"$bin" init --dir "$dir/ref" "${sets[@]}" >/dev/null
"$bin" selfplay --dir "$dir/ref" --worker 0/1 >/dev/null 2>&1
"$bin" train --dir "$dir/ref" --timeout 600 >/dev/null 2>&1

run="$dir/run"
"$bin" init --dir "$run" "${sets[@]}" >/dev/null

worker=("$bin" selfplay --dir "$run" --worker 0/1)
stop_at start "${worker[@]}"
stop_at game "${worker[@]}"
stop_at commit "${worker[@]}"
stop_at commit:hang "${worker[@]}"        # killed mid-commit: the records are there, the shard not
stop_at journal-rewrite "${worker[@]}"    # the restart rewrites the journal of the killed commit
stop_at game "${worker[@]}"
stop_at commit:hang "${worker[@]}"
stop_at journal-rewrite:hang "${worker[@]}"
"${worker[@]}" >"$dir/out" 2>&1 || fail "the worker did not finish: $(tail -3 "$dir/out")"
cmp <(cat "$dir"/ref/selfplay/gen-0000/*.records) <(cat "$run"/selfplay/gen-0000/*.records) ||
  fail "the games differ from an uninterrupted worker's"
cmp <(ls "$dir"/ref/selfplay/gen-0000/*.h5 | xargs -n1 basename) \
  <(ls "$run"/selfplay/gen-0000/*.h5 | xargs -n1 basename) || fail "other shards"
ls "$run"/selfplay/gen-0000/*.records | while read -r f; do
  [ -f "${f%.records}.h5" ] || fail "$f without its shard"
done
if ls "$run"/selfplay/gen-0000/ | grep -q '\.tmp'; then fail "temporary files left: $(ls "$run"/selfplay/gen-0000/)"; fi
echo "self-play: $(cat "$run"/selfplay/gen-0000/*.records | wc -l) games, the same as uninterrupted"

# The trainer, stopped mid-training, saves where it stopped and resumes to the same network.
stop_at train "$bin" train --dir "$run" --timeout 600
[ -f "$run/models/gen-0001.partial.ckpt" ] || fail "no partial checkpoint after the stop"
"$bin" train --dir "$run" --timeout 600 >"$dir/out" 2>&1 || fail "trainer: $(tail -3 "$dir/out")"
cmp "$dir/ref/models/gen-0001.ckpt" "$run/models/gen-0001.ckpt" ||
  fail "the network trained with a stop differs from the uninterrupted one"
echo "stop and resume: same games, same network"
