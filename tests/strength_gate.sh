#!/usr/bin/env bash
# Placement strength and the gate, as a user meets them: eval strength plays a fixed number of
# games against each reference and prints score, interval and Elo (text and JSON); bad input is
# one clear error with exit 2; a pipeline whose candidate is no better (train.steps = 0: the
# same network) rejects it, keeps self-play on the best network and says why, and measures each
# new network's strength into generations.jsonl and the report.
set -euo pipefail
bin=$(readlink -f "$1")
source "$(dirname "$0")/cli_lib.sh"
run="$dir/run"
"$bin" init --dir "$run" --network.channels 8 --network.blocks 1 >/dev/null
net="$run/models/gen-0000.ckpt"

# 24 games per reference, both colours, against uniform and against itself.
"$bin" eval strength --network "$net" --references "uniform, $net" --games 24 \
  --referee builtin:nodes=60 --threads 2 --out "$dir/s.json" --records "$dir/s.records" \
  >"$dir/out" 2>"$dir/err"
grep -q '^vs uniform: 0\.[0-9]* \[0\.[0-9]*, [01]\.[0-9]*\], [-+][0-9]* Elo \[' "$dir/out" ||
  fail "no score line: $(cat "$dir/out")"
grep -q "^  by the rank of Gote's king, as Sente / as Gote: [a-d] [01]\.[0-9]* / " "$dir/out" ||
  fail "no line by the rank of Gote's king: $(cat "$dir/out")"
/usr/bin/python3 - "$dir/s.json" "$net" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["games"] == 24 and r["referee"] == "builtin:nodes=60", r
refs = r["references"]
assert [x["reference"] for x in refs] == ["uniform", sys.argv[2]], refs
for x in refs:
    assert x["games"] + x["void"] == 24, x  # 12 king pairs, each with both colours
    assert x["wins"] + x["draws"] + x["losses"] == x["games"], x
    lo, hi = x["ci95"]
    assert lo <= x["score"] <= hi and x["elo_ci95"][0] <= x["elo"] <= x["elo_ci95"][1], x
    if x["void"] == 0:  # as many games with each colour: the score is the colours' mean
        assert abs((x["as_sente"] + x["as_gote"]) / 2 - x["score"]) < 1e-9, x
    assert 0 <= x["ruling41_won"] <= 12 and 0 <= x["ruling41_lost"] <= 12, x
    # By the rank of Gote's king: Balance kings stand in Gote's camp (ranks a-d), and the ranks'
    # games and points add up to each colour's.
    ranks = x["by_gote_king_rank"]
    assert ranks and all(k["rank"] in "abcd" for k in ranks), ranks
    for colour in ("sente", "gote"):
        n = sum(k[colour + "_games"] for k in ranks)
        points = sum(k["as_" + colour] * k[colour + "_games"] for k in ranks)
        if x["void"] == 0:
            assert n == 12, (colour, ranks)
        assert abs(points - x["as_" + colour] * n) < 1e-9, (colour, ranks, x)
PY
# --records: every game, a line each, that the rules' judge replays to the same end.
/usr/bin/python3 - "$dir/s.records" "$net" "$bin" <<'PY'
import collections, json, subprocess, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 48, len(lines)
seen = collections.Counter()
for n, line in enumerate(lines):
    record, meta = line.split(" # ")
    f = dict(kv.split("=", 1) for kv in meta.split())
    assert f["reference"] in ("uniform", sys.argv[2]) and f["network"] in ("sente", "gote"), line
    seen[f["reference"], f["network"]] += 1
    if n % 6 == 0:  # eight of them replayed
        j = json.loads(subprocess.check_output(
            [sys.argv[3], "judge", "--moves", record, "--format", "jsonl"]))
        assert j["state"] == "over" and j["winner"] == f["winner"], (j, f)
        assert j["ply"] == 40 + int(f["moves"]), (j, f)
assert set(seen.values()) == {12} and len(seen) == 4, seen
PY
# A seed fixes every game whatever the thread count: with one thread, the same games.
"$bin" eval strength --network "$net" --references "uniform, $net" --games 24 \
  --referee builtin:nodes=60 --threads 1 --records "$dir/s1.records" >/dev/null 2>&1 ||
  fail "eval strength --threads 1 failed"
