#include "net/evaluator.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "net/checkpoint.h"
#include "net/network.h"
#include "net/onnx_import.h"
#include "net/sample.h"

namespace fuseki::net {

struct Evaluator::Impl {
  torch::Device device;
  torch::ScalarType dtype;
  int threads;
  int chunk;
  std::optional<InferenceNet> net;      // a PolicyValueNet (a checkpoint), or
  std::shared_ptr<const OnnxNet> onnx;  // an imported ONNX graph
  NetConfig config;
  EncodedBatch batch;
  uint64_t weights_version = 0;

  explicit Impl(const EvaluatorOptions& options)
      : device(select_device(options.device)),
        dtype(select_precision(options.precision, device)),
        threads(options.threads),
        chunk(options.cpu_chunk) {
    if (threads < 0) throw std::invalid_argument("evaluator: threads must be >= 0");
    if (chunk < 0) throw std::invalid_argument("evaluator: cpu_chunk must be >= 0");
    if (!device.is_cpu()) chunk = 0;
  }
  Impl(const PolicyValueNetImpl& source, const EvaluatorOptions& options) : Impl(options) {
    net.emplace(source, device, dtype);
    config = source.config();
    batch.site = config.site();
  }

  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x) const {
    return onnx ? onnx->forward(x) : net->forward(x);
  }

  void apply_threads() const {
    // The setting is per calling thread under OpenMP, so it is applied where inference runs.
    if (threads > 0 && torch::get_num_threads() != threads) torch::set_num_threads(threads);
  }
};

Evaluator::Evaluator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Evaluator::Evaluator(const PolicyValueNetImpl& net, const EvaluatorOptions& options)
    : impl_(std::make_unique<Impl>(net, options)) {}

Evaluator::Evaluator(const NetConfig& config, const EvaluatorOptions& options)
    : Evaluator(*PolicyValueNet(config), options) {}

Evaluator Evaluator::from_checkpoint(const std::string& path, const EvaluatorOptions& options) {
  Checkpoint checkpoint = load_checkpoint(path);
  return Evaluator(*checkpoint.net, options);
}

Evaluator Evaluator::from_onnx(const std::string& path, const EvaluatorOptions& options) {
  auto impl = std::make_unique<Impl>(options);
  impl->onnx = OnnxNet::load(path, impl->device, impl->dtype);
  impl->config = impl->onnx->config();
  impl->batch.site = impl->config.site();
  return Evaluator(std::move(impl));
}

Evaluator Evaluator::from_file(const std::string& path, const EvaluatorOptions& options) {
  return is_onnx_file(path) ? from_onnx(path, options) : from_checkpoint(path, options);
}

bool Evaluator::is_onnx(const std::string& path) { return is_onnx_file(path); }

Evaluator::~Evaluator() = default;
Evaluator::Evaluator(Evaluator&&) noexcept = default;
Evaluator& Evaluator::operator=(Evaluator&&) noexcept = default;

void Evaluator::set_weights(const PolicyValueNetImpl& net) {
  if (!(net.config() == impl_->config))
    throw std::invalid_argument("evaluator: new weights are " + describe(net.config()) +
                                ", this evaluator runs " + describe(impl_->config));
  impl_->net.emplace(net, impl_->device, impl_->dtype);
  impl_->onnx.reset();
  ++impl_->weights_version;
}

uint64_t Evaluator::weights_version() const { return impl_->weights_version; }

void Evaluator::evaluate(const EncodedBatch& batch, float* policy, float* values) {
  const int n = batch.size();
  if (n == 0) return;
  if (batch.site != impl_->config.site())
    throw std::invalid_argument(std::string("evaluator: positions encoded for the ") +
                                (batch.site ? "site" : "native") + " format, the network reads " +
                                format_name(impl_->config));
  impl_->apply_threads();
  torch::NoGradGuard no_grad;
  const torch::Tensor x = planes_tensor(batch, impl_->device);
  const torch::Tensor mask = mask_tensor(batch, impl_->device);
  // On CPU, slices of a few dozen positions keep the activations in cache; larger batches only
  // add memory traffic.
  const int step = impl_->chunk > 0 ? impl_->chunk : n;
  for (int first = 0; first < n; first += step) {
    const int count = std::min(step, n - first);
    auto [logits, value] = impl_->forward(x.slice(0, first, first + count));
    const torch::Tensor p =
        masked_softmax(logits, mask.slice(0, first, first + count)).to(torch::kCPU).contiguous();
    const torch::Tensor v = value.to(torch::kCPU).contiguous();
    std::memcpy(policy + size_t(first) * kPolicySize, p.data_ptr<float>(),
                sizeof(float) * size_t(count) * kPolicySize);
    std::memcpy(values + first, v.data_ptr<float>(), sizeof(float) * size_t(count));
  }
}

std::vector<Evaluation> Evaluator::evaluate(std::span<const Position* const> positions) {
  EncodedBatch& batch = impl_->batch;
  batch.clear();
  batch.reserve(int(positions.size()));
  for (const Position* pos : positions) batch.add(*pos);
  std::vector<float> policy(positions.size() * kPolicySize), values(positions.size());
  evaluate(batch, policy.data(), values.data());
  std::vector<Evaluation> out(positions.size());
  for (size_t i = 0; i < positions.size(); ++i) {
    out[i].policy.assign(policy.begin() + std::ptrdiff_t(i * kPolicySize),
                         policy.begin() + std::ptrdiff_t((i + 1) * kPolicySize));
    out[i].value = values[i];
  }
  return out;
}

Evaluation Evaluator::evaluate(const Position& pos) {
  const Position* one[] = {&pos};
  return std::move(evaluate(std::span<const Position* const>(one))[0]);
}

Move Evaluator::sample(const Position& pos, const Evaluation& eval, double temperature, Rng& rng) {
  if (eval.policy.size() != size_t(kPolicySize))
    throw std::invalid_argument("evaluator: sample needs a policy of kPolicySize entries");
  return sample_drop(pos, eval.policy.data(), temperature, rng);
}

const NetConfig& Evaluator::config() const { return impl_->config; }
std::string Evaluator::device() const { return impl_->device.str(); }
int Evaluator::threads() const {
  return impl_->threads > 0 ? impl_->threads : torch::get_num_threads();
}

}  // namespace fuseki::net
