# Sourced by every job script (scripts/slurm/*.sbatch): fk_run runs fusekilab as the job's work.
#
# Stops. Slurm stops a job (scontrol requeue, preemption, scancel, the time limit) with SIGTERM to
# every process of the job, then SIGKILL after KillWait (30 s by default). fusekilab stops on
# SIGTERM within a game or a training step: it keeps every finished game (journal) and saves
# where training stopped, releases its locks and exits 143. This script passes the signal on and
# waits for that exit instead of dying first. A requeued task runs again from the start of its
# script once Slurm's credential lifetime has passed (AuthInfo=cred_expire, 120 s by default) and
# resumes what it had finished: the same games and the same network as without the requeue.
#
# Failures. A failure that is not a stop (exit neither 0 nor 128+signal) requeues the task itself,
# up to RETRIES times (default 2; SLURM_RESTART_COUNT counts every restart, requeues included).
# After that, or at once for exit 4 (the trainer found a generation's self-play incomplete:
# retrying cannot help), the task fails for good. Jobs that depend on it with afterany (the
# trainer, the table merge) then start, find the missing work and fail naming it; jobs behind
# them (afterok, --kill-on-invalid-dep=yes) are cancelled: the chain stops visibly instead of
# waiting forever.
fk_run() {
  local bin="${FUSEKILAB:-fusekilab}" rc=0 pid
  "$bin" "$@" &
  pid=$!
  trap 'kill -TERM "$pid" 2>/dev/null || true' TERM INT
  while :; do
    wait "$pid" && rc=0 || rc=$?
    kill -0 "$pid" 2>/dev/null || break  # else a signal interrupted the wait: wait again
  done
  trap - TERM INT
  if [ "$rc" -eq 0 ]; then
    return 0
  fi
  if [ "$rc" -gt 128 ]; then
    echo "fk_run: fusekilab stopped by signal $((rc - 128)) (exit $rc); a requeued or preempted task runs again and resumes"
    exit "$rc"
  fi
  local restarts="${SLURM_RESTART_COUNT:-0}" retries="${RETRIES:-2}"
  # This task alone: an array task's SLURM_JOB_ID may also be the whole array's id.
  local me="${SLURM_JOB_ID:-}"
  [ -z "${SLURM_ARRAY_TASK_ID:-}" ] || me="${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}"
  if [ "$rc" -ne 4 ] && [ -n "$me" ] && ((restarts < retries)); then
    echo "fk_run: fusekilab failed (exit $rc); requeueing the task (restart $((restarts + 1)) of at most $retries)"
    if scontrol requeue "$me"; then
      sleep 3600 &  # Slurm ends this script as it requeues the task
      wait $! || true
    fi
  fi
  echo "fk_run: FAILED for good: fusekilab exit $rc after $restarts restarts (RETRIES=$retries)"
  exit "$rc"
}
