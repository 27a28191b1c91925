// Training-step benchmark: Adam steps of the trainer's loss per second, in samples per second.
//
//   build/bench/train_bench [--channels C] [--blocks B] [--batch N] [--threads T] [--steps S]
//                           [--warmup W] [--repeats R] [--games G] [--no-trainer] [--seed S]
//                           [--export-check DIR] [--bf16] [--device cpu|cuda[:N]]
// --bf16: Trainer::step is also timed with bf16 autocast (TrainOptions::precision).
//
// 1. The network update alone, on pre-built tensors (random planes, random legal masks with the
//    chosen drop always legal, random actions, rewards in {-1, 0, 1}): forward, the loss of
//    train/trainer.cpp, backward, Adam. Trainer has no step on given tensors, so the loss is
//    replicated here line for line; step 2 checks the replica against Trainer::step on the same
//    batch and weights. bench/train_bench.py times the same update in Python PyTorch.
// 2. The full Trainer::step on a TrainingWindow of G self-play games (played by the untrained
//    network, every game judged a Sente win, so no play-out): sampling, replaying and encoding
//    the positions, the update and the step's metrics. window.sample alone is timed apart.
// --export-check DIR: writes a TorchScript export (net/checkpoint.h), an input batch and the C++
//    outputs on it, and a training batch with the C++ losses of three Adam steps, for
//    `train_bench.py --export-check DIR` to compare against (see docs/benchmarks.md).
//
// Each timed figure is the best of R runs of S steps after W warm-up steps. The lines starting
// with "RESULT" are for bench/run_train_bench.sh.
#include <torch/script.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "io/atomic_file.h"
#include "net/checkpoint.h"
#include "net/evaluator.h"
#include "net/network.h"
#include "selfplay/generator.h"
#include "train/trainer.h"
#include "train/window.h"

using namespace fuseki;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Args {
  net::NetConfig config;  // 32 channels x 4 blocks
  int batch = 256, threads = 1, steps = 50, warmup = 5, repeats = 3, games = 300;
  bool trainer = true, bf16 = false;
  uint64_t seed = 1;
  std::string device = "cpu";
  std::string export_dir;
};

// One training batch as tensors, the trainer's types: planes float, mask bool, actions int64
// [N, 1], rewards float [N].
struct Batch {
  torch::Tensor x, mask, actions, reward;
};

Batch random_batch(int n) {
  Batch b;
  b.x = (torch::rand({n, net::kInputPlanes, net::kBoardRanks, net::kBoardFiles}) < 0.3)
            .to(torch::kFloat32);
  b.actions = torch::randint(0, net::kPolicySize, {n, 1}, torch::kInt64);
  // About a third of the drops legal, and always the chosen one (so every row has one).
  b.mask = (torch::rand({n, net::kPolicySize}) < 0.3).scatter_(1, b.actions, true);
  b.reward = torch::randint(-1, 2, {n}, torch::kFloat32);
  return b;
}

Batch to_device(Batch b, torch::Device d) {
  return {b.x.to(d), b.mask.to(d), b.actions.to(d), b.reward.to(d)};
}

Batch window_batch(const TrainBatch& tb) {
  const int n = tb.inputs.size();
  Batch b;
  b.x = net::planes_tensor(tb.inputs, torch::kCPU).clone();
  b.mask = net::mask_tensor(tb.inputs, torch::kCPU);
  b.actions =
      torch::from_blob(const_cast<int64_t*>(tb.actions.data()), {n, 1}, torch::kInt64).clone();
  b.reward = torch::from_blob(const_cast<float*>(tb.rewards.data()), {n}, torch::kFloat32).clone();
  return b;
}

struct Losses {
  torch::Tensor total, policy, value, entropy;
};

// The loss of Trainer::step (train/trainer.cpp), line for line.
Losses trainer_loss(net::PolicyValueNet& net, const Batch& b, const TrainOptions& o) {
  auto [logits, value] = net->forward(b.x);
  torch::Tensor logp = net::masked_log_softmax(logits, b.mask);
  torch::Tensor logp_a = logp.gather(1, b.actions).squeeze(1);
  torch::Tensor advantage = b.reward - value.detach();
  torch::Tensor policy_loss = -(advantage * logp_a).mean();
  torch::Tensor value_loss = (value - b.reward).pow(2).mean();
  torch::Tensor legal_logp = logp.masked_fill(b.mask.logical_not(), 0.0);
  torch::Tensor entropy = -(logp.exp() * legal_logp).sum(1).mean();
  torch::Tensor loss = policy_loss + o.value_weight * value_loss - o.entropy_weight * entropy;
  return {loss, policy_loss, value_loss, entropy};
}

