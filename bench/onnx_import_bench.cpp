// ONNX import benchmark: positions per second through the Evaluator (encode, batched forward
// pass, masked softmax) for a network loaded from its checkpoint and from its ONNX export
// (net/onnx_import), on the same positions; prints both and the ratio checkpoint / ONNX time.
//
//   build/bench/onnx_import_bench [--format site|native] [--channels C] [--blocks B]
//                                 [--positions N] [--batch B] [--repeats R] [--threads T]
// Defaults: site format, 64 channels x 6 blocks (the site's fuseki6x64), 2,048 positions,
// batch 256, best of 5 alternating runs, 1 thread.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "net/checkpoint.h"
#include "net/evaluator.h"
#include "net/network.h"
#include "net/onnx_export.h"
#include "rules/movegen.h"

using namespace fuseki;
using namespace fuseki::net;
using fuseki::bench::now;
using fuseki::bench::positions;

namespace {

// Seconds for one pass over all positions in batches of `batch`.
double pass(Evaluator& eval, const std::vector<const Position*>& ptrs, int batch,
            std::vector<Evaluation>& out) {
  const double t0 = now();
  out.clear();
  for (size_t i = 0; i < ptrs.size(); i += size_t(batch)) {
    const size_t n = std::min(size_t(batch), ptrs.size() - i);
    auto e = eval.evaluate(std::span<const Position* const>(ptrs.data() + i, n));
    for (auto& x : e) out.push_back(std::move(x));
  }
  return now() - t0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string format = "site";
  int channels = 64, blocks = 6, count = 2048, batch = 256, repeats = 5, threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const char* v = argv[i + 1];
    if (a == "--format")
      format = v;
    else if (a == "--channels")
      channels = std::atoi(v);
    else if (a == "--blocks")
      blocks = std::atoi(v);
    else if (a == "--positions")
      count = std::atoi(v);
    else if (a == "--batch")
      batch = std::atoi(v);
    else if (a == "--repeats")
      repeats = std::atoi(v);
    else if (a == "--threads")
      threads = std::atoi(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  const auto dir = std::filesystem::temp_directory_path() /
                   ("fusekilab_onnx_bench_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string ckpt = (dir / "net.ckpt").string(), onnx = (dir / "net.onnx").string();
  torch::manual_seed(1);
  PolicyValueNet net(with_format(NetConfig{channels, blocks}, format));
  save_checkpoint(ckpt, *net, nullptr, {});
  OnnxExportOptions o;
  o.value = true;
  export_onnx(*net, onnx, o);

  EvaluatorOptions eo;
  eo.threads = threads;
  Evaluator a = Evaluator::from_file(ckpt, eo);
  Evaluator b = Evaluator::from_file(onnx, eo);
  const std::vector<Position> pos = positions(count);
  std::vector<const Position*> ptrs;
  for (const Position& p : pos) ptrs.push_back(&p);
  std::vector<Evaluation> ea, eb;
  pass(a, ptrs, batch, ea);  // warm-up
  pass(b, ptrs, batch, eb);
  double ta = 1e30, tb = 1e30;
  for (int r = 0; r < repeats; ++r) {
    ta = std::min(ta, pass(a, ptrs, batch, ea));
    tb = std::min(tb, pass(b, ptrs, batch, eb));
  }
  double diff = 0;
  for (size_t i = 0; i < ea.size(); ++i) {
    diff = std::max(diff, double(std::fabs(ea[i].value - eb[i].value)));
    for (size_t j = 0; j < ea[i].policy.size(); ++j)
      diff = std::max(diff, double(std::fabs(ea[i].policy[j] - eb[i].policy[j])));
  }
  std::printf("%s, %d positions, batch %d, %d thread(s), best of %d\n",
              describe(net->config()).c_str(), count, batch, threads, repeats);
  std::printf("checkpoint: %.0f positions/s\n", count / ta);
  std::printf("onnx:       %.0f positions/s\n", count / tb);
  std::printf(
      "ratio (onnx time / checkpoint time): %.3f; max |diff| probabilities and values %.3g\n",
      tb / ta, diff);
  std::filesystem::remove_all(dir);
  return 0;
}
