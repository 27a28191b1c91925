#!/usr/bin/env bash
# Submits fusekilab work to Slurm as ordinary jobs over a shared run directory (docs/cluster.md).
#
#   submit.sh generations RUN_DIR [options]
#       Starts the run if RUN_DIR has none (fusekilab init, here), then for each generation from
#       the newest published network up to --generations: a self-play array, and a trainer job
#       that starts once the array has ended (afterany), checks that every worker's games are in
#       shards (naming the missing ones, exit 4, if not) and publishes the next network; the next
#       generation's array depends on that trainer (afterok). With --table-tasks M, the final
#       network's king-pair table is measured by arrays of M tasks in adaptive rounds (below).
#       Every job is submitted with --kill-on-invalid-dep=yes: when a job fails for good, the jobs
#       behind it are cancelled instead of waiting forever. A failing task requeues itself up to
#       --retries times (scripts/slurm/task.sh); a requeued task resumes its work.
#   submit.sh table EVAL_DIR --tasks M [options] -- EVAL-TABLE-ARGS...
#       The king-pair table in adaptive rounds, the same table as one eval table process: a
#       planning job (plan.sbatch: eval table --plan M) writes round 0's schedule (the first
#       pass), an array of M tasks plays it (eval.sbatch: eval table --round 0 --shard i/M), and a
#       planning job that starts once the array has ended (afterany) checks that every slice
#       finished (naming a missing one), writes the next round's schedule and submits its array
#       and the next planning job, until the band is precise or the budget spent: the last one
#       writes EVAL_DIR/table. Run again on an unfinished table, it submits from the round
#       EVAL_DIR/plan.json names (only once the earlier jobs have ended).
#
# Options:
#   --config FILE, --set KEY=VALUE   the run's config, for a new run (as fusekilab init)
#   --generations K                  publish networks up to gen-K (default: run.generations)
#   --selfplay-tasks N               self-play tasks per generation (default 4)
#   --tasks M, --table-tasks M       evaluation tasks
#   --table-args "ARGS"              eval table arguments for --table-tasks (e.g. "--first-pass 8")
#   --cpus-per-task C                CPUs of each task (default 1; threads follow)
#   --trainer-gpus G                 GPUs of the trainer (default 0: CPU); it trains on cuda
#   --worker-gpus G                  GPUs of each self-play and evaluation task (default 0)
#   --partition P, --time T, --account A   passed to every sbatch
#   --after JOBID                    the first job waits for this one (afterok)
#   --retries R                      restarts of a failing task before it fails for good (default 2)
#   --logs DIR                       where job output goes (default: RUN_DIR/logs or EVAL_DIR/logs)
#   --dry-run                        print the sbatch commands instead of running them
#
# Prints one line per job: NAME=JOBID (selfplay-G, train-G, plan-R, eval-R).
# The fusekilab binary is $FUSEKILAB (default: the one on PATH), resolved to an absolute path.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() {
  echo "submit.sh: $*" >&2
  exit 2
}

mode="${1:-}"
[ "$mode" = generations ] || [ "$mode" = table ] || die "usage: submit.sh generations RUN_DIR [options] | table EVAL_DIR --tasks M [options] -- ARGS"
dir="${2:-}"
[ -n "$dir" ] || die "no directory given"
shift 2

config="" sets=() until="" sp_tasks=4 tasks="" table_args="" cpus=1 trainer_gpus=0 worker_gpus=0
common=() common_args=() after="" logs="" dry="" retries=2
eval_args=()
while (($#)); do
  case "$1" in
    --config) config="$2"; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    --generations) until="$2"; shift 2 ;;
    --selfplay-tasks) sp_tasks="$2"; shift 2 ;;
    --tasks | --table-tasks) tasks="$2"; shift 2 ;;
    --table-args) table_args="$2"; shift 2 ;;
    --cpus-per-task) cpus="$2"; shift 2 ;;
    --trainer-gpus) trainer_gpus="$2"; shift 2 ;;
    --worker-gpus) worker_gpus="$2"; shift 2 ;;
    --partition | --time | --account) common+=("$1=$2"); common_args+=("$1" "$2"); shift 2 ;;
    --after) after="$2"; shift 2 ;;
    --retries) retries="$2"; shift 2 ;;
    --logs) logs="$2"; shift 2 ;;
    --dry-run) dry=1; shift ;;
    --) shift; eval_args=("$@"); break ;;
    *) die "unknown option '$1'" ;;
  esac
