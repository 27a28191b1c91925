#include "net/network.h"

#include <stdexcept>

#include "net/site_features.h"

namespace fuseki::net {
namespace {

torch::nn::Conv2d conv(int in, int out, int kernel, bool bias) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, kernel).padding(kernel / 2).bias(bias));
}

}  // namespace

ResidualBlockImpl::ResidualBlockImpl(int channels_) : channels(channels_) { reset(); }

void ResidualBlockImpl::reset() {
  conv1 = register_module("conv1", conv(channels, channels, 3, false));
  bn1 = register_module("bn1", torch::nn::BatchNorm2d(channels));
  conv2 = register_module("conv2", conv(channels, channels, 3, false));
  bn2 = register_module("bn2", torch::nn::BatchNorm2d(channels));
}

torch::Tensor ResidualBlockImpl::forward(const torch::Tensor& x) {
  torch::Tensor y = torch::relu(bn1(conv1(x)));
  y = bn2(conv2(y));
  return torch::relu(y + x);
}

PolicyValueNetImpl::PolicyValueNetImpl(const NetConfig& config) : config_(config) {
  if (!valid(config))
    throw std::invalid_argument("network: unsupported architecture " + describe(config) +
                                " (channels 1.." + std::to_string(kMaxChannels) + ", blocks 0.." +
                                std::to_string(kMaxBlocks) + ", value_channels 1.." +
                                std::to_string(kMaxValueChannels) + ", value_hidden 0.." +
                                std::to_string(kMaxChannels) + ")");
  reset();
}

void PolicyValueNetImpl::reset() {
  const int c = config_.channels;
  stem_conv = register_module("stem_conv",
                              conv(config_.site() ? kSiteInputPlanes : kInputPlanes, c, 3, false));
  stem_bn = register_module("stem_bn", torch::nn::BatchNorm2d(c));
  blocks = register_module("blocks", torch::nn::ModuleList());
  for (int i = 0; i < config_.blocks; ++i) blocks->push_back(ResidualBlock(c));
  policy_conv = register_module("policy_conv", conv(c, kKinds, 1, true));
  const int vc = config_.value_channels, vh = config_.value_width();
  value_conv = register_module("value_conv", conv(c, vc, 1, false));
  value_bn = register_module("value_bn", torch::nn::BatchNorm2d(vc));
  value_fc1 = register_module("value_fc1", torch::nn::Linear(kPlaneSize * vc, vh));
  value_fc2 = register_module("value_fc2", torch::nn::Linear(vh, 1));
}

std::tuple<torch::Tensor, torch::Tensor> PolicyValueNetImpl::forward(const torch::Tensor& x) {
  torch::Tensor h = torch::relu(stem_bn(stem_conv(x)));
  for (const auto& block : *blocks) h = block->as<ResidualBlock>()->forward(h);

  // Policy: one logit per kind and square; only the mover's camp ranks are drop targets.
  torch::Tensor p;
  if (config_.site())  // the site's 648 labels, their camp entries in native order
    p = policy_conv(h).flatten(1).index_select(1, site_camp_labels(h.device()));
  else
    p = policy_conv(h).slice(2, kFirstCampRank, kBoardRanks).reshape({-1, kPolicySize});

  torch::Tensor v = torch::relu(value_bn(value_conv(h))).flatten(1);
  v = torch::relu(value_fc1(v));
  v = torch::tanh(value_fc2(v)).squeeze(1);
  return {p, v};
}

torch::Tensor site_camp_labels(torch::Device device) {
  static const torch::Tensor labels = [] {
    std::vector<int64_t> v(kPolicySize);
    for (int i = 0; i < kPolicySize; ++i) v[size_t(i)] = site_label_of_index(i);
    return torch::tensor(v, torch::kInt64);
  }();
  return device.is_cpu() ? labels : labels.to(device);
}

torch::Device PolicyValueNetImpl::device() const { return stem_conv->weight.device(); }

