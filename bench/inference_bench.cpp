// Inference benchmark: placement decisions per second (encode, one forward pass, sample a drop)
// with batched inference against one position per forward pass, on the same positions, network
// and thread count.
//
//   build/bench/inference_bench [--positions N] [--threads T] [--channels C] [--blocks B]
//                               [--batch B1,B2,...] [--chunk C] [--repeats R]
//                               [--device cpu|cuda[:N]] [--precision fp32,bf16,fp16]
// --chunk: the evaluator's cpu_chunk (forward passes of at most C positions; 0 = whole batch).
// --precision: each listed precision in turn; later ones are also compared with the first.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "net/evaluator.h"
#include "rules/movegen.h"

using namespace fuseki;
using namespace fuseki::net;
using fuseki::bench::now;
using fuseki::bench::positions;

namespace {

// Decisions per second with `batch` positions per forward pass; the best of `repeats` runs.
double decisions_per_second(Evaluator& eval, const std::vector<Position>& pos, int batch,
                            int repeats) {
  std::vector<const Position*> ptrs;
  for (const Position& p : pos) ptrs.push_back(&p);
  Rng rng(7);
  double best = 0;
  long checksum = 0;
  for (int r = 0; r < repeats; ++r) {
    double t0 = now();
    for (size_t i = 0; i < ptrs.size(); i += size_t(batch)) {
      size_t n = std::min(size_t(batch), ptrs.size() - i);
      std::vector<Evaluation> evals = eval.evaluate({ptrs.data() + i, n});
      for (size_t j = 0; j < n; ++j)
        checksum += Evaluator::sample(*ptrs[i + j], evals[j], 1.0, rng);
    }
    best = std::max(best, double(ptrs.size()) / (now() - t0));
  }
  if (checksum == 42) std::puts("");  // keeps the sampling from being optimised away
  return best;
}

std::vector<int> parse_list(const char* s) {
  std::vector<int> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::atoi(item.c_str()));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 1024, threads = 1, repeats = 3, chunk = EvaluatorOptions{}.cpu_chunk;
  NetConfig config;
  std::vector<int> batches = {16, 64, 256};
  std::string device = "cpu";
  std::vector<std::string> precisions = {"fp32"};
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--positions"))
      n = std::atoi(value());
    else if (!std::strcmp(argv[i], "--threads"))
      threads = std::atoi(value());
    else if (!std::strcmp(argv[i], "--channels"))
      config.channels = std::atoi(value());
    else if (!std::strcmp(argv[i], "--blocks"))
      config.blocks = std::atoi(value());
    else if (!std::strcmp(argv[i], "--batch"))
      batches = parse_list(value());
    else if (!std::strcmp(argv[i], "--chunk"))
      chunk = std::atoi(value());
    else if (!std::strcmp(argv[i], "--repeats"))
      repeats = std::atoi(value());
    else if (!std::strcmp(argv[i], "--device"))
      device = value();
    else if (!std::strcmp(argv[i], "--precision")) {
      precisions.clear();
      std::stringstream in(value());
      for (std::string item; std::getline(in, item, ',');) precisions.push_back(item);
    } else {
      std::fprintf(stderr,
                   "usage: %s [--positions N] [--threads T] [--channels C] [--blocks B] "
                   "[--batch B1,B2,...] [--chunk C] [--repeats R] [--device D] "
                   "[--precision P1,P2,...]\n",
                   argv[0]);
      return 2;
    }
  }
  if (n < 1 || threads < 1 || repeats < 1 || chunk < 0 || !valid(config) || batches.empty() ||
      *std::min_element(batches.begin(), batches.end()) < 1) {
    std::fprintf(stderr, "bad arguments\n");
    return 2;
  }

  std::vector<Position> pos = positions(n);
  std::vector<double> first;  // the first precision's rates: single, then each batch
  for (const std::string& precision : precisions) {
    std::unique_ptr<Evaluator> eval;
    try {
      eval =
          std::make_unique<Evaluator>(config, EvaluatorOptions{device, threads, chunk, precision});
    } catch (const std::exception& e) {
      std::fprintf(stderr, "inference_bench: %s\n", e.what());
      return 2;
    }
    decisions_per_second(*eval, pos, 64, 1);  // warm-up: allocator, thread pool, kernels
    std::printf("inference_bench: %d placement positions, net %s, %d thread(s), %s, %s, chunk %d\n",
                n, describe(config).c_str(), eval->threads(), eval->device().c_str(),
                precision.c_str(), chunk);
    std::vector<double> rates;
    const double single = decisions_per_second(*eval, pos, 1, repeats);
    rates.push_back(single);
    std::printf("  %-26s %10.0f decisions/s\n", "one position per forward", single);
    for (int b : batches) {
      const double rate = decisions_per_second(*eval, pos, b, repeats);
      rates.push_back(rate);
      char label[64];
      std::snprintf(label, sizeof label, "batch %d per forward", b);
      std::printf("  %-26s %10.0f decisions/s  %6.1fx", label, rate, rate / single);
      if (!first.empty())
        std::printf("  %5.2fx %s", rate / first[rates.size() - 1], precisions[0].c_str());
      std::printf("\n");
    }
    if (first.empty()) first = rates;
  }
  return 0;
}
