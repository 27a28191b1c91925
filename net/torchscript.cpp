// TorchScript export: a torch::jit::Module with the folded weights of InferenceNet as parameters
// and its steps written out as TorchScript source, so the file needs no fusekilab code to run and
// computes what the evaluator computes.
#include <torch/script.h>

#include <sstream>

#include "io/atomic_file.h"
#include "net/checkpoint.h"
#include "net/site_features.h"

namespace fuseki::net {
namespace {

std::string forward_source(torch::jit::Module& module, const InferenceNet& net) {
  using Op = InferenceNet::Op;
  auto reg = [](int r) { return std::string(InferenceNet::kRegisterNames[r]); };
  for (const InferenceNet::Layer& l : net.layers()) {
    module.register_parameter(l.name + "_weight", l.weight.detach().clone(), false);
    module.register_parameter(l.name + "_bias", l.bias.detach().clone(), false);
  }
  std::ostringstream s;
  s << "def forward(self, x: Tensor) -> Tuple[Tensor, Tensor]:\n";
  for (const InferenceNet::Step& step : net.steps()) {
    const std::string out = reg(step.out), a = reg(step.a);
    std::string layer;
    int64_t pad = 0;
    if (step.layer >= 0) {
      const InferenceNet::Layer& l = net.layers()[size_t(step.layer)];
      layer = "self." + l.name + "_weight, self." + l.name + "_bias";
      pad = l.padding;
    }
    s << "    " << out << " = ";
    switch (step.op) {
      case Op::Conv:
        s << "torch.conv2d(" << a << ", " << layer << ", [1, 1], [" << pad << ", " << pad
          << "], [1, 1], 1)";
        break;
      case Op::Linear:
        s << "torch.linear(" << a << ", " << layer << ")";
        break;
      case Op::Relu:
        s << "torch.relu(" << a << ")";
        break;
      case Op::Add:
        s << a << " + " << reg(step.b);
        break;
      case Op::SiteLabels:
        s << "torch.flatten(" << a << ", 1).index_select(1, self.site_labels)";
        break;
      case Op::PolicyLabels:
        s << a << "[:, :, " << kFirstCampRank << ":" << kBoardRanks << ", :].reshape([-1, "
          << kPolicySize << "])";
        break;
      case Op::Flatten:
        s << "torch.flatten(" << a << ", 1)";
        break;
      case Op::TanhSqueeze:
        s << "torch.tanh(" << a << ").squeeze(1)";
        break;
    }
    s << "\n";
  }
  s << "    return (" << reg(InferenceNet::kPolicyOut) << ", " << reg(InferenceNet::kValueOut)
    << ")\n";
  return s.str();
}

}  // namespace

void export_torchscript(const PolicyValueNetImpl& net, const std::string& path) {
  std::string bytes;
  try {
    torch::jit::Module module("FusekiPolicyValueNet");
    module.register_attribute("channels", c10::IntType::get(), int64_t(net.config().channels));
    module.register_attribute("blocks", c10::IntType::get(), int64_t(net.config().blocks));
    module.register_attribute("input_planes", c10::IntType::get(),
                              int64_t(net.config().site() ? kSiteInputPlanes : kInputPlanes));
    if (net.config().site()) module.register_buffer("site_labels", site_camp_labels(torch::kCPU));
    module.register_attribute("policy_size", c10::IntType::get(), int64_t(kPolicySize));
    module.define(forward_source(module, InferenceNet(net, torch::kCPU)));
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