cmp -s "$dir/s.records" "$dir/s1.records" || fail "other games with one referee thread than with two"
grep -q '^  as Sente [01]\.[0-9]*, as Gote [01]\.[0-9]*; the move-41 ruling: won [0-9]* as Sente' \
  "$dir/out" || fail "no colour line: $(cat "$dir/out")"
grep -q 'strength vs uniform: 24/24' "$dir/err" || fail "no progress line: $(tail -3 "$dir/err")"
[ ! -e "$dir/s.json.journal" ] || fail "the journal of a finished measurement was left"
# Stopped after its first step of games (SIGTERM at the fault point), the same command goes on
# from the journal and ends with the same result and records; a journal of other settings is
# refused. Two references, steps of 4 pairs: the stop comes inside the first reference.
S=(eval strength --network "$net" --references "uniform, $net" --games 24 --batch 4
   --referee builtin:nodes=60 --threads 1 --out "$dir/r.json" --records "$dir/r.records")
"$bin" "${S[@]/\/r./\/u.}" >/dev/null 2>&1 || fail "eval strength --batch 4"  # not stopped: u.json
stop_at strength:pause "$bin" "${S[@]}"
[ -s "$dir/r.json.journal" ] && [ ! -e "$dir/r.json" ] || fail "no journal, or a result, after the stop"
expect_error "the journal of a measurement with other settings (settings.games: 24 in the journal, 1000 asked)" \
  "$bin" "${S[@]/--games/--seed}"
"$bin" "${S[@]}" >/dev/null 2>"$dir/resume.err" || fail "the resumed measurement: $(cat "$dir/resume.err")"
grep -q "^strength vs uniform: 8 of 24 games from $dir/r.json.journal" "$dir/resume.err" ||
  fail "not resumed from the journal: $(cat "$dir/resume.err")"
cmp -s "$dir/u.records" "$dir/r.records" || fail "the resumed measurement played other games"
/usr/bin/python3 - "$dir/u.json" "$dir/r.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["references"] == b["references"], (a["references"], b["references"])
PY
[ ! -e "$dir/r.json.journal" ] || fail "the journal was left after the resumed measurement"

# match --out, stopped after its first step of games, goes on from its journal (FILE.journal)
# to the result of an uninterrupted match; a journal of another match is refused.
M=(match --a "$net" --b uniform --games 24 --selfplay.batch 4 --selfplay.playout builtin:nodes=60
   --out "$dir/m.json")
"$bin" "${M[@]/\/m./\/n.}" >"$dir/n.out" 2>/dev/null || fail "match --out"  # not stopped: n.json
stop_at match:pause "$bin" "${M[@]}"
[ -s "$dir/m.json.journal" ] && [ ! -e "$dir/m.json" ] || fail "no match journal, or a result, after the stop"
expect_error "the journal of a match with other settings (b: uniform in the journal, file " \
  "$bin" "${M[@]/uniform/$net}"
expect_error "(settings.selfplay.playout: \"builtin:nodes=60\" in the journal, \"builtin:nodes=61\" asked)" \
  "$bin" "${M[@]/nodes=60/nodes=61}"
"$bin" "${M[@]}" >"$dir/m.out" 2>"$dir/resume.err" || fail "the resumed match: $(cat "$dir/resume.err")"
grep -q "^match: 8 of 48 games from $dir/m.json.journal" "$dir/resume.err" ||
  fail "match not resumed from its journal: $(cat "$dir/resume.err")"
cmp -s "$dir/n.out" "$dir/m.out" && cmp -s <(sed "s|/n.json|/m.json|" "$dir/n.json") "$dir/m.json" ||
  fail "the resumed match differs: $(cat "$dir/n.out" "$dir/m.out")"
