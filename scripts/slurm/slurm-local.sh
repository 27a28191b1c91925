#!/usr/bin/env bash
# A real single-node Slurm cluster on this machine, for tests and for trying the job scripts:
# Debian's slurmctld and slurmd with a private munged, all configuration, state and logs under
# one short directory; nothing in /etc and no systemd or cgroups. Run as root; the packages
# (slurmctld slurmd slurm-client munge) come with scripts/setup.sh.
#
#   slurm-local.sh start DIR          start the cluster in DIR; prints "export SLURM_CONF=..."
#   slurm-local.sh wait DIR JOBID...  wait until the jobs end; exit 1 unless every task COMPLETED
#                                     (gives up after SLURM_LOCAL_WAIT seconds, default 600, in
#                                     which neither the jobs' states nor the files under
#                                     SLURM_LOCAL_PROGRESS, when set, changed)
#   slurm-local.sh states DIR JOBID   one line per task: id state exit-code
#   slurm-local.sh stop DIR           cancel jobs, stop the daemons, kill what they left
#
# SLURM_LOCAL_CPUS=N declares N CPUs (oversubscribing the machine) so that N one-CPU tasks run at
# once. A requeued job starts again once its old credential has expired: the cluster's credential
# lifetime is SLURM_LOCAL_CRED_EXPIRE seconds (default 6; Slurm's default is 120), and the
# scheduler looks at pending jobs every second. Slurm sends SIGTERM to a job it stops and SIGKILL
# SLURM_LOCAL_KILL_WAIT seconds later (default 5; Slurm's default KillWait is 30).
# Two clusters may run side by side in different directories: each takes its own port pair
# (chosen under a lock). Facts behind each step: ../shared/docs/slurm-notes.md.
set -euo pipefail

die() {
  echo "slurm-local: $*" >&2
  exit 1
}

# Exit status of a command run with a deadline (scontrol and friends block for ~10 s when the
# controller is down).
q() { timeout 15 "$@"; }

check_dir() {
  local dir="$1"
  [ -n "$dir" ] || die "no directory given"
  # munged and slurmstepd put Unix sockets (at most 107 bytes) in it.
  [ "${#dir}" -le 70 ] || die "$dir: over 70 characters (socket paths are limited); use a short path such as /tmp/slurm.XXXX"
  case "$dir" in *[[:space:]]*) die "'$dir': whitespace in the path" ;; esac
}

# Alive and not a zombie (PID 1 here reaps orphans late, so kill -0 is not enough).
alive() {
  local pid="$1" state
  [ -r "/proc/$pid/stat" ] || return 1
  state=$(sed 's/^.*) //' "/proc/$pid/stat" | cut -d' ' -f1)
  [ "$state" != Z ] && [ "$state" != X ]
}

port_free() { ! ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }

cmd_start() {
  local dir="$1"
  check_dir "$dir"
  [ "$(id -u)" -eq 0 ] || die "run as root (the cluster's SlurmUser is root)"
  for b in slurmctld slurmd munged mungekey sbatch; do
    command -v "$b" >/dev/null || [ -x "/usr/sbin/$b" ] || die "$b not found; run scripts/setup.sh (it installs slurmctld slurmd slurm-client munge)"
  done
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  check_dir "$dir"
  [ ! -e "$dir/slurm.conf" ] || die "$dir already holds a cluster; stop it first"
  # munged checks that the socket's directory is reachable by all.
  chmod 755 "$dir"
  mkdir -p "$dir"/{munge,state,spool,pids,log}
  chmod 755 "$dir/munge"

  local host cpus mem_kb mem_mb port
  host=$(hostname -s)
  cpus="${SLURM_LOCAL_CPUS:-$(nproc)}"
  mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)
  mem_mb=$((mem_kb / 1024 * 9 / 10))
  # Two clusters starting at once must not take the same ports: the choice and the daemons' start
  # happen under one machine-wide lock (released when this script ends or stop_start_lock runs).
  exec 9>/tmp/fusekilab-slurm-local.lock
  flock -w 60 9 || die "another slurm-local.sh start holds /tmp/fusekilab-slurm-local.lock"
  port=16817
  while ! port_free "$port" || ! port_free $((port + 1)); do
    port=$((port + 10))
    [ "$port" -lt 17817 ] || die "no free port pair between 16817 and 17817"
  done

  /usr/sbin/mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null 2>&1 ||
    mungekey --create --keyfile="$dir/munge/munge.key"
  chmod 400 "$dir/munge/munge.key"
  : >"$dir/plugstack.conf"
  local overrides=""
  [ "$cpus" -le "$(nproc)" ] || overrides="SlurmdParameters=config_overrides"
  cat >"$dir/slurm.conf" <<EOF
