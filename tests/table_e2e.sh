#!/usr/bin/env bash
# eval table end to end on a small budget: every output written; a run killed at random moments
# and resumed gives the same table as an uninterrupted one; shards merge, and shards from other
# settings are refused.
set -euo pipefail
bin="$1"
shared_table="${2:-}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args=(eval table --first-pass 2 --band 12 --round-games 256 --max-games 3000 --halfwidth 0.15
      --playout builtin:nodes=100:noise=20 --threads 2)
"$bin" "${args[@]}" --seed 5 --out "$dir/whole" >/dev/null 2>&1
for f in table.json table.csv report.html games.h5 journal.jsonl settings.json; do
  [ -s "$dir/whole/$f" ] || { echo "FAIL: missing $f"; exit 1; }
done
grep -q '"format": "king_pair_table/1"' "$dir/whole/table.json" || { echo "FAIL: not king_pair_table/1"; exit 1; }
/usr/bin/python3 "$(dirname "$0")/site_table_contract.py" --ours "$dir/whole/table.json" 12 uniform ||
  { echo "FAIL: the site's table contract"; exit 1; }
# The contract fails on a table that breaks it (a band key dropped from the pairs).
/usr/bin/python3 - "$dir/whole/table.json" "$dir/broken.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
del t["pairs"][t["band"][0]]
json.dump(t, open(sys.argv[2], "w"))
PY
if /usr/bin/python3 "$(dirname "$0")/site_table_contract.py" "$dir/broken.json" 12 >/dev/null; then
  echo "FAIL: the contract check passed a broken table"; exit 1
fi
# A network's table names it iterN, N its generation.
"$bin" init --dir "$dir/net" --network.channels 8 --network.blocks 1 >/dev/null
"$bin" eval table --first-pass 1 --band 12 --max-games 2000 --round-games 256 --playout builtin:nodes=60 \
  --threads 2 --seed 5 --score games --network "$dir/net/models/gen-0000.ckpt" --out "$dir/nettable" \
  >/dev/null 2>&1
/usr/bin/python3 "$(dirname "$0")/site_table_contract.py" --ours "$dir/nettable/table.json" 12 iter0 ||
  { echo "FAIL: the network table's contract"; exit 1; }
[ "$(wc -l < "$dir/whole/table.csv")" -eq 1297 ] || { echo "FAIL: CSV is not 1296 pairs"; exit 1; }
grep -q "<svg" "$dir/whole/report.html" || { echo "FAIL: no heat map"; exit 1; }
# The report shows table.json's per-square values on the board diagrams and its band as a list.
/usr/bin/python3 - "$dir/whole/table.json" "$dir/whole/report.html" <<'PY' || { echo "FAIL: the report"; exit 1; }
import json, re, sys
t = json.load(open(sys.argv[1]))
html = open(sys.argv[2]).read()
for side, key in (("sente", "black_king_value_pt"), ("gote", "white_king_value_pt")):
    board = html[html.index('<svg id="board-%s"' % side):]
    board = board[:board.index("</svg>")]
    shown = dict(re.findall(r'data-square="([1-9][a-i])">.*?<text[^>]*>([^<]*)</text>', board))
    assert sorted(shown) == sorted(t[key]), (side, sorted(shown))
    for sq, v in shown.items():
        assert abs(float(v) - t[key][sq]) <= 0.0501, (sq, v, t[key][sq])
rows = re.findall(r'<tr class="band-pair" data-key="([^"]+)"', html)
assert rows == t["band"] and len(rows) == 12, rows
PY

RANDOM=7
for round in 1 2 3; do
  "$bin" "${args[@]}" --seed 5 --out "$dir/killed" >/dev/null 2>&1 &
  pid=$!
  sleep "1.$((RANDOM % 10))"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "kill $round: $(grep -c '"pair"' "$dir/killed/journal.jsonl" 2>/dev/null || echo 0) games in the journal"
done
"$bin" "${args[@]}" --seed 5 --out "$dir/killed" >/dev/null 2>&1
cmp "$dir/whole/table.json" "$dir/killed/table.json" || { echo "FAIL: resumed table differs"; exit 1; }
cmp "$dir/whole/table.csv" "$dir/killed/table.csv" || { echo "FAIL: resumed CSV differs"; exit 1; }

# Other settings in the same directory are refused.
if "$bin" "${args[@]}" --seed 6 --out "$dir/whole" >/dev/null 2>"$dir/err"; then
  echo "FAIL: a different seed resumed another run"; exit 1
fi
grep -q "other settings" "$dir/err" || { echo "FAIL: unclear error: $(cat "$dir/err")"; exit 1; }

# Shards and merge.
shard=(eval table --first-pass 1 --playout builtin:nodes=100:noise=20 --threads 2)
"$bin" "${shard[@]}" --seed 5 --shard 0/2 --out "$dir/s0" >/dev/null 2>&1
"$bin" "${shard[@]}" --seed 5 --shard 1/2 --out "$dir/s1" >/dev/null 2>&1
"$bin" "${shard[@]}" --shard 1/2 --seed 9 --out "$dir/s9" >/dev/null 2>&1
"$bin" eval merge --out "$dir/merged" "$dir/s0" "$dir/s1" >/dev/null
python3 - "$dir/merged/table.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
n = sum(p["n"] for p in t["pairs"].values())
assert len(t["pairs"]) == 1296 and n >= 1200, n
PY
if "$bin" eval merge --out "$dir/bad" "$dir/s0" "$dir/s9" >/dev/null 2>"$dir/err"; then
  echo "FAIL: merged shards of different settings"; exit 1
fi
grep -q "settings differ" "$dir/err" || { echo "FAIL: unclear merge error: $(cat "$dir/err")"; exit 1; }

if [ -n "$shared_table" ] && [ -f "$shared_table" ]; then
  # The site's own published table passes the contract check.
  /usr/bin/python3 "$(dirname "$0")/site_table_contract.py" "$shared_table" 42 iter2455 >/dev/null ||
    { echo "FAIL: the published table fails the contract check"; exit 1; }
  "$bin" eval table --out "$dir/cmp" --first-pass 1 --max-games 1296 --threads 2 --playout builtin:nodes=100 \
    --compare "$shared_table" >/dev/null 2>&1
  grep -q "Change against" "$dir/cmp/report.html" || { echo "FAIL: no comparison in the report"; exit 1; }
  [ "$(grep -c '<circle class="pair' "$dir/cmp/report.html")" -eq 1296 ] ||
    { echo "FAIL: the scatter plot is not one point per pair"; exit 1; }
  grep -q 'class="identity"' "$dir/cmp/report.html" || { echo "FAIL: no identity line"; exit 1; }
fi
echo "eval table: outputs written, killed-and-resumed table identical, shards merged"
