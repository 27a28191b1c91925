#!/usr/bin/env bash
# eval first-move: the summary and report are written; a run killed at random moments and resumed
# gives the same result as an uninterrupted one; bad input is one clear error.
set -euo pipefail
bin="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
args=(eval first-move --rules yari --games 120 --engine builtin:nodes=300:noise=40 --threads 2)
"$bin" "${args[@]}" --seed 4 --out "$dir/whole" >"$dir/whole.out" 2>/dev/null
for f in summary.json games.jsonl report.html settings.json; do
  [ -s "$dir/whole/$f" ] || fail "missing $f"
done
grep -q "<svg" "$dir/whole/report.html" || fail "no chart in the report"
[ "$(wc -l <"$dir/whole/games.jsonl")" -eq 120 ] || fail "not 120 games in games.jsonl"
RANDOM=3
for round in 1 2; do
  "$bin" "${args[@]}" --seed 4 --out "$dir/killed" >/dev/null 2>&1 &
  pid=$!
  sleep "0.$((3 + RANDOM % 5))"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "kill $round: $(wc -l <"$dir/killed/games.jsonl" 2>/dev/null || echo 0) games kept"
done
"$bin" "${args[@]}" --seed 4 --out "$dir/killed" >"$dir/killed.out" 2>/dev/null
# The same games, so the same summary (the order of lines in games.jsonl may differ).
cmp <(tail -1 "$dir/whole.out") <(tail -1 "$dir/killed.out") || fail "resumed result differs"
if "$bin" eval first-move --rules balance --games 2 >/dev/null 2>"$dir/err"; then fail "balance accepted"; fi
grep -q "placement position" "$dir/err" || fail "unclear error: $(cat "$dir/err")"
if "$bin" "${args[@]}" --seed 5 --out "$dir/whole" >/dev/null 2>"$dir/err"; then fail "other settings resumed"; fi
grep -q "other settings" "$dir/err" || fail "unclear error: $(cat "$dir/err")"
echo "eval first-move: $(tail -2 "$dir/whole.out" | head -1)"
