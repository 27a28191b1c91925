// The trainer, Adam, one of two losses (TrainTarget):
// policy gradient from game outcomes with the value head as baseline,
//   loss = -(r - v(s)) log pi(a|s)  +  c_v (v(s) - r)^2  -  c_H H(pi(.|s)),
// r: the deciding player's reward (train/window.h); v(s) detached in the policy term;
// or search (AlphaZero family): cross-entropy toward a search's improved policy pi',
//   loss = -sum_a pi'(a) log pi(a|s) - m log pi(U|s)  +  c_v (v(s) - r)^2,
// a over the drops the search evaluated, U the legal drops it did not, m = 1 - sum_a pi'(a).
// pi' gives U's drops the same completed value, so within U it follows the search's prior; the
// loss takes U as one class, the cross-entropy of pi' on the partition {a..., U}, rather than
// storing the prior of every drop. No entropy bonus: the target already spreads the policy.
// With reanalyse, pi' is made anew at each step from the trained network's values and the prior
// of the network that played the games (set_behaviour; else the trained one's): forward passes
// without gradient over the samples and their evaluated drops' positions.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include "net/net_config.h"
#include "rules/rng.h"
#include "train/window.h"

namespace fuseki::net {
class PolicyValueNetImpl;  // net/network.h
}

namespace fuseki {

enum class TrainTarget { PolicyGradient, Search };

struct TrainOptions {
  TrainTarget target = TrainTarget::PolicyGradient;  // Search needs a window of search targets
  int batch_size = 256;
  double learning_rate = 1e-3;
  double weight_decay = 1e-4;
  double value_weight = 1.0;
  double entropy_weight = 0.01;
  std::string device = "cpu";
  int threads = 0;  // torch intra-op threads; 0 = torch's default
  // fp32, or bf16: the forward pass under autocast to bfloat16 (weights, optimizer state and
  // losses stay float32; no loss scaling is needed, so fp16 is not offered).
  std::string precision = "fp32";
  // Search: recompute each sample's improved policy with the values of the network being
  // trained (of the position and of each drop the self-play search evaluated) rather than
  // train toward the one self-play stored (MuZero's Reanalyse); the prior: set_behaviour.
  // Self-play's network is the gate's best, which can lag the trained one by many generations; its
  // targets then hold the training back to what that network's value head knew. c_visit, c_scale:
  // the search's.
  bool reanalyse = false;
  // Samples of positions with at least this many plies played keep self-play's targets under
  // reanalysis (the rollout placer's look-ahead from its from_ply: values no value head remakes).
  int reanalyse_before_ply = 1 << 20;
  double c_visit = 50, c_scale = 1;
  // Each sample of a step is mirrored left to right with probability 1/2 (its planes, legal
  // drops, drop played and search target; net/encode.h): the game is symmetric, the network
  // is not, and each position is seen both ways.
  bool mirror = false;
  // The value head also regressed on the look-ahead's measured values of the drops it tried
  // (PolicyTarget::q: the rollout placer's completions at move 41), one tried drop a sample, with
  // this weight (0: not). Each decision's game gives one noisy result for all its positions; a
  // candidate's q is the mean of R completions of its own child, k of them a decision.
  double q_weight = 0;
};

struct StepMetrics {
  uint64_t step = 0;
  double policy_loss = 0, value_loss = 0, entropy = 0;
  double mean_value = 0,
         mean_reward = 0;  // calibration: the value head's mean against the results'
  double value_reward_corr = 0;
  // With TrainOptions::q_weight: the regression on the tried drops' measured values (NaN when the
  // batch had none), and the value head's correlation with them.
  double q_loss = std::nan(""), q_corr = std::nan("");
};

class Trainer {
 public:
  // A new network (seeded from `seed`), or the network, optimizer, counters and RNG of a
  // checkpoint when `checkpoint` is non-empty; an ONNX file gives its weights where its shapes
  // fit (net/onnx_init.h) and a fresh optimizer.
  Trainer(const net::NetConfig& config, const TrainOptions& options, uint64_t seed,
          const std::string& checkpoint = "");
  ~Trainer();

  StepMetrics step(const TrainingWindow& window);
  // Remakes a batch's search targets with this trainer's network, as step() does first with
  // options.reanalyse; the batch must be sampled with its children (TrainingWindow::sample).
  void reanalyse(TrainBatch& batch);
  // Reanalysis takes its prior from this network (self-play's, the one that played the window's
  // newest games) rather than the trained one; "" goes back to the trained one. Remade with the
  // trained network's own prior, pi' = softmax(log pi + sigma(q)) is sharper than pi at every
  // step, and steps over the same positions compound into the argmax of the value head (seen
  // behind the gate: the policy's entropy fell and every candidate after the first few lost to
  // the best); with the behaviour's prior the target holds still while the values improve.
  void set_behaviour(const std::string& checkpoint);
  // Writes a checkpoint atomically (network, optimizer, counters, RNG state).
  void save(const std::string& path, uint64_t generation) const;
  uint64_t steps() const;
  uint64_t generation() const;
  Rng& rng();
  const net::NetConfig& config() const;
  // Started from an ONNX file: what was taken from it (net/onnx_init.h); else empty.
  const std::string& init_note() const;
  // The network, for an Evaluator (net/evaluator.h).
  const net::PolicyValueNetImpl& network() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fuseki