# fusekilab's single-node test cluster (scripts/slurm/slurm-local.sh)
ClusterName=fusekilab
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket,cred_expire=${SLURM_LOCAL_CRED_EXPIRE:-6}
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/pids/slurmctld.pid
SlurmdPidFile=$dir/pids/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=batch_sched_delay=0,sched_interval=1,bf_interval=1
KillWait=${SLURM_LOCAL_KILL_WAIT:-5}
MinJobAge=3600
JobRequeue=1
ReturnToService=2
MpiDefault=none
$overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$dir/slurm.conf"
  # Every daemon (and so every job) carries this marker; stop finds leftovers by it.
  export SLURM_LOCAL_DAEMON="$dir"
  /usr/sbin/munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/pids/munged.pid" --seed-file="$dir/munge/munge.seed" \
    --log-file="$dir/log/munged.log" 2>>"$dir/log/start.log" 9>&- ||
    die "munged did not start: $(tail -3 "$dir/log/munged.log" "$dir/log/start.log" 2>/dev/null)"
  # The daemons must not inherit the start lock (fd 9).
  /usr/sbin/slurmctld </dev/null >>"$dir/log/start.log" 2>&1 9>&- ||
    die "slurmctld did not start: $(tail -5 "$dir/log/slurmctld.log" 2>/dev/null)"
  /usr/sbin/slurmd -N "$host" </dev/null >>"$dir/log/start.log" 2>&1 9>&- ||
    die "slurmd did not start: $(tail -5 "$dir/log/slurmd.log" 2>/dev/null)"

  local deadline=$((SECONDS + 30)) state=""
  while ((SECONDS < deadline)); do
    state=$(q sinfo -h -N -o '%T' 2>/dev/null | head -1 || true)
    case "$state" in idle | mixed | allocated) break ;; esac
    sleep 0.2
  done
  case "$state" in
    idle | mixed | allocated) ;;
    *)
      echo "slurm-local: the node did not come up (state '$state'); logs:" >&2
      tail -5 "$dir"/log/*.log >&2 || true
      cmd_stop "$dir" >/dev/null 2>&1 || true
      exit 1
      ;;
  esac
  exec 9>&-
  echo "export SLURM_CONF=$dir/slurm.conf"
}

# One line per task of JOBID: "<id> <state> <exit code>", from scontrol (no accounting here).
cmd_states() {
  local dir="$1" job="$2"
  export SLURM_CONF="$dir/slurm.conf"
  # (A controller too busy to answer gives no line, not an error: callers poll again.)
  { q scontrol -o show job "$job" 2>/dev/null || true; } | tr ' ' '\n' | awk -F= '
    $1 == "JobId" { id = $2 } $1 == "ArrayJobId" { aj = $2 } $1 == "ArrayTaskId" { at = $2 }
    $1 == "JobState" { st = $2 }
    $1 == "ExitCode" { print (at != "" ? aj "_" at : id), st, $2; id = ""; aj = ""; at = "" }'
}

# A fingerprint of what the jobs are doing: their states, and the files under SLURM_LOCAL_PROGRESS.
progress_mark() {
  local jobs="$1"
  q squeue -h -j "$jobs" -o '%i %T' 2>/dev/null || true
  # (find fails when a file vanishes mid-walk, as temporary files do: not an error here.)
  [ -z "${SLURM_LOCAL_PROGRESS:-}" ] ||
    { find "$SLURM_LOCAL_PROGRESS" -type f -printf '%p %s\n' 2>/dev/null || true; } | sort | cksum
}

cmd_wait() {
  local dir="$1"
  shift
  export SLURM_CONF="$dir/slurm.conf"
  local quiet_limit="${SLURM_LOCAL_WAIT:-600}" quiet_since=$SECONDS
  local jobs seen="" now
  jobs=$(
    IFS=,
    echo "$*"
  )
  while ((SECONDS - quiet_since < quiet_limit)); do
    local left
    left=$(q squeue -h -j "$jobs" -o '%i' 2>/dev/null | wc -l) || left=1
    [ "$left" -gt 0 ] || break
    now=$(progress_mark "$jobs")
    if [ "$now" != "$seen" ]; then
      seen="$now"
      quiet_since=$SECONDS
    fi
    sleep 0.5
  done
  local bad=0
  for job in "$@"; do
    while read -r id state code; do
      echo "$id $state $code"
      [ "$state" = COMPLETED ] && [ "$code" = 0:0 ] || bad=1
    done < <(cmd_states "$dir" "$job")
  done
  ((SECONDS - quiet_since < quiet_limit)) || {
    echo "slurm-local: jobs $jobs still running, with no progress for ${quiet_limit} s" >&2
    return 1
  }
  return $bad
}

cmd_stop() {
  local dir="$1"
  check_dir "$dir"
  dir=$(cd "$dir" 2>/dev/null && pwd) || return 0
  export SLURM_CONF="$dir/slurm.conf"
  if [ -f "$dir/slurm.conf" ]; then
    q scancel --full -u root >/dev/null 2>&1 || true
    # scontrol shutdown leaves running jobs' slurmstepd alive; they are killed below.
    q scontrol shutdown >/dev/null 2>&1 || true
  fi
  local deadline=$((SECONDS + 5))
  for name in slurmd slurmctld munged; do
    local f="$dir/pids/$name.pid" pid
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    # Only our own daemon: its command line must be the program we started.
    grep -q "$name" "/proc/$pid/cmdline" 2>/dev/null || continue
    while alive "$pid" && ((SECONDS < deadline)); do
      kill -TERM "$pid" 2>/dev/null || true
      sleep 0.1
    done
    ! alive "$pid" || kill -KILL "$pid" 2>/dev/null || true
  done
  # Leftovers: processes carrying this cluster's daemon marker, and jobs of this cluster (a
  # SLURM_JOB_ID with its SLURM_CONF; the caller has the SLURM_CONF but no job id).
  for env in /proc/[0-9]*/environ; do
    local pid="${env#/proc/}" vars
    pid="${pid%/environ}"
    [ "$pid" != $$ ] || continue
    vars=$( { tr '\0' '\n' <"$env"; } 2>/dev/null) || continue
    if grep -qxF "SLURM_LOCAL_DAEMON=$dir" <<<"$vars" ||
      { grep -qxF "SLURM_CONF=$dir/slurm.conf" <<<"$vars" && grep -q "^SLURM_JOB_ID=" <<<"$vars"; }; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  rm -f "$dir/slurm.conf"
  echo "slurm-local: stopped $dir"
}

case "${1:-}" in
  start) cmd_start "${2:-}" ;;
  wait) cmd_wait "${2:?DIR}" "${@:3}" ;;
  states) cmd_states "${2:?DIR}" "${3:?JOBID}" ;;
  stop) cmd_stop "${2:-}" ;;
  *)
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
