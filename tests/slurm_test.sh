#!/usr/bin/env bash
# fusekilab on a real single-node Slurm cluster (scripts/slurm/slurm-local.sh: Debian's
# slurmctld, slurmd and a private munged, all state in a temporary directory):
#  1. the king-pair table in adaptive rounds (arrays of 4 slices, planning jobs between them),
#     with slice 1 of the first pass requeued at a chosen moment and slice 1 of round 1 requeued
#     mid-round: table.json and table.csv are the single-process run's with the same seed, byte
#     for byte;
#  2. one self-play/train generation with 2 self-play tasks and a trainer, with self-play task 0
#     requeued at a chosen moment: the published network and every game are the same, byte for
#     byte, as the one-machine pipeline's with the same seed and 2 workers;
#  3. a run whose self-play task 1 fails for good (its one retry spent): the trainer reports the
#     missing worker and fails, and the next generation's jobs are cancelled, not left waiting.
# Slurm restarts a requeued task by itself once the cluster's credential lifetime has passed.
#
# The moments (fault points, io/stop.h; the task is requeued once the point is reached):
#   start        before the first game          game     in the middle of a game
#   midrun       once games are finished (table: 40 in the journal; self-play: the first shard)
#   commit       a shard half committed (SIGTERM: fusekilab completes the commit, then stops)
#   commit:hang  the same, but the process ignores SIGTERM: Slurm kills it after KillWait
#   journal      requeued mid-run, then again while the restarted task rewrites its journal
#   journal:hang the same, killed after KillWait
# Environment: SLURM_TEST_TABLE_AT (default midrun), SLURM_TEST_SELFPLAY_AT (default commit:hang),
# SLURM_TEST_PARTS (default "table generation failure"), SLURM_TEST_REF (a directory that keeps
# the one-machine references between runs; scripts/stress-tests.sh).
# Needs root and the Slurm packages (scripts/setup.sh installs them); exits 77 (skipped) without.
set -euo pipefail
bin=$(readlink -f "$1")
root=$(cd "$2" && pwd)
slurm="$root/scripts/slurm/slurm-local.sh"
submit="$root/scripts/slurm/submit.sh"
table_at="${SLURM_TEST_TABLE_AT:-midrun}"
selfplay_at="${SLURM_TEST_SELFPLAY_AT:-commit:hang}"
parts=" ${SLURM_TEST_PARTS:-table generation failure} "
if [ "$(id -u)" -ne 0 ] || [ ! -x /usr/sbin/slurmctld ] || [ ! -x /usr/sbin/munged ]; then
  echo "SKIP: needs root and slurmctld/slurmd/munge (scripts/setup.sh)"
  exit 77
