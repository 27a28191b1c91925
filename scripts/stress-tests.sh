#!/usr/bin/env bash
# Stress: the tests that involve processes, signals and a scheduler, many times (not run by CI).
#   1. the Slurm requeue test (tests/slurm_test.sh) at every moment, N times each, with one
#      CPU-bound process beside it (the load under which requeues used to fail): self-play at
#      start, game, midrun, commit, commit:hang, journal, journal:hang; the table slice at start,
#      game, midrun, journal; the task that fails for good;
#   2. the whole suite, `ctest -j 2 --schedule-random`, M times.
# Prints the pass count of each and exits 1 if anything failed; the logs of failures are kept in
# build/stress/.
#
#   bash scripts/stress-tests.sh [--requeues N] [--suites M] [--no-load]   (defaults: 4, 5)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
requeues=4 suites=5 load=1
while (($#)); do
  case "$1" in
    --requeues) requeues="$2"; shift 2 ;;
    --suites) suites="$2"; shift 2 ;;
    --no-load) load=""; shift ;;
    *) echo "stress-tests.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "stress-tests.sh: run as root (the Slurm test cluster)" >&2; exit 2; }
bash scripts/setup.sh >/dev/null
bash scripts/build.sh
bin="$root/build/cli/fusekilab"
logs="$root/build/stress"
rm -rf "$logs"
mkdir -p "$logs"
ref=$(mktemp -d /tmp/fkstress.XXXX)  # the one-machine references, computed once
hog=""
cleanup() {
  [ -z "$hog" ] || kill "$hog" 2>/dev/null || true
  rm -rf "$ref"
}
trap cleanup EXIT
start=$SECONDS
summary=()
failed=0

# run_many NAME COUNT ENV... : runs the Slurm test COUNT times with the environment given.
run_many() {
  local name="$1" count="$2" pass=0 i t0
  shift 2
  for ((i = 1; i <= count; ++i)); do
    t0=$SECONDS
    if env "$@" SLURM_TEST_REF="$ref" bash tests/slurm_test.sh "$bin" "$root" >"$logs/run.log" 2>&1; then
      pass=$((pass + 1))
    else
      mv "$logs/run.log" "$logs/fail-${name//[:\/ ]/-}-$i.log"
      failed=1
    fi
    echo "  $name $i/$count: $([ -f "$logs/run.log" ] && echo pass || echo FAIL) ($((SECONDS - t0)) s)"
    rm -f "$logs/run.log"
  done
  summary+=("$(printf '%-30s %d/%d' "$name" "$pass" "$count")")
}

if [ -n "$load" ]; then
  (while :; do :; done) &
  hog=$!
  echo "== Slurm requeues, $requeues per moment, beside one CPU-bound process"
else
  echo "== Slurm requeues, $requeues per moment"
fi
for m in start game midrun commit commit:hang journal journal:hang; do
  run_many "self-play requeue at $m" "$requeues" SLURM_TEST_PARTS=generation SLURM_TEST_SELFPLAY_AT="$m"
done
for m in start game midrun journal; do
  run_many "table requeue at $m" "$requeues" SLURM_TEST_PARTS=table SLURM_TEST_TABLE_AT="$m"
done
run_many "task failing for good" "$requeues" SLURM_TEST_PARTS=failure
[ -z "$hog" ] || { kill "$hog"; wait "$hog" 2>/dev/null || true; hog=""; }

echo "== The whole suite in random order, $suites times (ctest -j 2 --schedule-random)"
pass=0
for ((i = 1; i <= suites; ++i)); do
  t0=$SECONDS
  if ctest --test-dir build -j 2 --schedule-random --output-on-failure >"$logs/suite.log" 2>&1; then
    pass=$((pass + 1))
    echo "  suite $i/$suites: pass ($((SECONDS - t0)) s, $(grep -o '[0-9]* tests passed\|tests passed.*' "$logs/suite.log" | tail -1))"
  else
    mv "$logs/suite.log" "$logs/fail-suite-$i.log"
    failed=1
    echo "  suite $i/$suites: FAIL ($((SECONDS - t0)) s): $(grep -A20 'tests failed' "$logs/fail-suite-$i.log" | grep -E '^\s+[0-9]+ - ' | tr -s ' ' | tr '\n' ';')"
  fi
  rm -f "$logs/suite.log"
done
summary+=("$(printf '%-30s %d/%d' "random-order suite" "$pass" "$suites")")

echo "== stress: $(( (SECONDS - start) / 60 )) min"
printf '%s\n' "${summary[@]}"
((failed == 0)) || { echo "stress: failures (logs in $logs)"; exit 1; }
echo "stress: all passed"
