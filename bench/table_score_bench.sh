#!/usr/bin/env bash
# The king-pair table's cost at equal band precision, by scoring: games only (today's adaptive
# run), eval (every pair by evaluation at move 41) and both (evaluation, the band re-measured by
# games), side by side, uniform placement, each run to a precise 48-pair band (+-0.05, 95 %).
# Prints each run's games, evaluations and CPU seconds (this process, every thread) and the ratio
# to the games-only run of the same seed.
#
#   bench/table_score_bench.sh BUILD/cli/fusekilab [SEED...]        (default seeds: 1 2)
#   env PLAYOUT (default builtin:nodes=100), EVAL_NODES (default 100), THREADS (default 2),
#       NETWORK (a placement network: the table's placement; default uniform),
#       MODES (default "games both eval": SCORE or SCORE:EVAL_ENGINE, e.g. both:value)
set -euo pipefail
bin=$(readlink -f "$1")
shift
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2)
playout="${PLAYOUT:-builtin:nodes=100}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf "%-5s %-6s %8s %12s %9s %9s %9s %8s  %s\n" seed mode games evaluations "cpu games" \
  "cpu eval" "cpu all" ratio "band"
for seed in "${seeds[@]}"; do
  base=""
  for mode in ${MODES:-games both eval}; do
    score="${mode%%:*}"
    engine=builtin
    [ "$mode" = "$score" ] || engine="${mode#*:}"
    out="$work/$score-$engine-$seed"
    "$bin" eval table --score "$score" --eval-engine "$engine" --playout "$playout" \
      --eval-nodes "${EVAL_NODES:-100}" --threads "${THREADS:-2}" --seed "$seed" \
      --max-games 1000000 ${NETWORK:+--network "$NETWORK"} --out "$out" >"$out.out" 2>"$out.err"
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
agree += " worst%.3f" % t["summary"]["band_worst_abs_dev"]
print(t["summary"]["games"], g, e, precise, agree)
PY
)
    evals=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['summary'].get('evaluations', 0))" "$out/table.json")
    all=$(/usr/bin/python3 -c "print(round($cg + $ce, 1))")
    [ -n "$base" ] || base="$all"
    ratio=$(/usr/bin/python3 -c "print('%.1fx' % ($base / $all))")
    printf "%-5s %-6s %8s %12s %9s %9s %9s %8s  %s %s\n" "$seed" "$mode" "$games" "$evals" "$cg" \
      "$ce" "$all" "$ratio" "$precise" "$agree"
  done
done