done
for n in "$sp_tasks" "$cpus" "$trainer_gpus" "$worker_gpus" "$retries" ${tasks:+"$tasks"} ${until:+"$until"}; do
  [[ "$n" =~ ^[0-9]+$ ]] || die "'$n' is not a number"
done
((sp_tasks >= 1)) || die "--selfplay-tasks must be at least 1"
((cpus >= 1)) || die "--cpus-per-task must be at least 1"

bin="${FUSEKILAB:-fusekilab}"
bin=$(command -v "$bin") || die "fusekilab not found (set FUSEKILAB to the binary)"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
export FUSEKILAB="$bin"
# The job scripts source task.sh from here (Slurm runs a copy of each script from its spool).
export FK_SLURM_DIR="$here" RETRIES="$retries"
if [ -n "$dry" ]; then
  dir=$(realpath -m "$dir")
  logs="${logs:-$dir/logs}"
else
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  logs="${logs:-$dir/logs}"
  mkdir -p "$logs"
fi

# The options a planning job passes on when it submits the next round (submit.sh table).
passon=(--cpus-per-task "$cpus" --worker-gpus "$worker_gpus" --retries "$retries" --logs "$logs"
        "${common_args[@]}")

# sbatch NAME [sbatch options] SCRIPT: prints the job id.
submit() {
  local name="$1"
  shift
  local out="$logs/%x-%j.out"
  [[ " $* " != *" --array="* ]] || out="$logs/%x-%A_%a.out"
  local cmd=(sbatch --parsable --job-name="fk-$name" --chdir="$dir" --cpus-per-task="$cpus"
             --output="$out" --kill-on-invalid-dep=yes "${common[@]}" "$@")
  if [ -n "$dry" ]; then
    local vars=""
    for v in RUN_DIR GENERATION UNTIL DEVICE NO_WAIT EVAL_DIR EVAL_ARGS ROUND TASKS AFTER SUBMIT_ARGS; do
      [ -z "${!v:-}" ] || vars+="$v=${!v} "
    done
    echo "+ $vars${cmd[*]}" >&2
    echo "DRY$RANDOM"
  else
    "${cmd[@]}" | cut -d';' -f1
  fi
}
gpus() { (($1 > 0)) && echo "--gres=gpu:$1" || true; }
dep() { [ -n "$1" ] && echo "--dependency=afterok:$1" || true; }
# After job $1 has ended, however (the dependent job checks that the work is complete), and, if
# given, after job $2 succeeded (a trainer also waits for the previous trainer).
dep_any() { [ -n "$1" ] && echo "--dependency=afterany:$1${2:+,afterok:$2}" || true; }

