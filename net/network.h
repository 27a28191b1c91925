// The policy-value network: a small residual convolutional net over the mover's-view planes.
//   stem:   3x3 conv (kInputPlanes -> channels), BN, ReLU
//   trunk:  `blocks` residual blocks: 3x3 conv, BN, ReLU, 3x3 conv, BN, + skip, ReLU
//   policy: 1x1 conv (channels -> 8 kinds, with bias); the mover's 4 camp ranks -> 288 logits
//   value:  1x1 conv (channels -> 1), BN, ReLU, FC 81 -> channels, ReLU, FC -> 1, tanh
#pragma once

#include <torch/torch.h>

#include <string>
#include <tuple>
#include <vector>

#include "net/encode.h"
#include "net/net_config.h"

namespace fuseki::net {

class ResidualBlockImpl : public torch::nn::Cloneable<ResidualBlockImpl> {
 public:
  explicit ResidualBlockImpl(int channels);
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x);

  int channels;
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
};
TORCH_MODULE(ResidualBlock);

class PolicyValueNetImpl : public torch::nn::Cloneable<PolicyValueNetImpl> {
 public:
  explicit PolicyValueNetImpl(const NetConfig& config = {});
  void reset() override;

  // x: [N, kInputPlanes, 9, 9] float. Returns the policy logits [N, kPolicySize] (unmasked) and
  // the value [N]: the mover's expected score in [-1, 1].
  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x);

  const NetConfig& config() const { return config_; }
  torch::Device device() const;

  // Submodules, public for export (parameter names: stem_conv.weight, blocks.0.conv1.weight, ...).
  torch::nn::Conv2d stem_conv{nullptr};
  torch::nn::BatchNorm2d stem_bn{nullptr};
  torch::nn::ModuleList blocks{nullptr};
  torch::nn::Conv2d policy_conv{nullptr};
  torch::nn::Conv2d value_conv{nullptr};
  torch::nn::BatchNorm2d value_bn{nullptr};
  torch::nn::Linear value_fc1{nullptr}, value_fc2{nullptr};

 private:
  NetConfig config_;
};
TORCH_MODULE(PolicyValueNet);

// The network frozen for inference: each batch norm folded into the convolution before it, so a
// forward pass is convolutions, ReLUs and adds only. Same outputs as PolicyValueNetImpl::forward
// in eval mode (to float rounding, ~1e-6); built on `device`, never trained.
//
// Its forward pass is data: a list of steps over a few named registers. forward() runs the steps
// and export_torchscript (net/checkpoint.h) writes the same steps out as TorchScript source, so
// inference and the exported file cannot drift apart.
class InferenceNet {
 public:
  struct Layer {       // a convolution (batch norm folded in) or a fully connected layer
    std::string name;  // "stem", "block0_conv1", ..., "value_fc2"
    torch::Tensor weight, bias;
    int64_t padding = 0;  // convolutions
  };
  enum class Op {
    Conv,          // out = conv2d(a, layer)
    Linear,        // out = linear(a, layer)
    Relu,          // out = relu(a)
    Add,           // out = a + b
    PolicyLabels,  // out = the mover's camp ranks of a, as [N, kPolicySize] logits
    SiteLabels,    // out = a flattened to the site's 648 labels, their camp entries gathered
    Flatten,       // out = a flattened from dimension 1
    TanhSqueeze,   // out = tanh(a) without its last dimension of 1
  };
  struct Step {
    Op op;
    int out, a, b = -1, layer = -1;
  };
  // Registers: the input, the trunk, a block's inner activation, the policy and value outputs.
  static constexpr const char* kRegisterNames[] = {"x", "h", "y", "p", "v"};
  static constexpr int kInput = 0, kPolicyOut = 3, kValueOut = 4;

  // dtype: the precision of the weights and activations (kFloat32, kBFloat16, or kFloat16 on
  // CUDA); inputs are cast to it and outputs come back as float32.
  InferenceNet(const PolicyValueNetImpl& net, torch::Device device,
               torch::ScalarType dtype = torch::kFloat32);
  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x) const;
  const NetConfig& config() const { return config_; }
  const std::vector<Layer>& layers() const { return layers_; }
  const std::vector<Step>& steps() const { return steps_; }

 private:
  NetConfig config_;
  torch::ScalarType dtype_;
  std::vector<Layer> layers_;
  std::vector<Step> steps_;
};

// Log-probabilities over the legal drops only: illegal logits become -inf before the softmax.
// mask: [N, kPolicySize], bool or uint8, 1 = legal. Every row needs at least one legal entry.
torch::Tensor masked_log_softmax(const torch::Tensor& logits, const torch::Tensor& mask);
// Probabilities over the legal drops, exactly 0 on illegal entries; an all-illegal row is all 0.
torch::Tensor masked_softmax(const torch::Tensor& logits, const torch::Tensor& mask);
// Mean cross-entropy -sum(target * log p) of target distributions against the masked policy.
// Illegal entries never contribute (no 0 * -inf), whatever the target holds there.
torch::Tensor policy_cross_entropy(const torch::Tensor& logits, const torch::Tensor& mask,
                                   const torch::Tensor& target);

// The site's label of each native policy index (kPolicySize int64, net/site_features.h): a site
// network's 648 logits, index_select-ed with it, are the native [N, kPolicySize] logits.
torch::Tensor site_camp_labels(torch::Device device);

// "cpu"; "cuda" or "cuda:N" when torch::cuda::is_available(); "auto" = cuda if available, else cpu.
// Anything else, or CUDA asked for where there is none, throws std::runtime_error.
// "fp32", "bf16" or "fp16" (fp16 on CUDA only); throws naming the bad value.
torch::ScalarType select_precision(const std::string& name, torch::Device device);
torch::Device select_device(const std::string& name);

// The planes and masks of an EncodedBatch as tensors on `device`: [N, kInputPlanes, 9, 9] float
// and [N, kPolicySize] bool.
torch::Tensor planes_tensor(const EncodedBatch& batch, torch::Device device);
torch::Tensor mask_tensor(const EncodedBatch& batch, torch::Device device);

}  // namespace fuseki::net