namespace {

// BN(conv(x)) = scale * (W x + b - mean) + beta, scale = gamma / sqrt(var + eps).
InferenceNet::Layer fold(std::string name, const torch::nn::Conv2d& conv,
                         const torch::nn::BatchNorm2d& bn, torch::Device device,
                         torch::ScalarType dtype) {
  torch::NoGradGuard no_grad;
  torch::Tensor weight = conv->weight.detach().to(torch::kCPU);
  torch::Tensor bias =
      conv->options.bias() ? conv->bias.detach().to(torch::kCPU) : torch::zeros({weight.size(0)});
  if (bn) {
    torch::Tensor scale =
        (bn->weight / torch::sqrt(bn->running_var + bn->options.eps())).detach().to(torch::kCPU);
    weight = weight * scale.reshape({-1, 1, 1, 1});
    bias = (bias - bn->running_mean.to(torch::kCPU)) * scale + bn->bias.detach().to(torch::kCPU);
  }
  return {std::move(name), weight.contiguous().to(device, dtype),
          bias.contiguous().to(device, dtype), (*conv->options.kernel_size())[0] / 2};
}

InferenceNet::Layer dense(std::string name, const torch::nn::Linear& l, torch::Device device,
                          torch::ScalarType dtype) {
  return {std::move(name), l->weight.detach().to(device, dtype), l->bias.detach().to(device, dtype),
          0};
}

}  // namespace

InferenceNet::InferenceNet(const PolicyValueNetImpl& net, torch::Device device,
                           torch::ScalarType dtype)
    : config_(net.config()), dtype_(dtype) {
  enum { X, H, Y, P, V };
  auto layer = [&](Layer l) {
    layers_.push_back(std::move(l));
    return int(layers_.size()) - 1;
  };
  auto step = [&](Op op, int out, int a, int b = -1, int layer_index = -1) {
    steps_.push_back({op, out, a, b, layer_index});
  };
  // Relu and Add may work in place on their first operand: it is always a fresh result here.
  step(Op::Conv, H, X, -1, layer(fold("stem", net.stem_conv, net.stem_bn, device, dtype)));
  step(Op::Relu, H, H);
  for (size_t i = 0; i < net.blocks->size(); ++i) {
    const auto block = net.blocks->ptr<ResidualBlockImpl>(i);
    const std::string b = "block" + std::to_string(i);
    step(Op::Conv, Y, H, -1, layer(fold(b + "_conv1", block->conv1, block->bn1, device, dtype)));
    step(Op::Relu, Y, Y);
    step(Op::Conv, Y, Y, -1, layer(fold(b + "_conv2", block->conv2, block->bn2, device, dtype)));
    step(Op::Add, H, Y, H);
    step(Op::Relu, H, H);
  }
  step(Op::Conv, P, H, -1, layer(fold("policy", net.policy_conv, nullptr, device, dtype)));
  step(config_.site() ? Op::SiteLabels : Op::PolicyLabels, P, P);
  step(Op::Conv, V, H, -1, layer(fold("value", net.value_conv, net.value_bn, device, dtype)));
  step(Op::Relu, V, V);
  step(Op::Flatten, V, V);
  step(Op::Linear, V, V, -1, layer(dense("value_fc1", net.value_fc1, device, dtype)));
  step(Op::Relu, V, V);
  step(Op::Linear, V, V, -1, layer(dense("value_fc2", net.value_fc2, device, dtype)));
  step(Op::TanhSqueeze, V, V);
}

std::tuple<torch::Tensor, torch::Tensor> InferenceNet::forward(const torch::Tensor& input) const {
  torch::Tensor r[std::size(kRegisterNames)];
  r[kInput] = input.scalar_type() == dtype_ ? input : input.to(dtype_);
  for (const Step& s : steps_) {
    const torch::Tensor& a = r[s.a];
    switch (s.op) {
      case Op::Conv: {
        const Layer& l = layers_[size_t(s.layer)];
        r[s.out] = torch::conv2d(a, l.weight, l.bias, 1, l.padding);
        break;
      }
      case Op::Linear: {
        const Layer& l = layers_[size_t(s.layer)];
        r[s.out] = torch::linear(a, l.weight, l.bias);
        break;
      }
      case Op::Relu:
        r[s.out] = r[s.a].relu_();
        break;
      case Op::Add:
        r[s.out] = r[s.a].add_(r[s.b]);
        break;
      case Op::PolicyLabels:
        r[s.out] = a.slice(2, kFirstCampRank, kBoardRanks).reshape({-1, kPolicySize});
        break;
      case Op::SiteLabels:
        r[s.out] = a.flatten(1).index_select(1, site_camp_labels(a.device()));
        break;
      case Op::Flatten:
        r[s.out] = a.flatten(1);
        break;
      case Op::TanhSqueeze:
        r[s.out] = a.tanh().squeeze(1);
        break;
    }
  }
  torch::Tensor p = r[kPolicyOut], v = r[kValueOut];
  if (dtype_ != torch::kFloat32) return {p.to(torch::kFloat32), v.to(torch::kFloat32)};
  return {p, v};
}