[ ! -e "$dir/m.json.journal" ] || fail "the journal was left after the resumed match"
expect_error "match: --out: folder '$dir/no' does not exist" "$bin" "${M[@]/$dir\/m.json/$dir/no/m.json}"
expect_error "match: --out: '$dir/m.out' is not a folder" "$bin" "${M[@]/$dir\/m.json/$dir/m.out/m.json}"
expect_error "match: --out '$net' is also --a" "$bin" "${M[@]/$dir\/m.json/$net}"

# The network measured with its Gumbel search (a diagnostic: does the value head's look-ahead
# add strength?): said in the header and the JSON.
"$bin" eval strength --network "$net" --games 8 --referee builtin:nodes=60 --search-k 4 \
  --out "$dir/k.json" >"$dir/out" 2>/dev/null
grep -q '^eval strength: .*seed 1, placing by its search over 4 candidates)' "$dir/out" ||
  fail "no search in the header: $(head -1 "$dir/out")"
/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["search_k"] == 4 and r["references"][0]["games"] + r["references"][0]["void"] == 8, r' "$dir/k.json" ||
  fail "search_k not recorded"

# Looking ahead to move 41 (the rollout placer without its noise, a search rather than the
# network alone): said in the header and the JSON; the same games with one engine thread as with
# two; other games than the policy's; one search at a time.
LA=(--network "$net" --games 8 --referee builtin:nodes=60 --lookahead-k 3 --lookahead-rollouts 2
  --lookahead-nodes 40)
"$bin" eval strength "${LA[@]}" --threads 2 --out "$dir/la.json" --records "$dir/la2.records" \
  >"$dir/out" 2>"$dir/err" || fail "eval strength --lookahead-k: $(tail -3 "$dir/err")"
grep -q '^eval strength: .*seed 1, looking ahead: 3 candidates, 2 completions each valued at 40 nodes)' \
  "$dir/out" || fail "no look-ahead in the header: $(head -1 "$dir/out")"
/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["lookahead"] == {"k": 3, "rollouts": 2, "nodes": 40, "scale": 1000.0, "from_ply": 0} and r["references"][0]["games"] + r["references"][0]["void"] == 8, r' "$dir/la.json" ||
  fail "lookahead not recorded"
grep -q 'strength vs uniform: 4/8' "$dir/err" || fail "look-ahead progress not by steps: $(cat "$dir/err")"
"$bin" eval strength "${LA[@]}" --threads 1 --records "$dir/la1.records" >/dev/null 2>&1 ||
  fail "eval strength --lookahead-k --threads 1 failed"
cmp -s "$dir/la2.records" "$dir/la1.records" || fail "look-ahead: other games with one thread than two"
"$bin" eval strength --network "$net" --games 8 --referee builtin:nodes=60 \
  --records "$dir/pol.records" >/dev/null 2>&1 || fail "eval strength (policy) failed"
cut -d'#' -f1 "$dir/pol.records" | cmp -s - <(cut -d'#' -f1 "$dir/la2.records") &&
  fail "the look-ahead placed exactly as the policy in all 8 games"
"$bin" eval strength "${LA[@]}" --lookahead-from 36 --out "$dir/la36.json" >"$dir/out" 2>/dev/null ||
  fail "eval strength --lookahead-from failed"
grep -q 'valued at 40 nodes, from ply 36)' "$dir/out" || fail "no from ply: $(head -1 "$dir/out")"
expect_error "one search at a time" "$bin" eval strength "${LA[@]}" --search-k 4
# ... refused before anything is loaded (here a network that is not there).
expect_error "one search at a time" "$bin" eval strength --network "$dir/none.ckpt" --games 8 \
  --lookahead-k 3 --search-k 4
expect_error "--lookahead-rollouts: value 0 out of range" "$bin" eval strength --network "$net" \
  --games 2 --lookahead-k 2 --lookahead-rollouts 0

# --judge: each game's move-41 position evaluated by another engine, the games not decided at
# move 41 counted into bands that hold them all, with the referee's score in each.
"$bin" eval strength --network "$net" --games 16 --referee builtin:nodes=60 \
  --judge builtin:nodes=200 --out "$dir/j.json" >"$dir/out" 2>"$dir/err"
grep -q '^  judged at move 41 by builtin:nodes=200, [0-9]* positions (0 not: the engine failed): median [-+][0-9]* cp' \
  "$dir/out" || fail "no judge line: $(cat "$dir/out")"
