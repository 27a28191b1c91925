#!/usr/bin/env bash
# The training-step benchmark in both languages, with the same settings: the C++ network update
# (bench/train_bench.cpp) against the same update in Python PyTorch (bench/train_bench.py), for
# each thread count, with the ratio C++/Python; plus the full C++ Trainer::step once per thread
# count. Figures go in docs/benchmarks.md ("Trainer").
#
#   bench/run_train_bench.sh [--threads 1,2] [--build DIR] [--no-trainer] [--export-check DIR]
#                            [train_bench options: --channels C --blocks B --batch N --steps S
#                             --warmup W --repeats R --seed S; --games G (C++ only)]
#
# The Python side needs Debian's python3-torch (apt-get install -y python3-torch) under
# /usr/bin/python3 (override with PYTHON=...); without it only the C++ figures are printed.
# --export-check DIR: also checks the TorchScript export in Python (see train_bench.py).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build"
threads_list="1,2"
python="${PYTHON:-/usr/bin/python3}"
export_dir=""
cpp_only=()
common=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --threads) threads_list="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --no-trainer) cpp_only+=(--no-trainer); shift ;;
    --games) cpp_only+=(--games "$2"); shift 2 ;;
    --export-check) export_dir="$2"; shift 2 ;;
    --channels|--blocks|--batch|--steps|--warmup|--repeats|--seed) common+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
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

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) core(s)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

result() { sed -n "s/^RESULT $1 //p" "$2"; }

summary=()
IFS=',' read -r -a thread_counts <<<"$threads_list"
for t in "${thread_counts[@]}"; do
  echo
  cpp_out="$(mktemp)"
  py_out="$(mktemp)"
  "$bin" --threads "$t" "${common[@]}" "${cpp_only[@]}" | tee "$cpp_out"
  cpp="$(result cpp_update "$cpp_out")"
  trainer="$(result cpp_trainer_step "$cpp_out")"
  line="threads $t: C++ update ${cpp} samples/s"
  if [[ $have_python == 1 ]]; then
    echo
    "$python" "$here/train_bench.py" --threads "$t" "${common[@]}" | tee "$py_out"
    py="$(result python_update "$py_out")"
    ratio="$(awk -v a="$cpp" -v b="$py" 'BEGIN { printf "%.3f", a / b }')"
    line+=", Python update ${py} samples/s, C++/Python ${ratio}"
  fi
  [[ -n $trainer ]] && line+="; C++ full Trainer::step ${trainer} samples/s"
  summary+=("$line")
  rm -f "$cpp_out" "$py_out"
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
echo "summary (best of the runs, samples/s):"
printf '  %s\n' "${summary[@]}"
