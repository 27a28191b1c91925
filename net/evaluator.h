// Batched inference: many positions, one forward pass. No LibTorch in this header, so self-play
// code that only evaluates positions compiles without it.
//
// An Evaluator owns a frozen copy of the network on its device (an InferenceNet: batch norms
// folded into the convolutions), so the trainer's net is never switched out of training mode;
// set_weights() takes a newer net when one is accepted. One Evaluator serves one thread at a
// time.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "net/encode.h"
#include "net/net_config.h"
#include "rules/position.h"
#include "rules/rng.h"

namespace fuseki::net {

class PolicyValueNetImpl;  // net/network.h

struct EvaluatorOptions {
  std::string device = "cpu";  // cpu, cuda, cuda:N, auto (see select_device)
  int threads = 0;             // torch intra-op threads for the forward pass; 0 = torch's default
  int cpu_chunk = 64;          // on CPU, forward passes of at most this many positions; 0 = all
  std::string precision = "fp32";  // fp32, bf16, fp16 (CUDA only): see select_precision
};

struct Evaluation {
  std::vector<float> policy;  // kPolicySize probabilities, 0 on illegal drops, summing to 1
  float value = 0;            // the mover's expected score in [-1, 1]
};

class Evaluator {
 public:
  // Copies `net` (weights, buffers, architecture) to the options' device.
  explicit Evaluator(const PolicyValueNetImpl& net, const EvaluatorOptions& options = {});
  // A freshly initialised network (torch's default init, seeded by torch::manual_seed).
  explicit Evaluator(const NetConfig& config, const EvaluatorOptions& options = {});
  // The network of a checkpoint file (net/checkpoint.h); throws std::runtime_error.
  static Evaluator from_checkpoint(const std::string& path, const EvaluatorOptions& options = {});
  // An ONNX network (net/onnx_import.h: the site's format or fusekilab's native export), read
  // and run with LibTorch operations; throws CheckpointError (a std::runtime_error).
  static Evaluator from_onnx(const std::string& path, const EvaluatorOptions& options = {});
  // Either, by the file: ONNX for a .onnx name or an ONNX model's first bytes, else a
  // checkpoint. Wherever a network file is accepted for inference.
  static Evaluator from_file(const std::string& path, const EvaluatorOptions& options = {});
  static bool is_onnx(const std::string& path);
  ~Evaluator();
  Evaluator(Evaluator&&) noexcept;
  Evaluator& operator=(Evaluator&&) noexcept;

  // Replaces the weights with those of `net` (same architecture, else std::invalid_argument).
  void set_weights(const PolicyValueNetImpl& net);
  // Counts set_weights calls: an evaluation kept from an earlier pass is the same network's
  // only while this is unchanged.
  uint64_t weights_version() const;

  // One forward pass over all positions. Positions outside the placement phase get an
  // all-zero policy (they have no legal drop) and still a value.
  std::vector<Evaluation> evaluate(std::span<const Position* const> positions);
  Evaluation evaluate(const Position& pos);
  // The raw form: policy gets batch.size() * kPolicySize floats, values batch.size() floats.
  void evaluate(const EncodedBatch& batch, float* policy, float* values);

  // Draws a drop from an evaluation (see sample_drop in net/sample.h).
  static Move sample(const Position& pos, const Evaluation& eval, double temperature, Rng& rng);

  const NetConfig& config() const;
  std::string device() const;
  int threads() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  explicit Evaluator(std::unique_ptr<Impl> impl);
};

}  // namespace fuseki::net
