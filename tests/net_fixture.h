// Networks that look trained, for tests and parity data: batch-norm scales and shifts away from
// 1 and 0, running statistics those of real positions (one forward pass in training mode over
// `x`, momentum 1, so every ReLU sees activations of both signs), and a non-zero policy bias.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "net/network.h"

namespace fuseki::net {

inline void randomize_batch_norms(PolicyValueNetImpl& net, const torch::Tensor& x) {
  torch::NoGradGuard no_grad;
  std::vector<torch::nn::BatchNorm2dImpl*> bns;
  for (auto& m : net.modules(/*include_self=*/false))
    if (auto* bn = m->as<torch::nn::BatchNorm2dImpl>()) bns.push_back(bn);
  for (auto* bn : bns) {
    const int64_t c = bn->running_mean.size(0);
    bn->weight.copy_(torch::rand({c}) + 0.5);
    bn->bias.copy_((torch::rand({c}) - 0.5) * 0.6);
    bn->options.momentum(1.0);
  }
  net.policy_conv->bias.copy_((torch::rand(net.policy_conv->bias.sizes()) - 0.5) * 0.4);
  net.train();
  net.forward(x);
  for (auto* bn : bns) bn->options.momentum(0.1);
  net.eval();
}

}  // namespace fuseki::net