torch::ScalarType select_precision(const std::string& name, torch::Device device) {
  if (name == "fp32") return torch::kFloat32;
  if (name == "bf16") return torch::kBFloat16;
  if (name == "fp16") {
    if (device.is_cpu())
      throw std::runtime_error("precision 'fp16' needs a CUDA device; on CPU use bf16 or fp32");
    return torch::kFloat16;
  }
  throw std::runtime_error("unknown precision '" + name + "' (expected fp32, bf16 or fp16)");
}

torch::Tensor masked_log_softmax(const torch::Tensor& logits, const torch::Tensor& mask) {
  const torch::Tensor legal = mask.to(torch::kBool);
  return logits.masked_fill(legal.logical_not(), -std::numeric_limits<float>::infinity())
      .log_softmax(1);
}

torch::Tensor masked_softmax(const torch::Tensor& logits, const torch::Tensor& mask) {
  const torch::Tensor legal = mask.to(torch::kBool);
  torch::Tensor p =
      logits.masked_fill(legal.logical_not(), -std::numeric_limits<float>::infinity()).softmax(1);
  // A row without a legal entry is NaN after the softmax; where() turns it into zeros.
  return torch::where(legal, p, torch::zeros_like(p));
}

torch::Tensor policy_cross_entropy(const torch::Tensor& logits, const torch::Tensor& mask,
                                   const torch::Tensor& target) {
  const torch::Tensor legal = mask.to(torch::kBool);
  torch::Tensor logp = masked_log_softmax(logits, legal).masked_fill(legal.logical_not(), 0.0);
  return -(target * logp).sum(1).mean();
}

torch::Device select_device(const std::string& name) {
  if (name == "cpu") return torch::Device(torch::kCPU);
  const bool cuda = torch::cuda::is_available();
  if (name == "auto") return cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  if (name == "cuda" || name.rfind("cuda:", 0) == 0) {
    if (!cuda)
      throw std::runtime_error("device '" + name +
                               "': CUDA is not available (this LibTorch is CPU-only or no GPU is "
                               "visible); use 'cpu'");
    int index = 0;
    if (name.size() > 4) {
      const std::string digits = name.substr(5);
      if (digits.empty() || digits.size() > 3 ||
          digits.find_first_not_of("0123456789") != std::string::npos)
        throw std::runtime_error("device '" + name + "': expected cuda:N with N a GPU index");
      index = std::stoi(digits);
    }
    const int count = int(torch::cuda::device_count());
    if (index >= count)
      throw std::runtime_error("device '" + name + "': only " + std::to_string(count) +
                               " CUDA device(s) visible");
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
  }
  throw std::runtime_error("unknown device '" + name + "' (expected cpu, cuda, cuda:N or auto)");
}

torch::Tensor planes_tensor(const EncodedBatch& batch, torch::Device device) {
  torch::Tensor t = torch::from_blob(const_cast<float*>(batch.planes.data()),
                                     {batch.size(), batch.input_planes(), kBoardRanks, kBoardFiles},
                                     torch::kFloat32);
  return device.is_cpu() ? t : t.to(device);
}

torch::Tensor mask_tensor(const EncodedBatch& batch, torch::Device device) {
  torch::Tensor t = torch::from_blob(const_cast<uint8_t*>(batch.masks.data()),
                                     {batch.size(), kPolicySize}, torch::kUInt8);
  return t.to(device, torch::kBool);
}

}  // namespace fuseki::net