grep -q 'judge vs uniform: ' "$dir/err" || fail "no judge progress: $(tail -3 "$dir/err")"
/usr/bin/python3 - "$dir/j.json" <<'PY'
import json, sys
x = json.load(open(sys.argv[1]))["references"][0]
j = x["judge"]
decided = x["ruling41_won"] + x["ruling41_lost"]
assert 0 < j["positions"] <= x["games"] - decided and j["failed"] == 0, (j, x)
bands = j["bands"]
assert sum(b["games"] for b in bands) == j["positions"], j
assert [b["to"] for b in bands[:-1]] == [b["from"] for b in bands[1:]] == [-600, 0, 600, 1500, 3000], j
assert bands[0]["from"] is None and bands[-1]["to"] is None, j
assert all(0 <= b["score"] <= 1 for b in bands) and 0 <= j["ahead_1500"] <= j["ahead_600"] <= 1, j
PY
expect_error "--judge: engine 'builtin:nodes=x'" "$bin" eval strength --network "$net" --judge "builtin:nodes=x" --games 2
expect_error "unknown reference 'gen-7'" "$bin" eval strength --network "$net" --references gen-7 --games 2
expect_error "--referee: engine 'builtin:nodes=x'" "$bin" eval strength --network "$net" --referee "builtin:nodes=x" --games 2
head -c 100 "$net" >"$dir/cut.ckpt"
expect_error "truncated or damaged" "$bin" eval strength --network "$dir/cut.ckpt" --games 2
expect_error "--records: folder '$dir/no' does not exist" "$bin" eval strength --network "$net" \
  --games 2 --records "$dir/no/r.txt"
expect_error "--out '$dir/x' is also --records" "$bin" eval strength --network "$net" --games 2 \
  --out "$dir/x" --records "$dir/./x"
cp "$net" "$dir/copy.ckpt"
expect_error "--out 'copy.ckpt' is also --network" bash -c "cd '$dir' && '$bin' eval strength \
  --network '$dir/copy.ckpt' --games 2 --out copy.ckpt"
expect_error "--records '$dir/r.json.journal' is also --out's journal" "$bin" eval strength \
  --network "$net" --games 2 --out "$dir/r.json" --records "$dir/r.json.journal"
expect_error "--network is required" "$bin" eval strength --games 2
expect_error "--games: value -1 out of range" "$bin" eval strength --network "$net" --games -1

# The pipeline runs below: a tiny network and fast play-outs.
tiny=(--network.channels 8 --network.blocks 1 --selfplay.playout builtin:nodes=40)
# No training step: every candidate is its parent again.
untrained=("${tiny[@]}" --selfplay.games 16 --train.steps 0)
sprt_gate=(--gating.games 40 --gating.rule sprt)

# The gate: gen-0001 is gen-0000 again (no training step), so it is not shown better and
# self-play of generation 1 keeps gen-0000; the strength of each network is measured.
"$bin" pipeline --dir "$dir/gate" --generations 2 "${untrained[@]}" "${sprt_gate[@]}" \
  --strength.games 8 --strength.referee builtin:nodes=40 --strength.every 3 \
  >/dev/null 2>"$dir/err" ||
  fail "pipeline: $(tail -5 "$dir/err")"
pub="$dir/gate/models/gen-0001.json"
grep -q '"accepted":false' "$pub" || fail "gen-0001 accepted though no better: $(cat "$pub")"
grep -q '"best":"gen-0000"' "$pub" || fail "gen-0001's self-play does not use gen-0000: $(cat "$pub")"
grep -q '"file":"gen-0000.ckpt"' "$pub" || fail "gen-0001 publishes another file: $(cat "$pub")"
grep -q '"why":"gen-0001 against gen-0000: ' "$pub" || fail "no reason: $(cat "$pub")"
grep -q '"best":"gen-0000"' "$dir/gate/models/latest.json" || fail "latest.json names another best"
line=$(sed -n 1p "$dir/gate/generations.jsonl")
echo "$line" | grep -q '"strength_start":{' || fail "gen-0000 not measured"
echo "$line" | grep -q '"strength":{' || fail "gen-0001 not measured"
echo "$line" | grep -q '"wall_seconds":' || fail "no wall_seconds"
# A network against itself over 80 games is far from either SPRT(0, 10) bound: the cap decides.
echo "$line" | grep -q '"decided_by":"interval at the cap"' || fail "not decided at the cap: $line"
# strength.every 3: gen-0002 (rejected, not the 3rd) is not measured.
if sed -n 2p "$dir/gate/generations.jsonl" | grep -q '"strength":{'; then
  fail "gen-0002 measured though strength.every = 3 and rejected"
