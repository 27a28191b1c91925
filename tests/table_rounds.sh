#!/usr/bin/env bash
# eval table in cluster rounds, without Slurm: eval table --plan 3 writes each round's schedule,
# three processes play its slices (eval table --round R --shard i/3), one of them stopped mid-round
# and resumed, until the planner writes the table: byte for byte the one-process eval table's with
# the same seed and settings (table.json, table.csv, report.html). Bad input (a plan with other
# settings, a foreign, missing or unfinished slice, a round that does not exist, another split)
# is refused with one clear error and exit 2.
set -euo pipefail
bin="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}
args=(--seed 5 --first-pass 1 --band 8 --round-games 120 --max-games 1700 --halfwidth 0.2
      --playout builtin:nodes=60:noise=20)
t0=$SECONDS
"$bin" eval table "${args[@]}" --threads 2 --out "$dir/one" >"$dir/one.out" 2>/dev/null
echo "one process: $(cat "$dir/one.out") ($((SECONDS - t0)) s)"
c="$dir/cluster"
plan() { "$bin" eval table "${args[@]}" --out "$c" --plan 3 "$@"; }
slice() { "$bin" eval table "${args[@]}" --threads 1 --out "$c" --round "$1" --shard "$2"; }
# Refused: exit 2 and one line on stderr naming the problem (PATTERN).
refused() {  # PATTERN COMMAND...
  local pattern="$1" rc=0
  shift
  "$@" >/dev/null 2>"$dir/err" || rc=$?
  [ "$rc" -eq 2 ] || fail "exit $rc, not 2, for: $* ($(cat "$dir/err"))"
  [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "not one error line for: $*: $(cat "$dir/err")"
  grep -q "$pattern" "$dir/err" || fail "unclear error for $*: $(cat "$dir/err")"
  echo "refused: $(cat "$dir/err")"
}

t0=$SECONDS
refused "round 0 does not exist" slice 0 0/3
plan >/dev/null
refused "round 1 does not exist" slice 1 0/3
refused "round 0 is split into 3 slices" slice 0 0/4
other=("${args[@]}")
other[1]=6  # another seed
refused "other settings" "$bin" eval table "${other[@]}" --out "$c" --plan 3
for i in 2 0; do slice 0 "$i/3" >/dev/null 2>&1 || fail "round 0 slice $i"; done
refused "round 0 slice 1/3 is missing" plan --round 0
# A slice of another run (another seed) where slice 1 belongs.
"$bin" eval table "${other[@]}" --out "$dir/other" --plan 3 >/dev/null
"$bin" eval table "${other[@]}" --threads 1 --out "$dir/other" --round 0 --shard 1/3 >/dev/null 2>&1
mkdir -p "$c/round-0000/slice-1"
cp "$dir/other/round-0000/slice-1/settings.json" "$c/round-0000/slice-1/"
refused "is not round 0 slice 1/3 of this run" plan --round 0
rm -r "$c/round-0000/slice-1"
slice 0 1/3 >/dev/null 2>&1 || fail "round 0 slice 1"
refused "round 4 does not exist" plan --round 4
after=0
while true; do
  plan --round "$after" >"$dir/plan.out" || fail "plan after round $after: $(cat "$dir/plan.out")"
  cat "$dir/plan.out"
  ! grep -q '"done":true' "$c/plan.json" || break
  after=$((after + 1))
  if ((after == 1)); then
    # Slice 1 of round 1 stopped mid-round (SIGTERM while it plays): the planner refuses the
    # unfinished slice; run again, it resumes from its journal.
    FUSEKILAB_TEST_POINT=game:pause FUSEKILAB_TEST_MARK="$dir/mark" "$bin" eval table \
      "${args[@]}" --threads 1 --out "$c" --round 1 --shard 1/3 >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 600); do [ -f "$dir/mark" ] && break; sleep 0.05; done
    [ -f "$dir/mark" ] || fail "round 1 slice 1 never got to a game"
    kill -TERM "$pid"
    rc=0
    wait "$pid" || rc=$?
    [ "$rc" -eq 143 ] || fail "a stopped slice exited $rc, not 143"
    slice 1 0/3 >/dev/null 2>&1 && slice 1 2/3 >/dev/null 2>&1 || fail "round 1 slices 0, 2"
    refused "round 1 slice 1/3 is not finished" plan --round 1
    slice 1 1/3 >/dev/null 2>"$dir/err" || fail "round 1 slice 1 again: $(cat "$dir/err")"
    # As if killed after 10 games: 10 results in its journal, not finished.
    sj="$c/round-0001/slice-1/journal.jsonl"
    head -n 10 "$sj" >"$dir/j10" && mv "$dir/j10" "$sj" && rm "$c/round-0001/slice-1/finished.json"
    refused "round 1 slice 1/3 is not finished (10 of its 40 games" plan --round 1
    slice 1 1/3 2>/dev/null | tee "$dir/resumed"
    grep -q "(10 from the journal)" "$dir/resumed" || fail "round 1 slice 1 did not resume its 10 games"
  else
    for i in 0 1 2; do slice "$after" "$i/3" >/dev/null 2>&1 || fail "round $after slice $i"; done
  fi
done
# The planner run again after the end (a requeued planning job) writes the same table.
plan --round "$after" >/dev/null || fail "planning again after the end"
refused "round $((after + 1)) does not exist" slice "$((after + 1))" 0/3
echo "cluster rounds: $((after + 1)) rounds planned by hand in $((SECONDS - t0)) s"
for f in table.json table.csv report.html; do
  cmp "$dir/one/$f" "$c/table/$f" || fail "$f differs from the one-process run's"
done
python3 - "$c/table/table.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
n = sum(p["n"] for p in t["pairs"].values())
print(f"cluster table = one-process table, byte for byte: {n} games, {t.get('summary', {}).get('rounds', '?')} rounds")
PY
