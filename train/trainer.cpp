#include "train/trainer.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include <cmath>

#include "net/checkpoint.h"
#include "net/evaluator.h"
#include "net/network.h"
#include "net/onnx_init.h"
#include "selfplay/search_target.h"

namespace fuseki {

namespace {

// Autocast to bfloat16 for the forward pass while alive (nothing for fp32). LibTorch 2.4 made
// the per-device calls one call taking the device type (the old ones warn on every use in 2.11);
// Debian 12 ships 1.13.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define FUSEKILAB_AUTOCAST_BY_DEVICE_TYPE 1
#endif
class AutocastScope {
 public:
  AutocastScope(bool on, torch::Device device) : on_(on), cuda_(device.is_cuda()) {
    if (!on_) return;
#ifdef FUSEKILAB_AUTOCAST_BY_DEVICE_TYPE
    at::autocast::set_autocast_dtype(type(), torch::kBFloat16);
    at::autocast::set_autocast_enabled(type(), true);
#else
    if (cuda_) {
      at::autocast::set_autocast_gpu_dtype(torch::kBFloat16);
      at::autocast::set_enabled(true);
    } else {
      at::autocast::set_autocast_cpu_dtype(torch::kBFloat16);
      at::autocast::set_cpu_enabled(true);
    }
#endif
  }
  ~AutocastScope() {
    if (!on_) return;
#ifdef FUSEKILAB_AUTOCAST_BY_DEVICE_TYPE
    at::autocast::set_autocast_enabled(type(), false);
#else
    if (cuda_)
      at::autocast::set_enabled(false);
    else
      at::autocast::set_cpu_enabled(false);
#endif
    at::autocast::clear_cache();
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  c10::DeviceType type() const { return cuda_ ? c10::DeviceType::CUDA : c10::DeviceType::CPU; }
  bool on_, cuda_;
};

}  // namespace

struct Trainer::Impl {
  net::NetConfig config;
  TrainOptions options;
  torch::Device device{torch::kCPU};
  net::PolicyValueNet net{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer;
  uint64_t step = 0, generation = 0;
  Rng rng{0};
  std::string init_note;
  net::PolicyValueNet behaviour{nullptr};  // reanalysis: the prior's network, when given
};

namespace {

// Reanalysis: the batch's search targets made anew with the trained network's values, as the
// Gumbel placer makes them (selfplay/search_target.h), over the drops self-play's search
// evaluated; the prior is the behaviour network's when one is given, else the trained one's.
// One forward pass without gradient in evaluation mode (batch norms on their running
// statistics, which it leaves alone) over the samples and their children.
void reanalyse_targets(net::PolicyValueNet& network, net::PolicyValueNet& behaviour,
                       torch::Device device, const TrainOptions& options, TrainBatch& b) {
  const int n = b.inputs.size(), nc = b.children.size();
  torch::Tensor logp, value, child_value;
  {
    torch::NoGradGuard no_grad;
    network->eval();
    torch::Tensor x = net::planes_tensor(b.inputs, device);
    auto [logits, v] = network->forward(x);
    if (behaviour) logits = std::get<0>(behaviour->forward(x));
    logp = net::masked_log_softmax(logits, net::mask_tensor(b.inputs, device))
               .to(torch::kCPU, torch::kFloat64)
               .contiguous();
    value = v.reshape({n}).to(torch::kCPU, torch::kFloat64).contiguous();
    child_value = nc == 0 ? torch::zeros({0}, torch::kFloat64)
                          : std::get<1>(network->forward(net::planes_tensor(b.children, device)))
                                .reshape({nc})
                                .to(torch::kCPU, torch::kFloat64)
                                .contiguous();
    network->train();
  }
  const double* lp = logp.data_ptr<double>();
  const double* v = value.data_ptr<double>();
  const double* cv = child_value.data_ptr<double>();
  std::vector<double> q(net::kPolicySize), prior, completed, improved;
  std::vector<int> legal;
  size_t c = 0;
  for (int i = 0; i < n; ++i) {
    const size_t row = size_t(i) * net::kPolicySize;
    if (b.positions[size_t(i)].ply() >= options.reanalyse_before_ply) {  // self-play's kept
      for (; c < size_t(nc) && b.child_sample[c] == uint32_t(i); ++c) {
      }
      continue;
    }
    std::fill(q.begin(), q.end(), v[i]);  // completed q: the position's value where unvisited
    for (; c < size_t(nc) && b.child_sample[c] == uint32_t(i); ++c)
      q[size_t(b.child_action[c])] =
          drop_value(b.positions[size_t(i)], b.child_positions[c], float(cv[c]));
    legal.clear();
    prior.clear();
    completed.clear();
    for (int a = 0; a < net::kPolicySize; ++a)
      if (b.inputs.masks[row + size_t(a)]) {
        legal.push_back(a);
        prior.push_back(lp[row + size_t(a)]);
        completed.push_back(q[size_t(a)]);
      }
    improved.resize(legal.size());
    improved_policy(prior.data(), completed.data(), legal.size(), options.c_visit, options.c_scale,
                    improved.data());
    double rest = 0;
    for (size_t j = 0; j < legal.size(); ++j) {
      const size_t e = row + size_t(legal[j]);
      if (b.visited[e])
        b.targets[e] = float(improved[j]);
      else
        rest += improved[j];
    }
    b.rest[size_t(i)] = float(rest);
  }
}

}  // namespace

Trainer::Trainer(const net::NetConfig& config, const TrainOptions& options, uint64_t seed,
                 const std::string& checkpoint)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.options = options;
  m.device = net::select_device(options.device);
  if (options.precision != "fp32" && options.precision != "bf16")
    throw std::runtime_error("train precision '" + options.precision +
                             "': expected fp32 or bf16 (fp16 would need loss scaling)");
  if (options.threads > 0) torch::set_num_threads(options.threads);
  auto adam_options =
      torch::optim::AdamOptions(options.learning_rate).weight_decay(options.weight_decay);
  if (checkpoint.empty()) {
    torch::manual_seed(seed);
    m.config = config;
    m.net = net::PolicyValueNet(config);
    m.net->to(m.device);
    m.optimizer = std::make_unique<torch::optim::Adam>(m.net->parameters(), adam_options);
    m.rng = Rng(Rng::derive(seed, 77));
  } else if (net::Evaluator::is_onnx(checkpoint)) {  // its weights, a fresh optimizer
    net::OnnxInit init = net::network_from_onnx(checkpoint, seed);
    m.init_note = init.summary();
    m.config = init.net->config();
    m.net = init.net;
    m.net->to(m.device);
    m.optimizer = std::make_unique<torch::optim::Adam>(m.net->parameters(), adam_options);
    m.rng = Rng(Rng::derive(seed, 77));
  } else {
    net::Checkpoint c = net::load_checkpoint(checkpoint, m.device);
    m.config = c.config;
    m.net = c.net;
    m.optimizer = std::make_unique<torch::optim::Adam>(m.net->parameters(), adam_options);
    if (c.has_optimizer()) c.restore_optimizer(*m.optimizer);
    m.step = c.state.train_step;
    m.generation = c.state.generation;
    m.rng = Rng(Rng::derive(seed, 77));
    if (c.state.rng_state.size() == 4) m.rng.restore(c.state.rng_state.data());
  }
  m.net->train();
}

Trainer::~Trainer() = default;

namespace {

// Pearson's correlation of two 1-D tensors (0 where either is constant).
double correlation(const torch::Tensor& a, const torch::Tensor& b) {
  torch::Tensor ac = a - a.mean(), bc = b - b.mean();
  double denom = std::sqrt(ac.pow(2).sum().item<double>() * bc.pow(2).sum().item<double>());
  return denom > 0 ? (ac * bc).sum().item<double>() / denom : 0.0;
}

}  // namespace

StepMetrics Trainer::step(const TrainingWindow& window) {
  Impl& m = *impl_;
  const bool search = m.options.target == TrainTarget::Search;
  const bool reanalyse = search && m.options.reanalyse;
  const bool regress_q = m.options.q_weight > 0;
  TrainBatch b = window.sample(m.options.batch_size, m.rng, m.config.site(), reanalyse, regress_q);
  int n = b.inputs.size();
  if (search && b.targets.size() != size_t(n) * net::kPolicySize)
    throw std::runtime_error("train.target = search: the training window has no search targets");
  if (reanalyse) reanalyse_targets(m.net, m.behaviour, m.device, m.options, b);
  if (m.options.mirror) mirror_samples(b, m.rng);
  torch::Tensor x = net::planes_tensor(b.inputs, m.device);
  torch::Tensor mask = net::mask_tensor(b.inputs, m.device);
  torch::Tensor actions =
      torch::from_blob(b.actions.data(), {n, 1}, torch::kInt64).clone().to(m.device);
  torch::Tensor reward =
      torch::from_blob(b.rewards.data(), {n}, torch::kFloat32).clone().to(m.device);

  // With train.q_weight, the tried drops' children go through the same forward pass as the
  // samples (one set of batch-norm statistics a step, not a second from the children alone).
  const bool regress_q_now = regress_q && b.q_children.size() > 0;
  torch::Tensor logits, value, q_value;
  {
    AutocastScope autocast(m.options.precision == "bf16", m.device);
    if (regress_q_now) {
      torch::Tensor all = torch::cat({x, net::planes_tensor(b.q_children, m.device)}, 0);
      std::tie(logits, value) = m.net->forward(all);
      q_value = value.slice(0, n);
      logits = logits.slice(0, 0, n);
      value = value.slice(0, 0, n);
    } else {
      std::tie(logits, value) = m.net->forward(x);
    }
  }
  logits = logits.to(torch::kFloat32);  // the losses in float32 whatever the forward's precision
  value = value.to(torch::kFloat32);
  torch::Tensor logp = net::masked_log_softmax(logits, mask);
  // Illegal entries hold -inf: zero them before a product, or 0 * -inf poisons the gradient.
  // (The policy gradient's tensors are made in the order they always were: autograd sums
  // gradients in creation order, and another order changes the trained weights' last bits.)
  torch::Tensor policy_loss;
  if (search) {
    torch::Tensor target =
        torch::from_blob(b.targets.data(), {n, net::kPolicySize}, torch::kFloat32).clone();
    torch::Tensor visited =
        torch::from_blob(b.visited.data(), {n, net::kPolicySize}, torch::kUInt8).clone();
    torch::Tensor rest = torch::from_blob(b.rest.data(), {n}, torch::kFloat32).clone();
    target = target.to(m.device);
    rest = rest.to(m.device);
    torch::Tensor unvisited = mask.logical_and(visited.to(m.device).logical_not());
    // pi(U): zero where rest is 0 (every legal drop evaluated), so the clamp never reaches a
    // gradient that counts.
    torch::Tensor p_rest = (logp.exp() * unvisited).sum(1).clamp_min(1e-12);
    torch::Tensor target_logp = logp.masked_fill(mask.logical_not(), 0.0);
    policy_loss = (-(target * target_logp).sum(1) - rest * p_rest.log()).mean();
  } else {
    torch::Tensor logp_a = logp.gather(1, actions).squeeze(1);
    torch::Tensor advantage = reward - value.detach();
    policy_loss = -(advantage * logp_a).mean();
  }
  torch::Tensor value_loss = (value - reward).pow(2).mean();
  torch::Tensor legal_logp = logp.masked_fill(mask.logical_not(), 0.0);
  torch::Tensor entropy = -(logp.exp() * legal_logp).sum(1).mean();
  torch::Tensor loss = search ? policy_loss + m.options.value_weight * value_loss
                              : policy_loss + m.options.value_weight * value_loss -
                                    m.options.entropy_weight * entropy;
  torch::Tensor q_target, q_loss;
  if (regress_q_now) {
    // The mean over the batch's tried drops (one a sample that has one), not over its samples.
    q_value = q_value.to(torch::kFloat32).reshape({-1});
    q_target = torch::from_blob(b.q_targets.data(), {int64_t(b.q_targets.size())}, torch::kFloat32)
                   .clone()
                   .to(m.device);
    q_loss = (q_value - q_target).pow(2).mean();
    loss = loss + m.options.q_weight * q_loss;
  }

  m.optimizer->zero_grad();
  loss.backward();
  m.optimizer->step();
  ++m.step;

  StepMetrics s;
  s.step = m.step;
  s.policy_loss = policy_loss.item<double>();
  s.value_loss = value_loss.item<double>();
  s.entropy = entropy.item<double>();
  torch::Tensor v = value.detach();
  s.mean_value = v.mean().item<double>();
  s.mean_reward = reward.mean().item<double>();
  s.value_reward_corr = correlation(v, reward);
  if (q_loss.defined()) {
    s.q_loss = q_loss.item<double>();
    s.q_corr = correlation(q_value.detach(), q_target);
  }
  return s;
}

void Trainer::save(const std::string& path, uint64_t generation) const {
  const Impl& m = *impl_;
  net::TrainingState state;
  state.train_step = m.step;
  state.generation = generation;
  state.rng_state.resize(4);
  m.rng.save(state.rng_state.data());
  net::save_checkpoint(path, *m.net, m.optimizer.get(), state);
}

void Trainer::reanalyse(TrainBatch& batch) {
  if (batch.positions.size() != size_t(batch.inputs.size()))
    throw std::runtime_error("reanalysis needs a batch sampled with its children");
  reanalyse_targets(impl_->net, impl_->behaviour, impl_->device, impl_->options, batch);
}

void Trainer::set_behaviour(const std::string& checkpoint) {
  Impl& m = *impl_;
  if (checkpoint.empty()) {
    m.behaviour = nullptr;
    return;
  }
  net::Checkpoint c = net::load_checkpoint(checkpoint, m.device);
  if (!(c.config == m.config))
    throw std::runtime_error(checkpoint + ": the behaviour network is " + net::describe(c.config) +
                             ", the trained one " + net::describe(m.config));
  m.behaviour = c.net;
  m.behaviour->eval();
}

uint64_t Trainer::steps() const { return impl_->step; }
uint64_t Trainer::generation() const { return impl_->generation; }
Rng& Trainer::rng() { return impl_->rng; }
const std::string& Trainer::init_note() const { return impl_->init_note; }

const net::NetConfig& Trainer::config() const { return impl_->config; }
const net::PolicyValueNetImpl& Trainer::network() const { return *impl_->net; }

}  // namespace fuseki