torch::optim::AdamOptions adam_options(const TrainOptions& o) {
  return torch::optim::AdamOptions(o.learning_rate).weight_decay(o.weight_decay);
}

// One Adam step of the trainer's loss; returns the loss before the step.
Losses update(net::PolicyValueNet& net, torch::optim::Adam& adam, const Batch& b,
              const TrainOptions& o) {
  Losses l = trainer_loss(net, b, o);
  adam.zero_grad();
  l.total.backward();
  adam.step();
  return l;
}

// Best samples/s over `repeats` runs of `steps` calls of `step` (each handles `batch` samples),
// after `warmup` calls; prints each run's figure.
double best_rate(const std::function<void(int)>& step, const Args& a, const char* label) {
  const bool cuda = net::select_device(a.device).is_cuda();
  for (int i = 0; i < a.warmup; ++i) step(i);
  if (cuda) torch::cuda::synchronize();
  double best = 0;
  std::printf("  %-46s", label);
  for (int r = 0; r < a.repeats; ++r) {
    const double t0 = now();
    for (int i = 0; i < a.steps; ++i) step(i);
    if (cuda) torch::cuda::synchronize();  // the GPU's queued work is part of the time
    const double rate = double(a.steps) * a.batch / (now() - t0);
    std::printf(" %9.1f", rate);
    best = std::max(best, rate);
  }
  std::printf("  -> best %.1f samples/s\n", best);
  std::fflush(stdout);
  return best;
}

double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

// Largest |difference| between the parameters and buffers of two networks.
double max_param_diff(const net::PolicyValueNetImpl& a, const net::PolicyValueNetImpl& b) {
  const auto pa = a.named_parameters(), pb = b.named_parameters();
  const auto ba = a.named_buffers(), bb = b.named_buffers();
  double worst = 0;
  for (const auto& p : pa) worst = std::max(worst, max_abs_diff(p.value(), pb[p.key()]));
  for (const auto& p : ba)
    worst = std::max(worst,
                     max_abs_diff(p.value().to(torch::kFloat64), bb[p.key()].to(torch::kFloat64)));
  return worst;
}

void write_raw(const std::filesystem::path& path, const torch::Tensor& t) {
  const torch::Tensor c = t.contiguous();
  write_file_atomically(path.string(),
                        std::string(static_cast<const char*>(c.data_ptr()), c.nbytes()));
}

// 1. The network update on pre-built tensors.
double bench_update(const Args& a, const TrainOptions& o) {
  torch::manual_seed(a.seed);
  net::PolicyValueNet net(a.config);
  const torch::Device device = net::select_device(a.device);
  net->to(device);
  net->train();
  torch::optim::Adam adam(net->parameters(), adam_options(o));
  std::vector<Batch> batches;
  for (int i = 0; i < 4; ++i) batches.push_back(to_device(random_batch(a.batch), device));
  return best_rate([&](int i) { update(net, adam, batches[size_t(i) % batches.size()], o); }, a,
                   "network update, pre-built tensors:");
}

