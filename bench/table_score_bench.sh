#!/usr/bin/env bash
# The king-pair table's cost at equal band precision, by scoring: games only (today's adaptive
# run), eval (every pair by evaluation at move 41) and both (evaluation, the band re-measured by
# games), side by side, uniform placement, each run to a precise 48-pair band (+-0.05, 95 %).
# Prints each run's games, evaluations and CPU seconds (this process, every thread) and the ratio
# to the games-only run of the same seed.
#
#   bench/table_score_bench.sh BUILD/cli/fusekilab [SEED...]        (default seeds: 1 2)
#   env PLAYOUT (default builtin:nodes=100), EVAL_NODES (default 100), THREADS (default 2)
set -euo pipefail
bin=$(readlink -f "$1")
shift
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2)
playout="${PLAYOUT:-builtin:nodes=100}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf "%-5s %-6s %8s %12s %9s %9s %9s %8s  %s\n" seed score games evaluations "cpu games" \
  "cpu eval" "cpu all" ratio "band"
for seed in "${seeds[@]}"; do
  base=""
  for score in games both eval; do
    out="$work/$score-$seed"
    "$bin" eval table --score "$score" --playout "$playout" --eval-nodes "${EVAL_NODES:-100}" \
      --threads "${THREADS:-2}" --seed "$seed" --max-games 1000000 --out "$out" \
      >"$out.out" 2>"$out.err"
    read -r games cg ce precise agree < <(/usr/bin/python3 - "$out" <<'PY'
import json, re, sys
d = sys.argv[1]
t = json.load(open(d + "/table.json"))
err = open(d + ".err").read()
g, e = re.search(r"CPU seconds: games ([0-9.]+), evaluation ([0-9.]+)", err).groups()
precise = "precise" if "band precise" in open(d + ".out").read() else "NOT-precise"
a = t["summary"].get("eval_agreement")
agree = "-" if not a else "%.3f[%.3f,%.3f]/noise%.3f" % (
    a["mean_abs_difference"], a["low"], a["high"], a["noise_floor"])
print(t["summary"]["games"], g, e, precise, agree)
PY
)
    evals=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['summary'].get('evaluations', 0))" "$out/table.json")
    all=$(/usr/bin/python3 -c "print(round($cg + $ce, 1))")
    [ -n "$base" ] || base="$all"
    ratio=$(/usr/bin/python3 -c "print('%.1fx' % ($base / $all))")
    printf "%-5s %-6s %8s %12s %9s %9s %9s %8s  %s %s\n" "$seed" "$score" "$games" "$evals" "$cg" \
      "$ce" "$all" "$ratio" "$precise" "$agree"
  done
done
