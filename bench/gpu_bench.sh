#!/usr/bin/env bash
# GPU against CPU on one machine: placement inference (batched, fp32/bf16/fp16) and training steps
# (fp32/bf16), with the same benchmarks as docs/benchmarks.md. Needs a CUDA-enabled LibTorch
# (Debian's is CPU-only): LIBTORCH=/path/to/libtorch, or a CUDA PyTorch in python3 (its CMake
# prefix is used). Builds the benchmarks into build-cuda/ first.
#   bash bench/gpu_bench.sh [--quick | --build]
# --build: configure and build only. FUSEKILAB_CMAKE_ARGS: more configure arguments (split on
# spaces; bench/gpu_deps.sh sets it where Debian's HDF5, CLI11... are unpacked elsewhere);
# GPU_BENCH_CLI=1 also builds the fusekilab CLI; GPU_BENCH_JOBS: parallel build jobs.
set -euo pipefail
cd "$(dirname "$0")/.."
quick="${1:-}"
prefix="${LIBTORCH:-}"
if [ -z "$prefix" ]; then
  prefix=$(python3 -c 'import torch; assert torch.cuda.is_available(); print(torch.utils.cmake_prefix_path)' 2>/dev/null) ||
    { echo "gpu_bench: no CUDA LibTorch (set LIBTORCH, or install a CUDA PyTorch)"; exit 2; }
fi
cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DFUSEKILAB_TESTS=OFF ${FUSEKILAB_CMAKE_ARGS:-} >/dev/null
targets="inference_bench train_bench"
[ "${GPU_BENCH_CLI:-0}" != 1 ] || targets+=" fusekilab"
cmake --build build-cuda --target $targets ${GPU_BENCH_JOBS:+-j "$GPU_BENCH_JOBS"}
[ "$quick" != --build ] || exit 0
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
positions=8192 steps=50
[ "$quick" != --quick ] || { positions=2048; steps=10; }
for dev in cpu cuda; do
  precisions=fp32,bf16
  [ "$dev" = cpu ] || precisions=fp32,bf16,fp16
  build-cuda/bench/inference_bench --device "$dev" --precision "$precisions" --positions "$positions" \
    --batch 64,256,1024 --threads "$(nproc)" --chunk 0
done
for dev in cpu cuda; do
  build-cuda/bench/train_bench --device "$dev" --bf16 --threads "$(nproc)" --steps "$steps" --repeats 2 \
    --games 300
done
