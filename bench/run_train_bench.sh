#!/usr/bin/env bash
# The training-step benchmark in both languages, with the same settings: the C++ network update
# (bench/train_bench.cpp) against the same update in Python PyTorch (bench/train_bench.py), for
# each thread count, with the ratio C++/Python; plus the full C++ Trainer::step once per thread
# count. Figures go in docs/benchmarks.md ("Trainer").
#
#   bench/run_train_bench.sh [--threads 1,2] [--rounds R] [--build DIR] [--no-trainer]
#                            [--export-check DIR]
#                            [train_bench options: --channels C --blocks B --batch N --steps S
#                             --warmup W --repeats R --seed S; --games G (C++ only)]
#
# Per thread count: one C++ run with the full Trainer::step, then R rounds (default 3) of a C++
# update run followed by a Python update run. A round's ratio compares two runs a few seconds
# apart, so a machine whose speed drifts (other jobs, a shared host) biases it less; the summary
# gives the best figure of each side over the rounds and the median of the rounds' ratios.
# After each run, "others" is the share of the machine's CPUs that other processes used meanwhile
# (from /proc/stat and /usr/bin/time): above a few percent, that run's figure is not clean; with
# 2 threads on 2 cores even a little load can halve a figure (OpenMP waits at every barrier).
#
# The Python side needs Debian's python3-torch (apt-get install -y python3-torch) under
# /usr/bin/python3 (override with PYTHON=...); without it only the C++ figures are printed.
# --export-check DIR: also checks the TorchScript export in Python (see train_bench.py).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build"
threads_list="1,2"
rounds=3
python="${PYTHON:-/usr/bin/python3}"
export_dir=""
trainer=1
games=()
common=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --threads) threads_list="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --no-trainer) trainer=0; shift ;;
    --games) games=(--games "$2"); shift 2 ;;
    --export-check) export_dir="$2"; shift 2 ;;
    --channels|--blocks|--batch|--steps|--warmup|--repeats|--seed) common+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "run_train_bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

bin="$build/bench/train_bench"
if [[ ! -x "$bin" ]]; then
  echo "run_train_bench.sh: $bin not found; build it: ninja -C $build train_bench" >&2
  exit 1
fi
have_python=1
if ! "$python" -c 'import torch' 2>/dev/null; then
  have_python=0
  echo "run_train_bench.sh: no PyTorch under $python (apt-get install -y python3-torch);" \
       "C++ figures only" >&2
fi

cores="$(nproc)"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $cores core(s)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

busy_jiffies() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

# run OUT CMD...: runs CMD, output to the terminal and to OUT, then prints the others' CPU share.
run() {
  local out="$1"
  shift
  if [[ ! -x /usr/bin/time ]]; then
    "$@" | tee "$out"
    return
  fi
  local b0 b1
  b0="$(busy_jiffies)"
  /usr/bin/time -f '%U %S %e' -o "$work/time" "$@" | tee "$out"
  b1="$(busy_jiffies)"
  awk -v b="$((b1 - b0))" -v hz="$(getconf CLK_TCK)" -v cores="$cores" '
    { others = (b / hz - $1 - $2) / (cores * $3); if (others < 0) others = 0
      printf "  (others: %.1f%% of the CPUs during this run)\n", 100 * others }' "$work/time"
}

result() { sed -n "s/^RESULT $1 //p" "$2"; }
best() { sort -g | tail -1; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

summary=()
IFS=',' read -r -a thread_counts <<<"$threads_list"
for t in "${thread_counts[@]}"; do
  trainer_rate=""
  if [[ $trainer == 1 ]]; then
    echo
    run "$work/full" "$bin" --threads "$t" "${common[@]}" "${games[@]}"
    trainer_rate="$(result cpp_trainer_step "$work/full")"
  fi
  : >"$work/cpp_rates"
  : >"$work/py_rates"
  : >"$work/ratios"
  for ((r = 1; r <= rounds; ++r)); do
    echo
    echo "--- threads $t, round $r of $rounds"
    run "$work/cpp" "$bin" --threads "$t" "${common[@]}" --no-trainer
    cpp="$(result cpp_update "$work/cpp")"
    echo "$cpp" >>"$work/cpp_rates"
    if [[ $have_python == 1 ]]; then
      run "$work/py" "$python" "$here/train_bench.py" --threads "$t" "${common[@]}"
      py="$(result python_update "$work/py")"
      echo "$py" >>"$work/py_rates"
      awk -v a="$cpp" -v b="$py" 'BEGIN { printf "%.3f\n", a / b }' | tee -a "$work/ratios" |
        sed 's/^/  round ratio C++\/Python: /'
    fi
  done
  line="threads $t: C++ update $(best <"$work/cpp_rates") samples/s"
  if [[ $have_python == 1 ]]; then
    line+=", Python update $(best <"$work/py_rates") samples/s"
    line+=", C++/Python median of rounds $(median <"$work/ratios")"
    line+=" ($(paste -sd' ' "$work/ratios"))"
  fi
  [[ -n $trainer_rate ]] && line+="; C++ full Trainer::step ${trainer_rate} samples/s"
  summary+=("$line")
done

if [[ -n $export_dir ]]; then
  echo
  "$bin" "${common[@]}" --export-check "$export_dir"
  if [[ $have_python == 1 ]]; then
    "$python" "$here/train_bench.py" "${common[@]}" --export-check "$export_dir"
  fi
fi

echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "summary (samples/s, best run of each side; ratio = median over the rounds):"
printf '  %s\n' "${summary[@]}"