// 2. The full Trainer::step on a window of self-play games.
double bench_trainer(const Args& a, const TrainOptions& o) {
  TrainingWindow window;
  const double t0 = now();
  {
    torch::manual_seed(a.seed);
    net::Evaluator eval(a.config, {"cpu", a.threads});
    SelfPlayOptions so;
    so.rules = RuleSet::Balance;
    so.seed = a.seed;
    so.kings = KingSource::Uniform;
    so.judge = [](const Position&) { return Winner::Sente; };
    SelfPlayGenerator gen(eval, so);
    gen.play(0, uint64_t(a.games), [&](PlayedGame&& g) { window.add(g.row, g.decisions); });
  }
  std::printf("  window: %zu games, %zu decisions (self-play with the untrained net: %.1f s)\n",
              window.games(), window.decisions(), now() - t0);

  // The replica against Trainer::step: same seed, so the same initial weights and the same
  // batch; one step each must leave the same weights.
  {
    Trainer trainer(a.config, o, a.seed);
    torch::manual_seed(a.seed);
    net::PolicyValueNet net(a.config);
    net->to(net::select_device(a.device));
    net->train();
    torch::optim::Adam adam(net->parameters(), adam_options(o));
    const double before = max_param_diff(*net, trainer.network());
    Rng rng(Rng::derive(a.seed, 77));  // the trainer's sampling stream (train/trainer.cpp)
    const Batch b = window_batch(window.sample(a.batch, rng));
    double worst_loss = 0;
    for (int i = 0; i < 3; ++i) {
      const Batch bi = to_device(i == 0 ? b : window_batch(window.sample(a.batch, rng)),
                                 net::select_device(a.device));
      Losses l = update(net, adam, bi, o);
      StepMetrics s = trainer.step(window);
      worst_loss = std::max({worst_loss, std::abs(l.policy.item<double>() - s.policy_loss),
                             std::abs(l.value.item<double>() - s.value_loss),
                             std::abs(l.entropy.item<double>() - s.entropy)});
    }
    const double after = max_param_diff(*net, trainer.network());
    std::printf(
        "  check: replicated update vs Trainer::step, 3 steps on the same batches: max |loss "
        "diff| %.3g, max |weight diff| %.3g (before: %.3g)\n",
        worst_loss, after, before);
    if (before != 0 || after > 1e-5 || worst_loss > 1e-5) {
      std::fprintf(stderr, "train_bench: the replicated loss does not match Trainer::step\n");
      std::exit(1);
    }
  }

  Rng rng(5);
  long checksum = 0;
  best_rate(
      [&](int) {
        TrainBatch tb = window.sample(a.batch, rng);
        checksum += tb.actions[0];
      },
      a, "window.sample alone (replay + encode):");
  if (checksum == -1) std::puts("");  // keeps the sampling from being optimised away

  Trainer trainer(a.config, o, a.seed);
  const double fp32 = best_rate([&](int) { trainer.step(window); }, a,
                                "Trainer::step (sample + update + metrics):");
  if (a.bf16) {
    TrainOptions ob = o;
    ob.precision = "bf16";
    Trainer mixed(a.config, ob, a.seed);
    const double bf16 =
        best_rate([&](int) { mixed.step(window); }, a, "Trainer::step, bf16 autocast:");
    std::printf("RESULT cpp_trainer_step_bf16 %.1f\n  bf16 / fp32: %.2fx\n", bf16, bf16 / fp32);
  }
  return fp32;
}

