#!/usr/bin/env bash
# The cluster commands' refusals and guarantees, without Slurm: init is idempotent and refuses
# another run's directory; a worker refuses a bad id, another worker count, a setting that would
# change the run, and an id another process holds; the trainer times out with exit 3 and then
# trains what two separate worker processes played. Timeouts count from the last sign of
# progress, so a loaded machine only makes the test slower.
set -euo pipefail
bin=$(readlink -f "$1")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run="$dir/run"
fail() { echo "FAIL: $*"; exit 1; }
expect_error() {  # expected-text command...
  local want="$1"
  shift
  if "$@" >"$dir/out" 2>"$dir/err"; then fail "accepted: $*"; fi
  grep -q "$want" "$dir/err" || fail "unclear error for '$*': $(cat "$dir/err")"
}
sets=(--set selfplay.games=24 --set selfplay.shard_games=8 --set train.steps=5
      --set selfplay.playout=builtin:nodes=50 --set run.generations=1)
"$bin" init --dir "$run" "${sets[@]}" >/dev/null
"$bin" init --dir "$run" "${sets[@]}" --set run.generations=3 >/dev/null  # resources may change
expect_error "other settings ('seed = 1' here, 'seed = 2' asked)" "$bin" init --dir "$run" "${sets[@]}" --set run.seed=2
grep -q '"hash":"[0-9a-f]\{16\}"' "$run/models/latest.json" || fail "no published gen-0000"
# export: the TorchScript of a published network; a damaged checkpoint is one clear error.
"$bin" export --network "$run/models/gen-0000.ckpt" --torchscript "$dir/gen0.pt" >"$dir/out"
grep -q '"input_format":"planes-36"' "$dir/out" || fail "export does not name the architecture"
[ -s "$dir/gen0.pt" ] || fail "no TorchScript file"
head -c 100 "$run/models/gen-0000.ckpt" >"$dir/cut.ckpt"
expect_error "truncated or damaged" "$bin" export --network "$dir/cut.ckpt" --torchscript "$dir/x.pt"

# Input files named in a config file are relative to the file, whatever the working directory.
mkdir -p "$dir/cfg"
printf '[selfplay]\nkings = "table"\nking_table = "kings.json"\n' >"$dir/cfg/run.toml"
cp "$(dirname "$0")/../data/king_pairs_iter2455_games.json" "$dir/cfg/kings.json"  # init reads it
(cd / && "$bin" init --dir "$dir/cfgrun" --config "$dir/cfg/run.toml" "${sets[@]}" >/dev/null)
grep -qxF "king_table = \"$dir/cfg/kings.json\"" "$dir/cfgrun/config.toml" ||
  fail "king_table not resolved against its config file: $(grep king_table "$dir/cfgrun/config.toml")"

expect_error "expected i/n" "$bin" selfplay --dir "$run" --worker 2/2
expect_error "expected i/n" "$bin" selfplay --dir "$run" --worker 1/2x
expect_error "not in a Slurm array" "$bin" selfplay --dir "$run"
expect_error "fixed by its config.toml" "$bin" selfplay --dir "$run" --worker 0/2 --set selfplay.games=5
expect_error "no run here" "$bin" selfplay --dir "$dir/none" --worker 0/1
expect_error "gen-0001 is not published" "$bin" selfplay --dir "$run" --worker 0/2 --generation 1
expect_error "timed out" "$bin" train --dir "$run" --timeout 0.5 --poll 0.1
[ "$("$bin" train --dir "$run" --timeout 0.3 --poll 0.1 >/dev/null 2>&1; echo $?)" = 3 ] ||
  fail "a trainer timing out does not exit 3"

# A worker id held by another process (flock(1) takes the same lock) is refused.
mkdir -p "$run/selfplay/gen-0000"
flock -o "$run/selfplay/gen-0000/w0.lock" sleep 600 &
holder=$!
# Until the lock is really held (however slowly flock starts on a loaded machine).
while [ ! -f "$run/selfplay/gen-0000/w0.lock" ] || flock -n "$run/selfplay/gen-0000/w0.lock" true; do
  kill -0 "$holder" 2>/dev/null || fail "flock(1) did not start"
  sleep 0.02
done
expect_error "worker 0 of gen-0000 is already running" "$bin" selfplay --dir "$run" --worker 0/2
pkill -P "$holder" 2>/dev/null || true
kill "$holder" 2>/dev/null || true
wait "$holder" 2>/dev/null || true
SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=2 "$bin" selfplay --dir "$run" >/dev/null 2>&1 ||
  fail "worker 0 from the Slurm array variables"
expect_error "split over 2 workers, not 3" "$bin" selfplay --dir "$run" --worker 0/3
"$bin" selfplay --dir "$run" --worker 1/2 >/dev/null 2>&1
"$bin" train --dir "$run" --generations 1 --timeout 10 >/dev/null 2>&1 || fail "trainer"
grep -q '"generation":1' "$run/models/latest.json" || fail "gen-0001 not published"
[ "$(cat "$run"/selfplay/gen-0000/*.records | wc -l)" -eq 24 ] || fail "not 24 games"

# Long-running workers (--follow) and the trainer as separate processes, two more generations.
"$bin" init --dir "$run" "${sets[@]}" --set run.generations=3 >/dev/null
for w in 0 1; do
  "$bin" selfplay --dir "$run" --worker $w/2 --follow --poll 0.1 --timeout 120 >"$dir/f$w" 2>&1 &
done
"$bin" train --dir "$run" --generations 3 --poll 0.1 --timeout 120 >"$dir/t" 2>&1 || fail "trainer: $(tail -3 "$dir/t")"
wait || fail "a following worker failed: $(tail -3 "$dir"/f0 "$dir"/f1)"
grep -q '"generation":3' "$run/models/latest.json" || fail "gen-0003 not published"
[ "$(grep -c "finished its" "$dir/f0")" -ge 2 ] || fail "worker 0 did not follow: $(cat "$dir/f0")"
echo "cluster commands: refusals clear, worker locks held, trainer and following workers reached gen-0003"
