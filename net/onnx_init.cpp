#include "net/onnx_init.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "net/checkpoint.h"
#include "net/encode.h"
#include "net/onnx_import.h"
#include "net/site_features.h"

namespace fuseki::net {
namespace {

constexpr int kCheckPositions = 256;
constexpr float kTolerance = 1e-3f;

std::string shape(const torch::Tensor& t) { return c10::str(t.sizes()); }

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
  throw CheckpointError("'" + path + "': cannot start a trainable network from it: " + what);
}

// Sets bn so that bn(a) = a + bias in evaluation mode, with the running statistics of `a` (the
// convolution's output on real positions): training mode then sees nearly the same function.
void absorb(torch::nn::BatchNorm2d& bn, const torch::Tensor& a, const torch::Tensor& bias) {
  const torch::Tensor mean = a.mean({0, 2, 3});
  const torch::Tensor var = a.var({0, 2, 3}, /*unbiased=*/false);
  bn->running_mean.copy_(mean);
  bn->running_var.copy_(var);
  bn->weight.copy_(torch::sqrt(var + bn->options.eps()));
  bn->bias.copy_(mean + bias);
}

}  // namespace

std::string OnnxInit::summary() const {
  char diffs[160];
  if (value_from_file)
    std::snprintf(diffs, sizeof diffs, "max |difference| %.1e (logits), %.1e (values)",
                  double(max_logit_diff), double(max_value_diff));
  else
    std::snprintf(diffs, sizeof diffs, "max |difference| %.1e (logits)", double(max_logit_diff));
  std::string s = describe(net->config());
  s += value_from_file ? ": policy and value taken from the file; "
                       : ": policy taken from the file, value head fresh (the file has none); ";
  s += diffs;
  s += " on " + std::to_string(kCheckPositions) + " placement positions";
  return s;
}

