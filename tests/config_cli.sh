#!/usr/bin/env bash
# Settings from their declarations, as a user meets them: docs/config.md is what
# `fusekilab config --markdown` prints (regenerate it with that command when a setting changes);
# `fusekilab config` prints a config file every command accepts; a command reads its section of a
# config file, flags win over it, and bad values, keys and sections are errors naming them.
set -euo pipefail
bin=$1
src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" config --markdown >"$dir/config.md"
diff -u "$src/docs/config.md" "$dir/config.md" ||
  fail "docs/config.md is stale: run '$bin config --markdown > docs/config.md'"

# The printed defaults are a config file for every command (other sections skipped).
"$bin" config >"$dir/all.toml"
"$bin" init --config "$dir/all.toml" --dir "$dir/run" --network.channels 8 >/dev/null
grep -q '^channels = 8$' "$dir/run/config.toml" || fail "--network.channels did not reach the run"
"$bin" play --config "$dir/all.toml" --sente random --gote random --quiet >/dev/null

# A section of a file, and a flag over it.
cat >"$dir/play.toml" <<'TOML'
[play]
sente = "random"
gote = "random"
games = 3
format = "jsonl"
seed = 7
[eval]
band = 12
TOML
"$bin" play --config "$dir/play.toml" --quiet >"$dir/out"
[ "$(wc -l <"$dir/out")" = 3 ] || fail "[play] games = 3 not read"
grep -q '"seed":7' "$dir/out" || fail "[play] seed not read"
"$bin" play --config "$dir/play.toml" --games 2 --quiet >"$dir/out"
[ "$(wc -l <"$dir/out")" = 2 ] || fail "--games does not win over the file"

expect_error() {  # expect_error TEXT COMMAND...
  local text=$1
  shift
  if "$@" >/dev/null 2>"$dir/err"; then fail "accepted: $*"; fi
  local rc=0
  "$@" >/dev/null 2>/dev/null || rc=$?
  [ "$rc" = 2 ] || fail "exit $rc, not 2: $*"
  grep -qF -- "$text" "$dir/err" || fail "'$text' not in: $(cat "$dir/err")"
}
printf '[play]\ngames = 0\n' >"$dir/bad.toml"
expect_error "play.games: value 0 out of range" "$bin" play --config "$dir/bad.toml"
printf '[play]\nspeed = 1\n' >"$dir/bad.toml"
expect_error "unknown key play.speed" "$bin" play --config "$dir/bad.toml"
# Another command's section is checked too, as that command would read it: one config file for
# every command is right or refused, whichever command reads it, before anything is written.
expect_error "unknown key play.speed" "$bin" init --dir "$dir/never" --config "$dir/bad.toml"
[ ! -e "$dir/never" ] || fail "init wrote a run for a config with a bad [play] section"
printf '[gating]\ngames = "x"\n' >"$dir/bad2.toml"
expect_error "gating.games: expected an integer" "$bin" play --config "$dir/bad2.toml"
printf '[playy]\ngames = 1\n' >"$dir/bad.toml"
expect_error "unknown section [playy]" "$bin" play --config "$dir/bad.toml"
printf '[eval]\nband = "wide"\n' >"$dir/bad.toml"
expect_error "eval.band: expected an integer" "$bin" eval table --config "$dir/bad.toml" --out "$dir/t"
[ ! -e "$dir/t" ] || fail "eval table wrote $dir/t for a bad config"
expect_error "--band: value 0 out of range [1, 1296]" "$bin" eval table --band 0
expect_error "--rules: 'shogi' is not a Balance rule set" "$bin" eval table --rules shogi
expect_error "--selfplay.temperature: 'hot' is not a number" "$bin" pipeline --selfplay.temperature hot
expect_error "--threads: value 0 out of range" "$bin" eval first-move --threads 0
# "--name=" is an empty value, not the next argument taken as one.
expect_error "--selfplay.temperature: '' is not a number" "$bin" pipeline --selfplay.temperature= \
  --run.generations 0
