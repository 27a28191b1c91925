#!/usr/bin/env bash
# Kill the pipeline at random moments and restart it: it continues, every shard reads, no game
# that finished before a kill is lost, and the run ends with every game played exactly once.
set -euo pipefail
bin="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args=(pipeline --dir "$dir/run" --generations 2 --set selfplay.games=600 --set selfplay.shard_games=100
      --set selfplay.batch=32 --set train.steps=60 --set selfplay.playout=builtin:nodes=300:noise=20)
count_games() {  # games in shards plus journal lines of generation $1
  local d="$dir/run/selfplay/gen-000$1" n=0
  [ -d "$d" ] || { echo 0; return; }
  for f in "$d"/*.h5; do [ -e "$f" ] && n=$((n + $(echo "$f" | sed -E 's/.*-n([0-9]+)\.h5/\1/'))); done
  for j in "$d"/*.journal; do [ -e "$j" ] && n=$((n + $(grep -c '^{.*}$' "$j" || true))); done
  echo $n
}
seed=${FUSEKILAB_KILL_SEED:-12345}
RANDOM=$seed
for round in 1 2 3 4; do
  before=$(( $(count_games 0) + $(count_games 1) ))
  "$bin" "${args[@]}" >/dev/null 2>&1 &
  pid=$!
  sleep "$((RANDOM % 4 + 1)).$((RANDOM % 10))"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  after=$(( $(count_games 0) + $(count_games 1) ))
  echo "kill $round: games before $before, after $after"
  [ "$after" -ge "$before" ] || { echo "FAIL: finished games were lost"; exit 1; }
done
"$bin" "${args[@]}" >/dev/null 2>&1
for g in 0 1; do
  n=$(count_games $g)
  [ "$n" -eq 600 ] || { echo "FAIL: generation $g has $n games, expected 600"; exit 1; }
done
[ -s "$dir/run/models/gen-0002.ckpt" ] || { echo "FAIL: no final network"; exit 1; }
ls "$dir"/run/selfplay/gen-000*/*.tmp 2>/dev/null && { echo "FAIL: temporary files left"; exit 1; }
for f in "$dir"/run/selfplay/gen-000*/*.h5; do
  r="${f%.h5}.records"
  [ "$(wc -l < "$r")" -eq "$(echo "$f" | sed -E 's/.*-n([0-9]+)\.h5/\1/')" ] || { echo "FAIL: $r does not hold its shard's games"; exit 1; }
done
echo "pipeline kill/restart: 4 kills, 1200 games, every shard complete"