OnnxInit network_from_onnx(const std::string& path, uint64_t seed) {
  const auto file = OnnxNet::load(path);
  const bool site = file->config().site();
  auto fail = [&](const std::string& what) { refuse(path, what); };

  // Sort the weighted layers into stem, trunk, policy and value.
  std::vector<OnnxNet::Layer> stem, trunk;
  const OnnxNet::Layer *policy = nullptr, *value_conv = nullptr;
  std::vector<const OnnxNet::Layer*> dense;
  const std::vector<OnnxNet::Layer> layers = file->layers();
  for (const OnnxNet::Layer& l : layers) {
    if (!l.conv) {
      dense.push_back(&l);
      continue;
    }
    if (!l.plain) fail(l.node + ": strides, dilations, groups or padding of another kind");
    if (l.source >= 0)
      stem.push_back(l);
    else if (l.weight.size(2) == 3)
      trunk.push_back(l);
    else if (l.weight.size(2) == 1 && l.weight.size(0) == kKinds && !policy)
      policy = &l;
    else if (l.weight.size(2) == 1 && policy && !value_conv)  // the policy's comes first
      value_conv = &l;
    else
      fail(l.node + ": a weight " + shape(l.weight) +
           " that is no layer of fusekilab's residual network");
  }
  if (stem.empty()) fail("no convolution reads the inputs");
  const int64_t channels = stem.front().weight.size(0);
  if (channels > kMaxChannels)
    fail(std::to_string(channels) + " channels (at most " + std::to_string(kMaxChannels) + ")");
  if (trunk.size() % 2 != 0)
    fail(std::to_string(trunk.size()) + " 3x3 convolutions after the stem: residual blocks " +
         "have two each");
  const int blocks = int(trunk.size() / 2);
  if (blocks > kMaxBlocks)
    fail(std::to_string(blocks) + " residual blocks (at most " + std::to_string(kMaxBlocks) + ")");
  if (!policy) fail("no 1x1 convolution to 8 channels (the policy head)");
  const bool has_value = value_conv != nullptr;
  if (has_value != file->has_value() || (has_value && dense.size() != 2) ||
      (!has_value && !dense.empty()))
    fail("its value head is not a 1x1 convolution and two dense layers");

  NetConfig config = file->config();
  config.channels = int(channels);
  config.blocks = blocks;
  config.value_channels = 1;
  config.value_hidden = 0;
  if (has_value) {  // the head's sizes, as the file has them
    const int64_t vc = value_conv->weight.size(0), vh = dense[0]->weight.size(0);
    if (vc > kMaxValueChannels || vh > kMaxChannels)
      fail("a value head of " + std::to_string(vc) + " channels and " + std::to_string(vh) +
           " hidden units (at most " + std::to_string(kMaxValueChannels) + " and " +
           std::to_string(kMaxChannels) + ")");
    config.value_channels = int(vc);
    if (vc != 1 || vh != channels) config.value_hidden = int(vh);
  }
  auto check = [&](const OnnxNet::Layer& l, std::vector<int64_t> want) {
    if (l.weight.sizes() != torch::IntArrayRef(want))
      fail(l.node + ": weight " + shape(l.weight) + ", expected " + c10::str(want) + " for " +
           describe(config));
  };
  for (const OnnxNet::Layer& l : trunk) check(l, {channels, channels, 3, 3});
  check(*policy, {kKinds, channels, 1, 1});
  if (has_value) {
    const int64_t vc = config.value_channels, vh = config.value_width();
    check(*value_conv, {vc, channels, 1, 1});
    check(*dense[0], {vh, kPlaneSize * vc});
    check(*dense[1], {1, vh});
  }

  // The stem's convolutions, summed into one 3x3 over all the input planes.
  const int64_t planes = site ? kSiteInputPlanes : kInputPlanes;
  torch::Tensor stem_w = torch::zeros({channels, planes, 3, 3});
  torch::Tensor stem_b = torch::zeros({channels});
  for (const OnnxNet::Layer& l : stem) {
    const int64_t first = l.source == 1 ? kSitePlanes1 : 0;
    const int64_t count = l.source == 0 ? kSitePlanes1 : l.source == 1 ? kSitePlanes2 : planes;
    const int64_t k = l.weight.size(2);
    if (l.weight.size(0) != channels || l.weight.size(1) != count || (k != 1 && k != 3))
      fail(l.node + ": a stem weight " + shape(l.weight) + ", expected [" +
           std::to_string(channels) + ", " + std::to_string(count) + ", 3 or 1, 3 or 1]");
    const int64_t at = k == 1 ? 1 : 0;
    stem_w.slice(1, first, first + count).slice(2, at, at + k).slice(3, at, at + k) += l.weight;
    stem_b += l.bias;
  }

  // Build the network and take the weights, calibrating each batch norm on real positions.
  OnnxInit out;
  torch::manual_seed(seed);  // the fresh value head, where the file has none
  out.net = PolicyValueNet(config);
  PolicyValueNetImpl& net = *out.net;
  net.eval();
  EncodedBatch batch;
  batch.site = site;
  for (const Position& p : random_placement_positions(kCheckPositions, seed)) batch.add(p);
  const torch::Tensor x = planes_tensor(batch, torch::kCPU).clone();
  {
    torch::NoGradGuard no_grad;
    auto take = [](torch::nn::Conv2d& conv, torch::nn::BatchNorm2d& bn, const torch::Tensor& in,
                   const torch::Tensor& w, const torch::Tensor& b) {
      conv->weight.copy_(w);
      const torch::Tensor a = conv(in);
      absorb(bn, a, b);
      return bn(a);
    };
    torch::Tensor h = take(net.stem_conv, net.stem_bn, x, stem_w, stem_b).relu();
    for (int i = 0; i < blocks; ++i) {
      auto& block = *net.blocks->ptr<ResidualBlockImpl>(size_t(i));
      const OnnxNet::Layer &c1 = trunk[size_t(2 * i)], &c2 = trunk[size_t(2 * i + 1)];
      torch::Tensor y = take(block.conv1, block.bn1, h, c1.weight, c1.bias).relu();
      h = (take(block.conv2, block.bn2, y, c2.weight, c2.bias) + h).relu();
    }
    net.policy_conv->weight.copy_(policy->weight);
    net.policy_conv->bias.copy_(policy->bias);
    if (has_value) {
      torch::Tensor v = take(net.value_conv, net.value_bn, h, value_conv->weight, value_conv->bias)
                            .relu()
                            .flatten(1);
      net.value_fc1->weight.copy_(dense[0]->weight);
      net.value_fc1->bias.copy_(dense[0]->bias);
      net.value_fc2->weight.copy_(dense[1]->weight);
      net.value_fc2->bias.copy_(dense[1]->bias);
      // The file's value may be a scaled copy of ours before the tanh (the site's output_value
      // is read through a sigmoid: tanh(o / 2)): fit that one factor by least squares.
      const torch::Tensor z = net.value_fc2(net.value_fc1(v).relu()).squeeze(1);
      const torch::Tensor target = std::get<1>(file->forward(x)).clamp(-1 + 1e-6, 1 - 1e-6).atanh();
      const double zz = z.dot(z).item<double>();
      const double scale = zz > 0 ? z.dot(target).item<double>() / zz : 1.0;
      net.value_fc2->weight.mul_(scale);
      net.value_fc2->bias.mul_(scale);
    }

    // The check: the network beside the file.
    const auto [p_net, v_net] = net.forward(x);
    const auto [p_file, v_file] = file->forward(x);
    out.max_logit_diff = (p_net - p_file).abs().max().item<float>();
    out.value_from_file = has_value;
    if (has_value) out.max_value_diff = (v_net - v_file).abs().max().item<float>();
  }
  if (!(out.max_logit_diff <= kTolerance) || !(out.max_value_diff <= kTolerance)) {
    char what[200];
    std::snprintf(what, sizeof what,
                  "its weights fit a %s network but its outputs differ from it by %.3g (logits) "
                  "and %.3g (values): the graph is not fusekilab's residual architecture",
                  describe(config).c_str(), double(out.max_logit_diff), double(out.max_value_diff));
    fail(what);
  }
  net.train();
  return out;
}

}  // namespace fuseki::net
