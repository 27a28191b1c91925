# What the command-line tests share: a scratch directory $dir (removed on exit), fail,
# expect_error and stop_at. Sourced by the test scripts.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}
# expect_error TEXT COMMAND...: the command fails with exit 2 and one line on stderr holding TEXT.
expect_error() {
  local want="$1"
  shift
  local rc=0
  "$@" >"$dir/out" 2>"$dir/err" || rc=$?
  [ "$rc" = 2 ] || fail "exit $rc, not 2, for: $* ($(cat "$dir/err"))"
  grep -qF -- "$want" "$dir/err" || fail "unclear error for '$*': $(cat "$dir/err")"
  [ "$(wc -l <"$dir/err")" = 1 ] || fail "not one line for '$*': $(cat "$dir/err")"
}
# Runs CMD... in the background with fault point POINT; once the point is reached (its mark
# exists), sends SIGTERM (and, for a :hang point, SIGKILL a second later); checks the exit status.
stop_at() {
  local point="$1"
  shift
  local mark="$dir/mark-${point//:/-}"
  rm -f "$mark"
  FUSEKILAB_TEST_POINT="$point" FUSEKILAB_TEST_MARK="$mark" "$@" >"$dir/out" 2>&1 &
  local pid=$! rc
  # Waits as long as the process lives; the ctest timeout bounds a process that never gets there.
  while [ ! -f "$mark" ]; do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" || true; fail "exited before $point: $(tail -3 "$dir/out")"; }
    sleep 0.02
  done
  local t0=$(date +%s%N)
  kill -TERM "$pid"
  if [[ "$point" == *:hang ]]; then
    sleep 1
    kill -0 "$pid" 2>/dev/null || fail "a hung process ended on SIGTERM"
    kill -KILL "$pid"
    wait "$pid" && rc=0 || rc=$?
    [ "$rc" -eq 137 ] || fail "killed at $point: exit $rc, expected 137"
    echo "$point: killed (SIGKILL)"
  else
    wait "$pid" && rc=0 || rc=$?
    [ "$rc" -eq 143 ] || fail "stopped at $point: exit $rc, expected 143: $(tail -3 "$dir/out")"
    grep -q "stopped by SIGTERM" "$dir/out" || fail "no stop message: $(tail -3 "$dir/out")"
    echo "$point: stopped by SIGTERM, exit 143 after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  fi
}
