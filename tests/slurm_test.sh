#!/usr/bin/env bash
# fusekilab on a real single-node Slurm cluster (scripts/slurm/slurm-local.sh: Debian's
# slurmctld, slurmd and a private munged, all state in a temporary directory):
#  1. the king-pair table as an array of 4 slices plus a dependent merge, with one slice requeued
#     (killed) mid-run: the merged table equals a single-process run with the same seed;
#  2. one self-play/train generation with 2 self-play tasks and a dependent trainer, with one
#     self-play task requeued mid-run: the published network and every game are the same, byte
#     for byte, as the one-machine pipeline's with the same seed and 2 workers.
# Needs root and the Slurm packages (scripts/setup.sh installs them); exits 77 (skipped) without.
set -euo pipefail
bin=$(readlink -f "$1")
root=$(cd "$2" && pwd)
slurm="$root/scripts/slurm/slurm-local.sh"
submit="$root/scripts/slurm/submit.sh"
if [ "$(id -u)" -ne 0 ] || [ ! -x /usr/sbin/slurmctld ] || [ ! -x /usr/sbin/munged ]; then
  echo "SKIP: needs root and slurmctld/slurmd/munge (scripts/setup.sh)"
  exit 77
fi
work=$(mktemp -d /tmp/fkslurm.XXXX)  # short: the cluster's sockets live under it
cluster="$work/c"
cleanup() {
  "$slurm" stop "$cluster" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in "$work"/*/logs/*.out "$work"/table/logs/*.out; do
    [ -f "$f" ] && { echo "--- $f"; tail -5 "$f"; }
  done
  exit 1
}
start=$SECONDS
eval "$("$slurm" start "$cluster")"
export FUSEKILAB="$bin"
echo "cluster up in $((SECONDS - start)) s: $(sinfo -h -o '%N %T %c CPUs')"

# Lines in FILE, 0 when it is not there yet.
lines() { { wc -l <"$1"; } 2>/dev/null || echo 0; }

# Requeues array task TASK of JOB once the command READY succeeds, while the task still runs;
# Slurm kills the running task and starts it again. Fails if the task ended first.
requeue_mid_run() {
  local job="$1" task="$2" ready="$3" deadline=$((SECONDS + 120))
  while ((SECONDS < deadline)); do
    local state
    state=$("$slurm" states "$cluster" "${job}_$task" | awk '{print $2}' | head -1)
    [ "$state" != COMPLETED ] || fail "task ${job}_$task finished before it could be requeued"
    if [ "$state" = RUNNING ] && eval "$ready"; then
      scontrol requeue "${job}_$task"
      # A requeued job waits for a begin time ~2 minutes away; let it go again now.
      sleep 0.3
      scontrol update jobid="${job}_$task" StartTime=now
      echo "requeued task ${job}_$task mid-run ($ready)"
      return 0
    fi
    sleep 0.05
  done
  fail "task ${job}_$task never got to: $ready"
}

# --- 1. The king-pair table: 4 slices and a merge --------------------------------------------
targs=(--seed 11 --first-pass 1 --playout builtin:nodes=600:noise=20)
"$bin" eval table --out "$work/single" --adaptive false "${targs[@]}" --threads 2 >/dev/null 2>&1
out=$("$submit" table "$work/table" --tasks 4 -- "${targs[@]}")
echo "$out"
eval_job=$(sed -n 's/^eval=//p' <<<"$out")
merge_job=$(sed -n 's/^merge=//p' <<<"$out")
requeue_mid_run "$eval_job" 1 '[ $(lines $work/table/shard-1/journal.jsonl) -ge 40 ]'
"$slurm" wait "$cluster" "$eval_job" "$merge_job" || fail "evaluation jobs did not all complete"
grep -q "restart 1" "$work"/table/logs/fk-eval-"${eval_job}"_1.out || fail "task 1 was not restarted"
grep -q "resuming with" "$work"/table/logs/fk-eval-"${eval_job}"_1.out ||
  fail "task 1 did not resume from its journal"
/usr/bin/python3 - "$work/single/table.json" "$work/table/table/table.json" <<'PY' || fail "the merged table differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for t in (a, b):
    t.pop("settings", None)
if a != b:
    for k in a:
        if a[k] != b.get(k):
            print("differs:", k, json.dumps(a[k])[:600], json.dumps(b.get(k))[:600])
    sys.exit(1)
n = sum(p["n"] for p in a["pairs"].values())
print(f"merged table of 4 slices = single-process table ({n} games, 1296 pairs)")
PY
"$bin" eval merge --out "$work/partial" "$work"/table/shard-{0,1,2} >/dev/null 2>"$work/err" &&
  fail "merged 3 of 4 slices"
grep -q "shard 3/4 is missing" "$work/err" || fail "unclear error for a missing slice: $(cat "$work/err")"

# --- 2. A self-play/train generation: 2 self-play tasks and the trainer ----------------------
sets=(--set run.seed=3 --set run.generations=1 --set selfplay.games=768 --set selfplay.shard_games=64
      --set selfplay.playout=builtin:nodes=300:noise=20 --set train.steps=30)
out=$("$submit" generations "$work/run" --selfplay-tasks 2 "${sets[@]}")
echo "$out"
sp_job=$(sed -n 's/^selfplay-0=//p' <<<"$out")
train_job=$(sed -n 's/^train-0=//p' <<<"$out")
requeue_mid_run "$sp_job" 0 '[ -f $work/run/selfplay/gen-0000/w000-g000000000-n64.h5 ]'
"$slurm" wait "$cluster" "$sp_job" "$train_job" || fail "self-play/train jobs did not all complete"
grep -q "restart 1" "$work"/run/logs/fk-selfplay-0-"${sp_job}"_0.out || fail "self-play task 0 was not restarted"
[ -f "$work/run/models/gen-0001.json" ] || fail "gen-0001 not published"

"$bin" pipeline --dir "$work/ref" "${sets[@]}" --set selfplay.workers=2 >/dev/null 2>&1
cmp "$work/ref/models/gen-0001.ckpt" "$work/run/models/gen-0001.ckpt" ||
  fail "the network trained on the cluster differs from the one-machine pipeline's"
cmp <(cat "$work"/ref/selfplay/gen-0000/*.records) <(cat "$work"/run/selfplay/gen-0000/*.records) ||
  fail "the cluster's self-play games differ from the one-machine pipeline's"
games=$(cat "$work"/run/selfplay/gen-0000/*.records | wc -l)
[ "$games" -eq 768 ] || fail "$games games in the shards, expected 768"
echo "generation on the cluster = one-machine pipeline: $games games, gen-0001 $(sed -n 's/.*"hash":"\([0-9a-f]*\)".*/\1/p' "$work/run/models/gen-0001.json")"
echo "slurm: all checks passed in $((SECONDS - start)) s"
