#!/usr/bin/env bash
# Set up, build, and run the whole test suite:
#   1. Release build, every test (ctest), the perft benchmark in quick mode;
#   2. address+undefined sanitizer build (clang) of the rules, engine, shard and command-line
#      tests, and both fuzzers for a bounded time (FUSEKILAB_FUZZ_SECONDS, default 30 each);
#   3. thread sanitizer build of the command line, playing games on several threads;
#   4. clang-format check of the sources.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=$(nproc 2>/dev/null || echo 2)
fuzz_seconds=${FUSEKILAB_FUZZ_SECONDS:-30}
start=$(date +%s)

bash scripts/setup.sh

echo "== Release build and tests"
bash scripts/build.sh
ctest --test-dir build -j "$jobs" --output-on-failure

echo "== Sanitizer build (address, undefined) and fuzzers"
CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFUSEKILAB_WITH_TORCH=OFF -DFUSEKILAB_FUZZ=ON -DFUSEKILAB_SANITIZE=address,undefined >/dev/null
cmake --build build-asan -j "$jobs" --target rules_tests engine_tests shard_tests table_tests cli_tests fusekilab \
  sfen_fuzz record_fuzz
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
./build-asan/tests/rules_tests --gtest_brief=1 --gtest_filter='-PerftDeep.*:FsfAgreement.*'
./build-asan/tests/engine_tests --gtest_brief=1 --gtest_filter='-UsiEngines.*'
./build-asan/tests/shard_tests --gtest_brief=1
./build-asan/tests/table_tests --gtest_brief=1
./build-asan/tests/cli_tests --gtest_brief=1
for f in sfen record; do
  mkdir -p build-asan/corpus-$f
  ./build-asan/fuzz/${f}_fuzz -max_total_time="$fuzz_seconds" -print_final_stats=0 \
    build-asan/corpus-$f fuzz/corpus/$f 2>&1 | tail -n 2
done

echo "== Thread sanitizer build: concurrent play-outs"
CC=clang CXX=clang++ cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFUSEKILAB_WITH_TORCH=OFF -DFUSEKILAB_SANITIZE=thread >/dev/null
cmake --build build-tsan -j "$jobs" --target cli_tests fusekilab
TSAN_OPTIONS=halt_on_error=1 ./build-tsan/tests/cli_tests --gtest_brief=1 --gtest_filter='CliPlay.*'

echo "== clang-format"
files=$(git ls-files '*.cpp' '*.h')
if ! clang-format --dry-run -Werror $files; then
  echo "clang-format: the files above need formatting (clang-format -i)"; exit 1
fi

echo "== all checks passed in $(( $(date +%s) - start )) s"