fi
work=$(mktemp -d /tmp/fkslurm.XXXX)  # short: the cluster's sockets live under it
cluster="$work/c"
ref="${SLURM_TEST_REF:-$work/ref}"
mkdir -p "$ref"
cleanup() {
  "$slurm" stop "$cluster" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in "$work"/*/logs/*.out; do
    [ -f "$f" ] && { echo "--- $f"; tail -8 "$f"; }
  done
  echo "--- slurmctld.log"
  grep -iE "requeue|revoked|kill|error" "$cluster/log/slurmctld.log" | tail -15 || true
  exit 1
}
start=$SECONDS
eval "$("$slurm" start "$cluster")"
export FUSEKILAB="$bin" SLURM_LOCAL_PROGRESS="$work"
echo "cluster up in $((SECONDS - start)) s: $(sinfo -h -o '%N %T %c CPUs')"

# Lines in FILE, 0 when it is not there yet.
lines() { { wc -l <"$1"; } 2>/dev/null || echo 0; }
task_state() { { "$slurm" states "$cluster" "$1" || true; } | awk 'NR == 1 {print $2}'; }

# Requeues array task TASK of JOB once the command READY succeeds while the task runs. Waits as
# long as the task is pending or running and something under $work changes (ctest's timeout
# bounds the rest); fails if the task ended first.
requeue_when() {
  local job="$1" task="$2" ready="$3" seen="" now quiet=$SECONDS state
  while ((SECONDS - quiet < 300)); do
    state=$(task_state "${job}_$task")
    case "$state" in
      PENDING | RUNNING | REQUEUED | CONFIGURING | COMPLETING | "") ;;
      *) fail "task ${job}_$task ended ($state) before it could be requeued at: $ready" ;;
    esac
    if [ "$state" = RUNNING ] && eval "$ready"; then
      scontrol requeue "${job}_$task"
      echo "requeued task ${job}_$task ($ready) after $((SECONDS - start)) s"
      return 0
    fi
    # (find fails when a file vanishes mid-walk, as temporary files do: not an error here.)
    now=$({ find "$work" -type f -printf '%p %s\n' 2>/dev/null || true; } | cksum)
    [ "$now" = "$seen" ] || { seen="$now"; quiet=$SECONDS; }
    sleep 0.05
  done
  fail "task ${job}_$task: no progress for 300 s, never got to: $ready"
}

# Submits (submit.sh SUBMIT-ARGS) with the fault point of MOMENT, for array task TASK.
submit_at() {  # MOMENT TASK MARK -- SUBMIT-ARGS...
  local moment="$1" task="$2" mark="$3"
  shift 4
  local point=""
  case "$moment" in
    start | game | commit | commit:hang) point="$moment" ;;
    journal | journal:hang) point="journal-rewrite${moment#journal}" ;;
    midrun) ;;
    *) fail "unknown moment '$moment'" ;;
  esac
  FUSEKILAB_TEST_POINT="$point" FUSEKILAB_TEST_MARK="$mark" FUSEKILAB_TEST_TASK="$task" \
    "$submit" "$@"
}
# Requeues the task at MOMENT: MIDRUN is the midrun condition, FIRST the condition for the
# journal moments' first requeue (finished games in the journal).
requeue_at() {  # MOMENT JOB TASK MARK MIDRUN FIRST
  local moment="$1" job="$2" task="$3" mark="$4" midrun="$5" first="$6"
  case "$moment" in
    midrun) requeue_when "$job" "$task" "$midrun" ;;
    journal*)
      requeue_when "$job" "$task" "$first"
      requeue_when "$job" "$task" "[ -f $mark ]" ;;
    *) requeue_when "$job" "$task" "[ -f $mark ]" ;;
  esac
}

# --- 1. The king-pair table in adaptive rounds: arrays of 4 slices, planning jobs ---------------
# The (array) job id of the job named NAME, once it is known to the controller.
job_id() {
  { scontrol -o show job 2>/dev/null || true; } | grep " JobName=$1 " | head -1 |
    sed -n -e 's/.* ArrayJobId=\([0-9]*\) .*/\1/p;t' -e 's/^JobId=\([0-9]*\) .*/\1/p'
}
# Waits for the job named NAME to be submitted (a planning job submits it); prints its id.
await_job() {
  local name="$1" id="" since=$SECONDS
  while ((SECONDS - since < 300)); do
    id=$(job_id "$name")
    [ -z "$id" ] || { echo "$id"; return 0; }
    sleep 0.2
  done
  fail "no job $name was submitted within 300 s"
}
if [[ "$parts" == *" table "* ]]; then
  targs=(--seed 11 --first-pass 1 --band 8 --round-games 400 --max-games 2400 --halfwidth 0.2
         --playout builtin:nodes=600:noise=20)
  if [ ! -f "$ref/rounds-table.json" ]; then
    "$bin" eval table --out "$work/single" "${targs[@]}" --threads 2 >"$work/single.out" 2>/dev/null
    cat "$work/single.out"
    cp "$work/single/table.json" "$ref/rounds-table.json"
    cp "$work/single/table.csv" "$ref/rounds-table.csv"
  fi
  t="$work/table"
  tj0="$t/round-0000/slice-1/journal.jsonl"
  tj1="$t/round-0001/slice-1/journal.jsonl"
  out=$(submit_at "$table_at" 1 "$work/mark-table" -- \
    table "$t" --tasks 4 -- "${targs[@]}")
  echo "$out"
  grep -q "^plan-0=" <<<"$out" && grep -q "^plan-1=" <<<"$out" || fail "submit.sh table: no planning jobs"
  eval0=$(sed -n 's/^eval-0=//p' <<<"$out")
  # The first pass: slice 1 requeued at the chosen moment.
  requeue_at "$table_at" "$eval0" 1 "$work/mark-table" "[ \$(lines $tj0) -ge 40 ]" \
    "[ \$(lines $tj0) -ge 40 ]"
  # An adaptive round (submitted by the planning job after the first pass): its slice 1 requeued
  # once 10 of its 100 games are in its journal.
  eval1=$(await_job fk-eval-1)
  requeue_when "$eval1" 1 "[ \$(lines $tj1) -ge 10 ]"
  # Each planning job submits the next round's array and planning job, until the table is done.
  jobs=$(sed -n 's/^[a-z0-9-]*=//p' <<<"$out")
  for ((r = 1; ; ++r)); do
    # shellcheck disable=SC2086
    "$slurm" wait "$cluster" $jobs >"$work/states" || { cat "$work/states"; fail "table jobs did not all complete"; }
    ! grep -q '"done":true' "$t/plan.json" || break
    ((r < 20)) || fail "more than 20 rounds"
    jobs="$(job_id "fk-eval-$r") $(job_id "fk-plan-$((r + 1))")"
    [ -n "${jobs// /}" ] || fail "the planning job after round $((r - 1)) submitted nothing"
  done
  rounds=$(sed -n 's/.*"rounds":\([0-9]*\).*/\1/p' "$t/plan.json")
  ((rounds >= 3)) || fail "only $rounds rounds: no adaptive rounds to test"
  # One planning job and one array a round (a requeued task appends to its job's log).
  for ((r = 0; r <= rounds; ++r)); do
    n=$(find "$t/logs" -name "fk-plan-$r-*.out" | wc -l)
    ((n == 1)) || fail "$n planning jobs after round $((r - 1)) (fk-plan-$r), not one"
  done
  for ((r = 0; r < rounds; ++r)); do
    n=$(find "$t/logs" -name "fk-eval-$r-*_0.out" | wc -l)
    ((n == 1)) || fail "$n arrays for round $r (fk-eval-$r), not one"
  done
  for log in "$t/logs/fk-eval-0-${eval0}_1.out" "$t/logs/fk-eval-1-${eval1}_1.out"; do
    grep -q "restart 1" "$log" || fail "$log: the task was not restarted"
  done
  grep -q "resuming with" "$t/logs/fk-eval-1-${eval1}_1.out" ||
    fail "round 1's task 1 did not resume from its journal"
  case "$table_at" in
    midrun | journal*) grep -q "resuming with" "$t/logs/fk-eval-0-${eval0}_1.out" ||
      fail "task 1 did not resume from its journal" ;;
  esac
  cmp "$ref/rounds-table.json" "$t/table/table.json" || fail "the cluster's table.json differs"
  cmp "$ref/rounds-table.csv" "$t/table/table.csv" || fail "the cluster's table.csv differs"
  # A planner that finds a slice missing names it.
  mkdir -p "$work/partial"
  cp -r "$t/settings.json" "$t/round-0000" "$work/partial/"
  rm -r "$work/partial/round-0000/slice-3"
  "$bin" eval table --out "$work/partial" --plan 4 --round 0 "${targs[@]}" >/dev/null 2>"$work/err" &&
    fail "planned after a round with a slice missing"
  grep -q "round 0 slice 3/4 is missing" "$work/err" || fail "unclear error for a missing slice: $(cat "$work/err")"
  echo "table: $rounds rounds of 4 slices planned by Slurm jobs; first-pass slice 1 requeued at '$table_at', round 1's slice 1 mid-round; table.json and table.csv = the single process's, byte for byte"