fi
grep -q 'Elo by generation' "$dir/gate/report.html" || fail "no strength chart in the report"
# Runs side by side: a chart and a line per run; bad input is one clear error.
"$bin" compare "$dir/gate" "$dir/gate" --label a --label b --out "$dir/cmp.svg" >"$dir/out" ||
  fail "compare failed"
grep -q '^b  2  [0-9.]*  gen-0000  [-+][0-9]* \[' "$dir/out" || fail "compare's table: $(cat "$dir/out")"
grep -q '<svg' "$dir/cmp.svg" && grep -q '>b<' "$dir/cmp.svg" || fail "compare's chart"
expect_error "is not a run" "$bin" compare "$dir/nothing"
expect_error "2 labels for 1 runs" "$bin" compare "$dir/gate" --label a --label b
# A run that went on from another's network at minute 10: its minutes in the table from there.
"$bin" compare "$dir/gate" "$dir/gate" --label a --label b --start-minute 0 --start-minute 10 \
  --out "$dir/cmp2.svg" >"$dir/out2" || fail "compare --start-minute failed"
a_min=$(awk '$1 == "a" {print $3}' "$dir/out2")
b_min=$(awk '$1 == "b" {print $3}' "$dir/out2")
awk -v a="$a_min" -v b="$b_min" 'BEGIN {exit !(b - a > 9.95 && b - a < 10.05)}' ||
  fail "compare --start-minute: minutes $a_min and $b_min"
expect_error "1 start minutes for 2 runs" "$bin" compare "$dir/gate" "$dir/gate" --start-minute 5
grep -q 'rejected' "$dir/gate/report.html" || fail "the report does not show the rejection"
# A pipeline stopped in its strength measurement and in its gating match goes on from their
# journals (models/gen-N.strength.journal, gen-N.gating.journal) to the generation an
# uninterrupted run decides; no journal is left once the generation's line is written.
gated=("${tiny[@]}" --selfplay.games 16 --train.steps 2 "${sprt_gate[@]}" --selfplay.batch 8 --strength.games 8 --strength.batch 2
       --strength.referee builtin:nodes=40)
"$bin" pipeline --dir "$dir/whole" --generations 1 "${gated[@]}" >/dev/null 2>&1 ||
  fail "pipeline (uninterrupted)"
stop_at match:pause "$bin" pipeline --dir "$dir/stopped" --generations 1 "${gated[@]}"
[ -s "$dir/stopped/models/gen-0001.gating.journal" ] || fail "no gating journal in the run"
# The match is over and its result not yet written: the run's measurements come after it.
stop_at strength:pause "$bin" pipeline --dir "$dir/stopped" --generations 1 "${gated[@]}"
grep -q "^match: 16 of 80 games from $dir/stopped/models/gen-0001.gating.journal" "$dir/out" ||
  fail "the gating match not resumed: $(grep match "$dir/out")"
[ -s "$dir/stopped/models/gen-0000.strength.journal" ] || fail "no strength journal in the run"
# Resumed from another folder, the run named another way: its journals are still its own.
(cd "$dir" && "$bin" pipeline --dir ./stopped --generations 1 "${gated[@]}" >/dev/null 2>"$dir/err") ||
  fail "the resumed pipeline: $(tail -3 "$dir/err")"
grep -q "^strength vs uniform: 4 of 8 games from ./stopped/models/gen-0000.strength.journal" \
  "$dir/err" || fail "the run's measurement not resumed: $(grep strength "$dir/err")"
