#!/usr/bin/env bash
# eval table --score eval|both end to end on a small budget: the evaluation's calibration (with
# its standard errors) and agreement with the games in table.json; every pair scored by
# evaluation, the games' table fitted around it with a precise band (both); the site's contract;
# a run cut short and resumed from its journal gives the same table byte for byte; bad input is
# one clear error.
set -euo pipefail
bin=$(readlink -f "$1")
here=$(cd "$(dirname "$0")" && pwd)
source "$(dirname "$0")/cli_lib.sh"
common=(eval table --band 24 --round-games 512 --halfwidth 0.2 --eval-samples 4 --eval-nodes 30
        --playout builtin:nodes=30 --threads 2 --seed 3)
args=("${common[@]}" --max-games 30000)

"$bin" "${args[@]}" --score both --out "$dir/both" >"$dir/both.out" 2>"$dir/both.err" ||
  fail "score both: $(tail -3 "$dir/both.err")"
grep -q "evaluation against games, [0-9]* pairs re-measured" "$dir/both.err" ||
  fail "no agreement line: $(tail -5 "$dir/both.err")"
/usr/bin/python3 - "$dir/both/table.json" both <<'PY' || fail "score both: table.json"
import json, sys
t = json.load(open(sys.argv[1]))
s = t["summary"]
assert s["score"] == sys.argv[2], s
c = s["eval_calibration"]
assert c["games"] > 1000 and c["scale_se"] > 0 and c["bias_se"] > 0, c
assert s["evaluations"] == 1296 * 4, s["evaluations"]
a = s["eval_agreement"]
band = set(t["band"])
assert len(band) == 24
for k, p in t["pairs"].items():
    assert "v_eval" in p, k
    assert ("v_games" in p) == (p["n"] > 0), (k, p)
for k in band:  # each band pair measured by its games as precisely as asked
    p = t["pairs"][k]
    assert (p["high"] - p["low"]) / 2 <= 0.2 + 1e-9, (k, p)
assert a["pairs"] >= 24 and a["low"] <= a["mean_abs_difference"] <= a["high"], a
PY
/usr/bin/python3 "$here/site_table_contract.py" --ours "$dir/both/table.json" 24 uniform ||
  fail "score both: the site's contract"
grep -q "<th>v (eval)</th>" "$dir/both/report.html" || fail "the report has no v (eval) column"

# Cut short (the journal's last 40 % gone, as a kill leaves it) and resumed: the same table.
cp -r "$dir/both" "$dir/cut"
lines=$(wc -l <"$dir/cut/journal.jsonl")
head -n $((lines * 6 / 10)) "$dir/both/journal.jsonl" >"$dir/cut/journal.jsonl"
rm "$dir/cut/table.json" "$dir/cut/table.csv"
"$bin" "${args[@]}" --score both --out "$dir/cut" >/dev/null 2>"$dir/cut.err" ||
  fail "resume: $(tail -3 "$dir/cut.err")"
grep -q "resuming" "$dir/cut.err" || fail "did not resume: $(head -3 "$dir/cut.err")"
cmp "$dir/both/table.json" "$dir/cut/table.json" || fail "the resumed table differs"
cmp "$dir/both/table.csv" "$dir/cut/table.csv" || fail "the resumed CSV differs"

# Scored by evaluation alone: one calibration game per pair, the band by the evaluation.
"$bin" "${args[@]}" --score eval --out "$dir/eval" >/dev/null 2>"$dir/eval.err" ||
  fail "score eval: $(tail -3 "$dir/eval.err")"
/usr/bin/python3 - "$dir/eval/table.json" <<'PY' || fail "score eval: table.json"
import json, sys
t = json.load(open(sys.argv[1]))
s = t["summary"]
assert s["score"] == "eval" and s["games"] == 1296, s
assert all(p["n"] <= 1 for p in t["pairs"].values())
order = sorted(t["pairs"], key=lambda k: abs(t["pairs"][k]["v"] - 0.5))
assert set(t["band"]) == set(order[:24]), (t["band"], order[:24])
PY

# With a network, both (auto) evaluates each pair once by the value head after the kings.
"$bin" init --dir "$dir/net" --network.channels 8 --network.blocks 1 >/dev/null
"$bin" "${common[@]}" --max-games 3000 --network "$dir/net/models/gen-0000.ckpt" --out "$dir/value" \
  >/dev/null 2>"$dir/value.err" || fail "value head: $(tail -3 "$dir/value.err")"
/usr/bin/python3 - "$dir/value/table.json" <<'PY' || fail "value head: table.json"
import json, sys
t = json.load(open(sys.argv[1]))
s = t["summary"]
assert s["score"] == "both" and s["evaluations"] == 1296, s
assert t["settings"]["eval"] == "value head after the kings", t["settings"]
# (an untrained value head hardly varies: its calibration may be left unfitted, games 0)
assert all(0 <= p["v_eval"] <= 1 for p in t["pairs"].values())
PY

# Bad input: one line, exit 2, nothing written.
expect_error "--eval-engine value (the network's value head at the kings) needs --network" \
  "$bin" "${args[@]}" --score both --eval-engine value --out "$dir/x0"
expect_error "--eval-engine nosuch" "$bin" "${args[@]}" --score both --eval-engine nosuch \
  --out "$dir/x1"
expect_error "--shard measures a slice by games only" "$bin" "${args[@]}" --score both \
  --shard 1/2 --out "$dir/x2"
expect_error "--plan and --round measure by games only" "$bin" "${args[@]}" --score eval \
  --plan 2 --out "$dir/x3"
[ ! -e "$dir/x0" ] && [ ! -e "$dir/x1" ] && [ ! -e "$dir/x2" ] && [ ! -e "$dir/x3" ] ||
  fail "a refused run wrote"
echo "table_score: ok"