fi

# --- 2. A self-play/train generation: 2 self-play tasks and the trainer ----------------------
sets=(--set run.seed=3 --set run.generations=1 --set selfplay.games=768 --set selfplay.shard_games=64
      --set selfplay.batch=16 --set selfplay.playout=builtin:nodes=300:noise=20 --set train.steps=30)
if [[ "$parts" == *" generation "* ]]; then
  sj="$work/run/selfplay/gen-0000/w000.journal"
  shard="$work/run/selfplay/gen-0000/w000-g000000000-n64.h5"
  out=$(submit_at "$selfplay_at" 0 "$work/mark-sp" -- \
    generations "$work/run" --selfplay-tasks 2 "${sets[@]}")
  echo "$out"
  sp_job=$(sed -n 's/^selfplay-0=//p' <<<"$out")
  train_job=$(sed -n 's/^train-0=//p' <<<"$out")
  requeue_at "$selfplay_at" "$sp_job" 0 "$work/mark-sp" "[ -f $shard ]" "[ \$(lines $sj) -ge 1 ]"
  "$slurm" wait "$cluster" "$sp_job" "$train_job" || fail "self-play/train jobs did not all complete"
  log="$work/run/logs/fk-selfplay-0-${sp_job}_0.out"
  grep -q "restart 1" "$log" || fail "self-play task 0 was not restarted"
  [ -f "$work/run/models/gen-0001.json" ] || fail "gen-0001 not published"
  if [ ! -f "$ref/gen-0001.ckpt" ]; then
    "$bin" pipeline --dir "$work/ref-run" "${sets[@]}" --set selfplay.workers=2 >/dev/null 2>&1
    cp "$work/ref-run/models/gen-0001.ckpt" "$ref/gen-0001.ckpt"
    cat "$work"/ref-run/selfplay/gen-0000/*.records >"$ref/records"
  fi
  cmp "$ref/gen-0001.ckpt" "$work/run/models/gen-0001.ckpt" ||
    fail "the network trained on the cluster differs from the one-machine pipeline's"
  cmp "$ref/records" <(cat "$work"/run/selfplay/gen-0000/*.records) ||
    fail "the cluster's self-play games differ from the one-machine pipeline's"
  games=$(cat "$work"/run/selfplay/gen-0000/*.records | wc -l)
  [ "$games" -eq 768 ] || fail "$games games in the shards, expected 768"
  echo "generation: self-play task 0 requeued at '$selfplay_at', restarted by Slurm; = one-machine pipeline: $games games, gen-0001 $(sed -n 's/.*"hash":"\([0-9a-f]*\)".*/\1/p' "$work/run/models/gen-0001.json")"