"$bin" pipeline --config "$src/configs/cpu-hour.toml" --run.then= --run.then-minutes 0 \
  --run.dir "$dir/nothen" --run.generations 0 >/dev/null 2>&1 ||
  fail "--run.then= did not clear the config's second stage"
# Search targets come from a searching placer only.
expect_error "train.target: 'search' trains toward a search's improved policy: it needs selfplay.placer = \"gumbel\" or \"rollout\", not \"policy\"" \
  "$bin" pipeline --run.dir "$dir/search" --selfplay.placer policy --train.target search
[ ! -e "$dir/search" ] || fail "pipeline made $dir/search for a refused config"
expect_error "selfplay.placer" "$bin" pipeline --selfplay.placer mcts
expect_error "--selfplay.search-k: value 0 out of range" "$bin" pipeline --selfplay.search-k 0
# The rollout placer: its kings and reanalysis refused, its settings range-checked.
expect_error "selfplay.placer: 'rollout' does not place Balance's kings" \
  "$bin" pipeline --run.dir "$dir/rk" --selfplay.placer rollout --selfplay.kings network
expect_error "train.reanalyse: true remakes the targets from the value head" \
  "$bin" pipeline --run.dir "$dir/rr" --selfplay.placer rollout --train.target search \
  --train.reanalyse true
[ ! -e "$dir/rk" ] && [ ! -e "$dir/rr" ] || fail "pipeline made a run for a refused config"
expect_error "--selfplay.rollouts: value 0 out of range" "$bin" pipeline --selfplay.rollouts 0
expect_error "train.q_weight: the look-ahead's measured values come from selfplay.placer = \"rollout\"" \
  "$bin" pipeline --run.dir "$dir/qw" --train.q-weight 1
[ ! -e "$dir/qw" ] || fail "pipeline made a run for a refused train.q_weight"
expect_error "gating.games: 8 per colour is under the 16 the SPRT (gating.rule = \"sprt\") plays" \
  "$bin" pipeline --run.dir "$dir/sp" --gating.games 8
[ ! -e "$dir/sp" ] || fail "pipeline made a run for a gate that could take nothing"
expect_error "gating.games: 8 per colour is under the 16" \
  "$bin" pipeline --run.dir "$dir/sp" --run.then-generation 1 --run.then "gating.games=8"
# Scored by result, the gate plays its games out even where self-play does not.
"$bin" pipeline --run.dir "$dir/noplay" --run.generations 1 --network.channels 8 \
  --network.blocks 1 --selfplay.games 8 --selfplay.shard-games 8 --selfplay.play-out false \
  --selfplay.eval-nodes 20 --selfplay.playout builtin:nodes=20 --train.reward eval \
  --train.steps 2 --train.batch-size 16 --gating.games 16 --gating.rule always \
  --strength.games 0 >"$dir/noplay.log" 2>&1 || { cat "$dir/noplay.log"; fail "pipeline, no play-out"; }
/usr/bin/python3 -c 'import json,sys
g=json.loads(open(sys.argv[1]).readline())["gating"]
assert g["games"] == 32 and g["scored_by"] == "result", g' "$dir/noplay/generations.jsonl" ||
  fail "the gate by result scored no play-outs with selfplay.play_out false"
expect_error "--selfplay.rollout-opponent: 'self' is not one of network, uniform" \
  "$bin" pipeline --selfplay.rollout-opponent self
# The searching trainer with reanalysis, behind a gate: two generations run through (the second
# reanalyses with the prior of the network the gate kept for its self-play).
reanalyse=(--run.dir "$dir/reanalyse" --network.channels 8 --network.blocks 1 --selfplay.games 64
  --selfplay.shard-games 64 --selfplay.placer gumbel --selfplay.search-k 4
  --selfplay.playout builtin:nodes=20 --train.target search --train.reanalyse true --train.steps 4
  --train.batch-size 32 --gating.games 16)
"$bin" pipeline "${reanalyse[@]}" --run.generations 2 >"$dir/reanalyse.log" 2>&1 ||
  { cat "$dir/reanalyse.log"; fail "pipeline with reanalysis"; }