/usr/bin/python3 - "$dir/whole" "$dir/stopped" <<'PY'
import json, sys
a, b = (json.loads(open(d + "/generations.jsonl").readline()) for d in sys.argv[1:])
for key in ("gating", "strength", "strength_start", "accepted", "best", "why", "train"):
    assert a[key] == b[key], (key, a[key], b[key])
PY
if ls "$dir"/whole/models "$dir"/stopped/models | grep -q journal; then
  fail "journals left: $(ls "$dir"/stopped/models)"
fi
# gating.at_cap reject: the same match, undecided at the cap, is rejected and says so.
"$bin" pipeline --dir "$dir/reject" --generations 1 "${untrained[@]}" "${sprt_gate[@]}" \
  --gating.at-cap reject --strength.games 0 >/dev/null 2>"$dir/err" ||
  fail "pipeline: $(tail -5 "$dir/err")"
line=$(sed -n 1p "$dir/reject/generations.jsonl")
echo "$line" | grep -q '"decided_by":"the cap"' || fail "at_cap reject: $line"
echo "$line" | grep -q '"verdict":"undecided"' || fail "at_cap reject: $line"
grep -q '"accepted":false' "$dir/reject/models/gen-0001.json" || fail "at_cap reject took gen-0001"
grep -q 'at the cap, undecided: rejected)' "$dir/reject/models/gen-0001.json" ||
  fail "at_cap reject's reason: $(cat "$dir/reject/models/gen-0001.json")"
# rule always: the newest is taken whatever the match says.
"$bin" pipeline --dir "$dir/always" --generations 1 "${untrained[@]}" --gating.games 8 \
  --gating.rule always >/dev/null 2>"$dir/err" || fail "pipeline: $(tail -5 "$dir/err")"
grep -q '"accepted":true' "$dir/always/models/gen-0001.json" || fail "rule always rejected"
grep -q '"best":"gen-0001"' "$dir/always/models/gen-0001.json" || fail "rule always kept gen-0000"
expect_error "has no strength measured vs uniform" "$bin" compare "$dir/always"
# The move-41 evaluation from a USI engine (Debian's Fairy-Stockfish), its scale and bias fitted
# to the generation's results and published for the next generation's self-play.
if command -v /usr/games/fairy-stockfish >/dev/null || command -v fairy-stockfish >/dev/null; then
  "$bin" pipeline --dir "$dir/fit" --generations 1 "${tiny[@]}" \
    --selfplay.games 160 --selfplay.eval-nodes 300 \
    --selfplay.eval-engine fairy-stockfish --selfplay.eval-fit true --train.steps 2 \
    >/dev/null 2>"$dir/err" ||
    fail "pipeline: $(tail -5 "$dir/err")"
  grep -q 'move-41 evaluation fitted to [0-9]* results: scale [0-9]*' "$dir/err" ||
    fail "no fit: $(grep -i fitted "$dir/err")"
  /usr/bin/python3 - "$dir/fit" <<'PY'
import json, sys
line = json.loads(open(sys.argv[1] + "/generations.jsonl").readline())
fit = line["eval_calibration"]
assert fit["games"] >= 100 and 20 <= fit["scale"] <= 100000, fit
pub = json.load(open(sys.argv[1] + "/models/gen-0001.json"))
assert pub["eval_calibration"] == fit, (pub, fit)
PY
  # Without eval_fit the fit is recorded but not published: the next generation keeps the scale.
  "$bin" pipeline --dir "$dir/nofit" --generations 1 "${tiny[@]}" \
    --selfplay.games 160 --selfplay.eval-nodes 100 \
    --train.steps 2 >/dev/null 2>"$dir/err" || fail "pipeline: $(tail -5 "$dir/err")"
  grep -q '"eval_calibration"' "$dir/nofit/generations.jsonl" || fail "no fit recorded"
  if grep -q '"eval_calibration"' "$dir/nofit/models/gen-0001.json"; then
    fail "eval_fit = false published the fit"
  fi
else
  echo "strength_gate: no fairy-stockfish, the USI evaluation part skipped"
fi
echo "strength_gate: OK"