# The table in adaptive rounds, from where EVAL_DIR/plan.json (the planner's) says it stands: for
# a new table the planning job of round 0 (the first pass) first; then the planned round's array
# and the planning job after it, which submits the next round the same way.
submit_table() {  # EVAL_DIR TASKS AFTER ARGS...
  local edir="$1" n="$2" prev="$3"
  shift 3
  local device="" plan="$edir/plan.json" round slices array planner
  ((worker_gpus == 0)) || device=cuda
  local pass="--tasks $n ${passon[*]}"
  if [ -f "$plan" ] && grep -q '"done":true' "$plan"; then
    echo "submit.sh: $edir: the table is done ($edir/table)" >&2
    return 0
  fi
  if [ -f "$plan" ]; then
    round=$(sed -n 's/.*"round":\([0-9]*\).*/\1/p' "$plan")
    slices=$(sed -n 's/.*"slices":\([0-9]*\).*/\1/p' "$plan")
    [ -n "$round" ] && [ -n "$slices" ] || die "$plan: not a plan (remove it to start again)"
  else
    planner=$(EVAL_DIR="$edir" EVAL_ARGS="$*" TASKS="$n" AFTER=-1 SUBMIT_ARGS="$pass" cpus=1 \
      submit plan-0 $(dep "$prev") "$here/plan.sbatch")
    echo "plan-0=$planner"
    round=0 slices="$n" prev="$planner"
  fi
  array=$(EVAL_DIR="$edir" EVAL_ARGS="$*" ROUND="$round" DEVICE="$device" \
    submit "eval-$round" --array="0-$((slices - 1))" $(gpus "$worker_gpus") $(dep "$prev") \
    "$here/eval.sbatch")
  echo "eval-$round=$array"
  planner=$(EVAL_DIR="$edir" EVAL_ARGS="$*" TASKS="$n" AFTER="$round" SUBMIT_ARGS="$pass" cpus=1 \
    submit "plan-$((round + 1))" $(dep_any "$array") "$here/plan.sbatch")
  echo "plan-$((round + 1))=$planner"
}

if [ "$mode" = table ]; then
  [ -n "$tasks" ] && ((tasks >= 1)) || die "table: --tasks M (at least 1) is required"
  ((${#eval_args[@]})) || die "table: give the eval table arguments after --"
  submit_table "$dir" "$tasks" "$after" "${eval_args[@]}"
  exit 0
fi

# generations
init=(init --dir "$dir" "${sets[@]}")
[ -z "$config" ] || init+=(--config "$config")
latest="$dir/models/latest.json"
if [ -n "$dry" ] && [ ! -f "$latest" ]; then
  echo "+ $bin ${init[*]}" >&2
  [ -n "$until" ] || die "--dry-run on a new run needs --generations"
  first=0
else
  if [ ! -f "$dir/config.toml" ] || [ -n "$config" ] || ((${#sets[@]})); then
    "$bin" "${init[@]}" >&2
  fi
  [ -f "$latest" ] || die "$latest: no published network"
  first=$(sed -n 's/.*"generation":\([0-9]*\).*/\1/p' "$latest")
  [ -n "$until" ] || until=$(sed -n 's/^generations = \([0-9]*\)$/\1/p' "$dir/config.toml")
fi
((first < until)) || { echo "submit.sh: gen-$first is published; nothing to do up to $until" >&2; exit 0; }

prev="$after"
sp_device="" tr_device=""
((worker_gpus == 0)) || sp_device=cuda
((trainer_gpus == 0)) || tr_device=cuda
for ((g = first; g < until; ++g)); do
  sp=$(RUN_DIR="$dir" GENERATION="$g" DEVICE="$sp_device" \
    submit "selfplay-$g" --array="0-$((sp_tasks - 1))" $(gpus "$worker_gpus") $(dep "$prev") \
    "$here/selfplay.sbatch")
  echo "selfplay-$g=$sp"
  tr=$(RUN_DIR="$dir" UNTIL="$((g + 1))" DEVICE="$tr_device" NO_WAIT=1 \
    submit "train-$g" $(gpus "$trainer_gpus") $(dep_any "$sp" "$prev") "$here/train.sbatch")
  echo "train-$g=$tr"
  prev="$tr"
done
if [ -n "$tasks" ]; then
  rules=$(sed -n 's/^rules = "\(.*\)"$/\1/p' "$dir/config.toml" 2>/dev/null || true)
  rules="${rules:-balance}"
  read -r -a targs <<<"$table_args"
  submit_table "$dir/table-gen-$(printf %04d "$until")" "$tasks" "$prev" \
    --network "$dir/models/gen-$(printf %04d "$until").ckpt" --rules "$rules" "${targs[@]}"
fi