[ "$(wc -l <"$dir/reanalyse/generations.jsonl")" = 2 ] || fail "reanalysis: not 2 generations"
[ -e "$dir/reanalyse/models/gen-0002.ckpt" ] || fail "reanalysis: no gen-0002 checkpoint"
# run.minutes on the run's clock (the generations' wall_seconds): resumed with half a last
# generation of time left, the run starts none; with a minute more than a last generation, one.
read -r run_min last_min < <(/usr/bin/python3 -c 'import json,sys
w=[json.loads(l)["wall_seconds"] for l in open(sys.argv[1])]
print(sum(w)/60, w[-1]/60)' "$dir/reanalyse/generations.jsonl")
"$bin" pipeline "${reanalyse[@]}" --run.generations 3 \
  --run.minutes "$(/usr/bin/python3 -c "print($run_min + $last_min / 2)")" >"$dir/minutes.log" 2>&1 ||
  { cat "$dir/minutes.log"; fail "pipeline resumed with run.minutes"; }
grep -q "the last generation took .*; stopping before gen-0002's self-play" "$dir/minutes.log" ||
  fail "run.minutes: a generation that would end past it started: $(cat "$dir/minutes.log")"
[ ! -e "$dir/reanalyse/models/gen-0003.ckpt" ] || fail "run.minutes: gen-0003 made"
"$bin" pipeline "${reanalyse[@]}" --run.generations 3 \
  --run.minutes "$(/usr/bin/python3 -c "print($run_min + $last_min + 1)")" >"$dir/minutes.log" 2>&1 ||
  { cat "$dir/minutes.log"; fail "pipeline resumed with run.minutes"; }
[ -e "$dir/reanalyse/models/gen-0003.ckpt" ] || fail "run.minutes: gen-0003 not made in time left"
# Interrupted after gen-0002's line was written, before gen-0003's publication: resumed with no
# time left, the run still publishes what that line decided (its time is already on the clock).
published=$(cat "$dir/reanalyse/models/gen-0003.json")
rm "$dir/reanalyse/models/gen-0003.json"
cp "$dir/reanalyse/models/gen-0002.json" "$dir/reanalyse/models/latest.json"
"$bin" pipeline "${reanalyse[@]}" --run.generations 3 --run.minutes "$run_min" \
  >"$dir/minutes.log" 2>&1 || { cat "$dir/minutes.log"; fail "pipeline resumed to publish"; }
[ "$(cat "$dir/reanalyse/models/gen-0003.json" 2>/dev/null)" = "$published" ] ||
  fail "run.minutes: the finished gen-0002 was not published on resuming: $(cat "$dir/minutes.log")"
[ "$(cat "$dir/reanalyse/models/latest.json")" = "$published" ] || fail "latest.json not gen-0003"
# Expert iteration: self-play by the rollout placer, the trainer toward its targets.
"$bin" pipeline --run.dir "$dir/rollout" --run.generations 1 --network.channels 8 \
  --network.blocks 1 --selfplay.games 4 --selfplay.batch 4 --selfplay.placer rollout \
  --selfplay.search-k 3 --selfplay.rollouts 2 --selfplay.rollout-nodes 30 --selfplay.eval-nodes 30 \
  --selfplay.playout builtin:nodes=20 --train.target search --train.reanalyse false \
  --train.steps 2 --train.batch-size 16 --train.log-every 1 --train.q-weight 1 --gating.games 8 --gating.rule interval \
  --gating.score result --strength.games 0 >"$dir/rollout.log" 2>&1 ||
  { cat "$dir/rollout.log"; fail "pipeline with rollouts"; }
[ -e "$dir/rollout/models/gen-0001.ckpt" ] || fail "rollout: no gen-0001 checkpoint"
# train.q_weight: the value head's regression on the rollouts' values, in the metrics.
grep -q '"q_loss":' "$dir/rollout/train/metrics.jsonl" || fail "rollout: no q_loss in the metrics"
# Rollouts for the last drops only, the earlier drops' targets reanalysed: two generations.
"$bin" pipeline --run.dir "$dir/hybrid" --run.generations 2 --network.channels 8 \
  --network.blocks 1 --selfplay.games 4 --selfplay.batch 4 --selfplay.placer rollout \
  --selfplay.rollout-from-ply 34 --selfplay.search-k 3 --selfplay.rollouts 2 \
  --selfplay.rollout-nodes 30 --selfplay.eval-nodes 30 --selfplay.playout builtin:nodes=20 \
  --train.target search --train.reanalyse true --train.steps 2 --train.batch-size 16 \
  --gating.games 8 --gating.rule interval --gating.score result --strength.games 0 \
  >"$dir/hybrid.log" 2>&1 ||
  { cat "$dir/hybrid.log"; fail "pipeline with rollouts from ply 34"; }
[ -e "$dir/hybrid/models/gen-0002.ckpt" ] || fail "hybrid: no gen-0002 checkpoint"
# A second stage (run.then): bad stages refused before anything is written.
expect_error "run.then: 'network.channels=8': a second stage keeps the run's [run] and [network]" \
  "$bin" pipeline --run.dir "$dir/st" --run.then "network.channels=8" --run.then-generation 1
expect_error "run.then: --set selfplay.speed=2: unknown key selfplay.speed" \
  "$bin" pipeline --run.dir "$dir/st" --run.then "selfplay.speed=2" --run.then-generation 1
expect_error "run.then: in the second stage, train.target: 'search'" \
  "$bin" pipeline --run.dir "$dir/st" --run.then "train.target=search" --run.then-generation 1
expect_error "run.then: a second stage needs run.then_minutes or run.then_generation" \
  "$bin" pipeline --run.dir "$dir/st" --run.then "selfplay.games=8"
expect_error "run.then_minutes: begins a second stage, but run.then gives it no settings" \
  "$bin" pipeline --run.dir "$dir/st" --run.then-minutes 5
[ ! -e "$dir/st" ] || fail "pipeline made a run for a refused second stage"
# From generation 1 on: its settings (16 games, 3 steps a generation), training from the best
# network (gen-0000 here: the gate takes nothing from 2 games) on the stage's own games.
"$bin" pipeline --run.dir "$dir/stage" --run.generations 3 --network.channels 8 \
  --network.blocks 1 --selfplay.games 8 --selfplay.shard-games 8 \
  --selfplay.playout builtin:nodes=20 --train.steps 5 --train.batch-size 16 --gating.games 1 \
  --gating.rule interval --strength.games 0 --run.then-generation 1 \
  --run.then "selfplay.games=16 selfplay.shard_games=16 train.steps=3" >"$dir/stage.log" 2>&1 ||
  { cat "$dir/stage.log"; fail "pipeline with a second stage"; }
grep -q '"generation":1' "$dir/stage/stage.json" || fail "stage.json: $(cat "$dir/stage/stage.json")"
grep -q 'second stage (run.then) from gen-0001' "$dir/stage.log" || fail "the stage's start not said"
lines=$(grep -c '"stage":2' "$dir/stage/generations.jsonl" || true)
[ "$lines" = 2 ] || fail "second stage: $lines generation lines marked stage 2, not 2"
for g in 0 1 2; do
  n=$(cat "$dir"/stage/selfplay/gen-000$g/*.records 2>/dev/null | wc -l)
  want=16
  [ $g = 0 ] && want=8
  [ "$n" = "$want" ] || fail "second stage: gen-000$g played $n games, not $want"
done
# Steps: gen-0001 trained 5 from gen-0000 (0); gen-0002 3 from the best, gen-0000; gen-0003 3 more.
steps=$(sed -E 's/.*"generation":([0-9]+).*"step":([0-9]+).*/\1 \2/' "$dir/stage/train/metrics.jsonl" |
  awk '{ last[$1] = $2 } END { printf "%s %s %s", last[1], last[2], last[3] }')
[ "$steps" = "5 3 6" ] || fail "second stage: steps by generation '$steps', not '5 3 6'"
# Bad input found when it is read, before anything is written (a run directory or table left
# behind would refuse the corrected command as "a run with other settings"), exit 2, one line.
one_line_error() {  # one_line_error TEXT COMMAND...
  expect_error "$@"
  [ "$(wc -l <"$dir/err")" = 1 ] || fail "not one line: $(cat "$dir/err")"
}
ckpt="$dir/run/models/gen-0000.ckpt"
one_line_error "--selfplay.playout: unknown engine 'nosuch'" \
  "$bin" match --a "$ckpt" --b uniform --games 1 --selfplay.playout nosuch
one_line_error "--set selfplay.playout: engine 'builtin:nodes=abc': nodes=abc" \
  "$bin" pipeline --dir "$dir/bad1" --set selfplay.playout=builtin:nodes=abc
one_line_error "--set strength.referee: unknown engine 'nosuch'" \
  "$bin" init --dir "$dir/bad1" --set strength.referee=nosuch
one_line_error "--judge: unknown engine 'nosuch'" \
  "$bin" eval strength --network "$ckpt" --judge nosuch
one_line_error "nonexist.json: cannot open king-pair table" \
  "$bin" init --dir "$dir/bad1" --set selfplay.kings=table --set selfplay.king_table=nonexist.json
[ ! -e "$dir/bad1" ] || fail "a refused run left $dir/bad1 behind"
one_line_error "--playout: engine 'builtin:nodes=abc'" "$bin" eval table --out "$dir/bad2" \
  --playout builtin:nodes=abc
one_line_error "nonexist.json: cannot open king-pair table" "$bin" eval table --out "$dir/bad2" \
  --compare nonexist.json --first-pass 1
[ ! -e "$dir/bad2" ] || fail "a refused table left $dir/bad2 behind"
one_line_error "cannot read: Is a directory" "$bin" match --config "$dir" --a uniform --b uniform
one_line_error "'shogi' has no placement phase" \
  "$bin" match --a uniform --b uniform --games 1 --run.rules shogi
one_line_error "'yari' has no placement phase" "$bin" eval strength --network "$ckpt" --rules yari
one_line_error "strength.games: 3: an even number" "$bin" eval strength --network "$ckpt" --games 3
one_line_error "strength.games: 5: an even number" "$bin" init --dir "$dir/bad1" --strength.games 5
one_line_error "name the same file" \
  "$bin" export --network "$ckpt" --onnx "$dir/x.onnx" --torchscript "$dir/./x.onnx"
[ ! -e "$dir/x.onnx" ] || fail "export wrote $dir/x.onnx for a refused command"
printf 'games = 2\n' >"$dir/bad.toml"
one_line_error "'games' is a key outside any section" "$bin" play --config "$dir/bad.toml"
one_line_error "--seed: '-1' is not a non-negative integer" \
  "$bin" place --table "$src/data/king_pairs_iter2455_games.json" --seed -1
one_line_error "a directory, not a king-pair table" "$bin" place --table "$dir"
one_line_error "--moves must be exactly the two king drops" "$bin" choose \
  --table "$src/data/king_pairs_iter2455_games.json" --moves "K*5i K*5a choose:sente"
one_line_error "--poll: 'soon' is not a number" "$bin" selfplay --dir "$dir/run" --poll soon
# A match's result names its seed (the same seed, the same games).
"$bin" match --a uniform --b uniform --games 2 --run.seed 7 --selfplay.playout builtin:nodes=20 \
  2>/dev/null | grep -q '"seed":' || fail "match: no seed in its result"
# What a command prints must reach its file: a full disk is an error, not a truncated success.
if [ -w /dev/full ]; then
  rc=0
  "$bin" config >/dev/full 2>"$dir/err" || rc=$?
  [ "$rc" != 0 ] || fail "config > /dev/full exited 0"
  grep -qF "cannot write standard output" "$dir/err" || fail "/dev/full: $(cat "$dir/err")"
fi
echo "config_cli: OK"