// --export-check DIR: see the file comment. Files (raw little-endian, row-major):
//   model.pt                  export_torchscript of the network
//   eval_x.f32                [n_eval, 36, 9, 9] input
//   eval_logits.f32, eval_value.f32   net->forward in eval mode, and the same from the C++
//                             torch::jit::load of model.pt (jit_logits.f32, jit_value.f32)
//   train_x.f32, train_mask.u8, train_actions.i64, train_reward.f32   a training batch
//   meta.txt                  sizes, options and the losses of 3 Adam steps from the exported
//                             weights (fresh Adam) on the training batch
void export_check(const Args& a, const TrainOptions& o) {
  namespace fs = std::filesystem;
  const fs::path dir(a.export_dir);
  fs::create_directories(dir);
  torch::manual_seed(a.seed);
  net::PolicyValueNet net(a.config);
  net->train();
  {
    // A few steps first, so the weights and the batch-norm statistics are not the initial ones.
    torch::optim::Adam adam(net->parameters(), adam_options(o));
    for (int i = 0; i < 3; ++i) update(net, adam, random_batch(a.batch), o);
  }
  const int n_eval = 64;
  const torch::Tensor x = random_batch(n_eval).x;
  net->eval();
  torch::Tensor logits, value;
  {
    torch::NoGradGuard no_grad;
    std::tie(logits, value) = net->forward(x);
  }
  const std::string model = (dir / "model.pt").string();
  net::export_torchscript(*net, model);
  torch::jit::Module jit = torch::jit::load(model);
  const auto out = jit.forward({x}).toTuple();
  const torch::Tensor jit_logits = out->elements()[0].toTensor();
  const torch::Tensor jit_value = out->elements()[1].toTensor();
  write_raw(dir / "eval_x.f32", x);
  write_raw(dir / "eval_logits.f32", logits);
  write_raw(dir / "eval_value.f32", value);
  write_raw(dir / "jit_logits.f32", jit_logits);
  write_raw(dir / "jit_value.f32", jit_value);
  std::printf("  export check: C++ torch::jit::load of %s: max |diff| logits %.3g, value %.3g\n",
              model.c_str(), max_abs_diff(logits, jit_logits), max_abs_diff(value, jit_value));

  net->train();
  const Batch b = random_batch(a.batch);
  write_raw(dir / "train_x.f32", b.x);
  write_raw(dir / "train_mask.u8", b.mask.to(torch::kUInt8));
  write_raw(dir / "train_actions.i64", b.actions);
  write_raw(dir / "train_reward.f32", b.reward);
  torch::optim::Adam adam(net->parameters(), adam_options(o));
  std::ostringstream meta;
  meta.precision(17);
  meta << "channels " << a.config.channels << "\nblocks " << a.config.blocks << "\nn_eval "
       << n_eval << "\nn_train " << a.batch << "\nlearning_rate " << o.learning_rate
       << "\nweight_decay " << o.weight_decay << "\nvalue_weight " << o.value_weight
       << "\nentropy_weight " << o.entropy_weight << "\nlosses";
  for (int i = 0; i < 3; ++i) meta << ' ' << update(net, adam, b, o).total.item<double>();
  meta << "\n";
  write_file_atomically((dir / "meta.txt").string(), meta.str());
  std::printf("  export check: files written to %s\n", dir.string().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--channels"))
      a.config.channels = std::atoi(value());
    else if (!std::strcmp(argv[i], "--blocks"))
      a.config.blocks = std::atoi(value());
    else if (!std::strcmp(argv[i], "--batch"))
      a.batch = std::atoi(value());
    else if (!std::strcmp(argv[i], "--threads"))
      a.threads = std::atoi(value());
    else if (!std::strcmp(argv[i], "--steps"))
      a.steps = std::atoi(value());
    else if (!std::strcmp(argv[i], "--warmup"))
      a.warmup = std::atoi(value());
    else if (!std::strcmp(argv[i], "--repeats"))
      a.repeats = std::atoi(value());
    else if (!std::strcmp(argv[i], "--games"))
      a.games = std::atoi(value());
    else if (!std::strcmp(argv[i], "--seed"))
      a.seed = std::strtoull(value(), nullptr, 10);
    else if (!std::strcmp(argv[i], "--device"))
      a.device = value();
    else if (!std::strcmp(argv[i], "--bf16"))
      a.bf16 = true;
    else if (!std::strcmp(argv[i], "--no-trainer"))
      a.trainer = false;
    else if (!std::strcmp(argv[i], "--export-check"))
      a.export_dir = value();
    else {
      std::fprintf(stderr,
                   "usage: %s [--channels C] [--blocks B] [--batch N] [--threads T] [--steps S] "
                   "[--warmup W] [--repeats R] [--games G] [--no-trainer] [--seed S] "
                   "[--export-check DIR] [--bf16] [--device D]\n",
                   argv[0]);
      return 2;
    }
  }
  if (!net::valid(a.config) || a.batch < 1 || a.threads < 1 || a.steps < 1 || a.warmup < 0 ||
      a.repeats < 1 || a.games < 1) {
    std::fprintf(stderr, "bad arguments\n");
    return 2;
  }

  torch::set_num_threads(a.threads);
  TrainOptions o;
  o.batch_size = a.batch;
  o.threads = a.threads;
  o.device = a.device;
  try {
    std::printf(
        "train_bench (C++ LibTorch %s): net %s, batch %d, %d thread(s), %s, Adam lr %g weight "
        "decay %g, value weight %g, entropy weight %g; %d warm-up + %d x %d steps\n",
        TORCH_VERSION, net::describe(a.config).c_str(), a.batch, torch::get_num_threads(),
        a.device.c_str(), o.learning_rate, o.weight_decay, o.value_weight, o.entropy_weight,
        a.warmup, a.repeats, a.steps);
    if (!a.export_dir.empty()) {
      export_check(a, o);
      return 0;
    }
    std::printf("RESULT cpp_update %.1f\n", bench_update(a, o));
    if (a.trainer) std::printf("RESULT cpp_trainer_step %.1f\n", bench_trainer(a, o));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