fi

# --- 3. A task that fails for good: the chain stops, naming it --------------------------------
if [[ "$parts" == *" failure "* ]]; then
  fsets=(--set run.seed=4 --set run.generations=2 --set selfplay.games=16 --set selfplay.shard_games=8
         --set selfplay.playout=builtin:nodes=50 --set train.steps=5 --set gating.games=0)
  out=$(FUSEKILAB_TEST_POINT=start:fail FUSEKILAB_TEST_TASK=1 \
    "$submit" generations "$work/broken" --selfplay-tasks 2 --retries 1 "${fsets[@]}")
  echo "$out"
  jobs=$(sed -n 's/^[a-z0-9-]*=//p' <<<"$out")
  sp0=$(sed -n 's/^selfplay-0=//p' <<<"$out")
  tr0=$(sed -n 's/^train-0=//p' <<<"$out")
  sp1=$(sed -n 's/^selfplay-1=//p' <<<"$out")
  tr1=$(sed -n 's/^train-1=//p' <<<"$out")
  # shellcheck disable=SC2086
  "$slurm" wait "$cluster" $jobs >"$work/states" && fail "a broken run completed"
  cat "$work/states"
  grep -q "^${sp0}_1 FAILED" "$work/states" || fail "self-play task 1 did not fail"
  grep -q "^${sp0}_0 COMPLETED" "$work/states" || fail "self-play task 0 did not complete"
  grep -q "^$tr0 FAILED 4:0" "$work/states" || fail "the trainer did not fail with exit 4"
  grep -q "^${sp1}.* CANCELLED" "$work/states" || fail "gen-0001's self-play was not cancelled"
  grep -q "^$tr1 CANCELLED" "$work/states" || fail "gen-0001's trainer was not cancelled"
  l="$work/broken/logs/fk-selfplay-0-${sp0}_1.out"
  grep -q "restart 1" "$l" || fail "the failing task was not retried"
  grep -q "FAILED for good" "$l" || fail "the failing task does not say it failed for good"
  tl="$work/broken/logs/fk-train-0-$tr0.out"
  grep -q "worker 1/2 of gen-0000: 0 of 8 games in shards" "$tl" ||
    fail "the trainer does not name the missing worker: $(cat "$tl")"
  echo "failure: task 1 retried once, failed for good; the trainer named it; gen-0001 cancelled"
fi
echo "slurm: all checks passed in $((SECONDS - start)) s"
