// TorchScript export: a torch::jit::Module with the weights as parameters and buffers and the
// forward pass written out in TorchScript source, so the file needs no fusekilab code to run.
#include <torch/script.h>

#include <iomanip>
#include <sstream>

#include "io/atomic_file.h"
#include "net/checkpoint.h"

namespace fuseki::net {
namespace {

std::string attr(std::string name) {
  for (char& ch : name)
    if (ch == '.') ch = '_';
  return "self." + name;
}

// Emits the TorchScript for conv (+ BN) (+ ReLU) of one submodule, reading `in`.
class SourceWriter {
 public:
  explicit SourceWriter(torch::jit::Module& module) : module_(module) {}

  void param(const std::string& name, const torch::Tensor& t, bool buffer = false) {
    std::string key = attr(name).substr(5);
    torch::Tensor copy = t.detach().to(torch::kCPU).clone();
    if (buffer)
      module_.register_buffer(key, copy);
    else
      module_.register_parameter(key, copy, /*is_buffer=*/false);
  }

  std::string conv(const std::string& name, const torch::nn::Conv2d& c, const std::string& in) {
    param(name + ".weight", c->weight);
    std::string bias = "None";
    if (c->options.bias()) {
      param(name + ".bias", c->bias);
      bias = attr(name + ".bias");
    }
    const int64_t pad = (*c->options.kernel_size())[0] / 2;
    std::ostringstream s;
    s << "torch.conv2d(" << in << ", " << attr(name + ".weight") << ", " << bias << ", [1, 1], ["
      << pad << ", " << pad << "], [1, 1], 1)";
    return s.str();
  }

  std::string bn(const std::string& name, const torch::nn::BatchNorm2d& b, const std::string& in) {
    param(name + ".weight", b->weight);
    param(name + ".bias", b->bias);
    param(name + ".running_mean", b->running_mean, true);
    param(name + ".running_var", b->running_var, true);
    std::ostringstream s;
    s << std::setprecision(17) << "torch.batch_norm(" << in << ", " << attr(name + ".weight")
      << ", " << attr(name + ".bias") << ", " << attr(name + ".running_mean") << ", "
      << attr(name + ".running_var") << ", False, 0.1, " << b->options.eps() << ", False)";
    return s.str();
  }

  std::string linear(const std::string& name, const torch::nn::Linear& l, const std::string& in) {
    param(name + ".weight", l->weight);
    param(name + ".bias", l->bias);
    return "torch.linear(" + in + ", " + attr(name + ".weight") + ", " + attr(name + ".bias") + ")";
  }

 private:
  torch::jit::Module& module_;
};

std::string forward_source(torch::jit::Module& module, const PolicyValueNetImpl& net) {
  SourceWriter w(module);
  std::ostringstream s;
  s << "def forward(self, x: Tensor) -> Tuple[Tensor, Tensor]:\n";
  s << "    h = torch.relu("
    << w.bn("stem_bn", net.stem_bn, w.conv("stem_conv", net.stem_conv, "x")) << ")\n";
  for (size_t i = 0; i < net.blocks->size(); ++i) {
    const auto block = net.blocks->ptr<ResidualBlockImpl>(i);
    const std::string b = "blocks." + std::to_string(i) + ".";
    s << "    y = torch.relu("
      << w.bn(b + "bn1", block->bn1, w.conv(b + "conv1", block->conv1, "h")) << ")\n";
    s << "    y = " << w.bn(b + "bn2", block->bn2, w.conv(b + "conv2", block->conv2, "y")) << "\n";
    s << "    h = torch.relu(y + h)\n";
  }
  s << "    p = " << w.conv("policy_conv", net.policy_conv, "h") << "\n";
  s << "    p = p[:, :, " << kFirstCampRank << ":" << kBoardRanks << ", :].reshape([-1, "
    << kPolicySize << "])\n";
  s << "    v = torch.relu("
    << w.bn("value_bn", net.value_bn, w.conv("value_conv", net.value_conv, "h")) << ")\n";
  s << "    v = torch.flatten(v, 1)\n";
  s << "    v = torch.relu(" << w.linear("value_fc1", net.value_fc1, "v") << ")\n";
  s << "    v = torch.tanh(" << w.linear("value_fc2", net.value_fc2, "v") << ").squeeze(1)\n";
  s << "    return (p, v)\n";
  return s.str();
}

}  // namespace

void export_torchscript(const PolicyValueNetImpl& net, const std::string& path) {
  std::string bytes;
  try {
    torch::jit::Module module("FusekiPolicyValueNet");
    module.register_attribute("channels", c10::IntType::get(), int64_t(net.config().channels));
    module.register_attribute("blocks", c10::IntType::get(), int64_t(net.config().blocks));
    module.register_attribute("input_planes", c10::IntType::get(), int64_t(kInputPlanes));
    module.register_attribute("policy_size", c10::IntType::get(), int64_t(kPolicySize));
    module.define(forward_source(module, net));
    module.eval();
    std::ostringstream out;
    module.save(out);
    bytes = std::move(out).str();
  } catch (const c10::Error& e) {
    throw CheckpointError("TorchScript export '" + path + "': " + e.what_without_backtrace());
  }
  try {
    write_file_atomically(path, bytes);
  } catch (const std::runtime_error& e) {
    throw CheckpointError(std::string("TorchScript export ") + e.what());
  }
}

}  // namespace fuseki::net
