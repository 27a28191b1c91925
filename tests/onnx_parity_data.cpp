// The LibTorch side of the ONNX parity test (tests/onnx_parity.sh): makes a network with
// batch-norm statistics away from their defaults, saves it as a checkpoint (and a copy with one
// policy bias moved by 1e-3, which the comparison must reject), and writes random placement
// positions' features, legal masks and LibTorch's outputs as raw little-endian files with a JSON
// header, for tests/onnx_parity.js to compare with onnxruntime-web. direct.onnx is export_onnx's
// file for the network (with the value output), to compare with the command line's.
//
//   onnx_parity_data site|native DIR COUNT SEED
//   onnx_parity_data trained DIR COUNT SEED CKPT    (a trained checkpoint of either format)
//
// site:   6 blocks x 64 channels (the site's size); input1.f32 [N,62,9,9], input2.f32
//         [N,59,9,9]; policy.f32 [N,648] = the policy convolution flattened (the unfolded module
//         in eval mode); value.f32 [N,1] = 2 z (z: the value head's pre-tanh output); mask.u8
//         [N,648].
// native: 2 blocks x 16 channels; planes.f32 [N,36,9,9]; policy.f32 [N,288] and value.f32 [N]
//         = the module's forward in eval mode; mask.u8 [N,288].
#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/checkpoint.h"
#include "net/encode.h"
#include "net/network.h"
#include "net/onnx_export.h"
#include "net/site_features.h"
#include "rules/movegen.h"
#include "rules/position.h"
#include "rules/rng.h"
#include "rules/ruleset.h"
#include "tests/net_fixture.h"

namespace fuseki::net {
namespace {

constexpr RuleSet kRules[] = {RuleSet::Fuseki, RuleSet::BalanceV1, RuleSet::Balance};

// Every position with a legal drop along random placements, round robin over the rule sets,
// each kept with probability 1/2 so consecutive plies are not all taken.
std::vector<std::pair<RuleSet, Position>> sample(int count, uint64_t seed) {
  Rng rng(seed);
  std::vector<std::pair<RuleSet, Position>> out;
  uint8_t mask[kPolicySize];
  for (int game = 0; int(out.size()) < count; ++game) {
    const RuleSet r = kRules[game % std::size(kRules)];
    Position pos = Position::start(r);
    while (pos.in_placement() && int(out.size()) < count) {
      if (legal_mask(pos, mask) > 0 && rng.below(2) == 0) out.emplace_back(r, pos);
      MoveList list;
      generate_legal(pos, list);
      if (list.size == 0) break;
      pos.do_move(list.moves[rng.below(uint32_t(list.size))]);
    }
  }
  return out;
}

void write(const std::filesystem::path& path, const void* data, size_t bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char*>(data), std::streamsize(bytes));
  if (!f) throw std::runtime_error("cannot write " + path.string());
}
void write(const std::filesystem::path& path, const torch::Tensor& t) {
  const torch::Tensor c = t.detach().to(torch::kFloat32).contiguous();
  write(path, c.data_ptr(), size_t(c.nbytes()));
}

float max_abs(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<float>();
}

int run(std::string format, const std::filesystem::path& dir, int count, uint64_t seed,
        const std::string& trained) {
  PolicyValueNet net{nullptr};
  if (!trained.empty()) {  // a trained checkpoint instead of a made-up network
    net = load_checkpoint(trained).net;
    net->eval();
    format = format_name(net->config());
  }
  const bool site = format == "site";
  if (!site && format != "native") throw std::runtime_error("format: site or native");
  std::filesystem::create_directories(dir);
  torch::manual_seed(seed);
  if (!net) net = PolicyValueNet(with_format(site ? NetConfig{64, 6} : NetConfig{16, 2}, format));

  const auto positions = sample(count, seed);
  EncodedBatch batch;
  batch.site = site;
  std::map<std::string, int> per_rules;
  for (const auto& [r, pos] : positions) {
    batch.add(pos);
    ++per_rules[rule_info(r).name];
  }
  const int n = batch.size();
  const torch::Tensor x = planes_tensor(batch, torch::kCPU);
  if (trained.empty()) {  // statistics from other positions than the compared ones
    EncodedBatch calibration;
    calibration.site = site;
    for (const auto& [r, pos] : sample(256, seed + 1000)) calibration.add(pos);
    randomize_batch_norms(*net, planes_tensor(calibration, torch::kCPU));
  }
  save_checkpoint((dir / "net.ckpt").string(), *net, nullptr, {});
  // The library's export, which `fusekilab export --onnx` of net.ckpt must match byte for byte.
  OnnxExportOptions options;
  options.value = site;
  export_onnx(*net, (dir / "direct.onnx").string(), options);
  const int labels = site ? kSitePolicySize : kPolicySize;
  std::vector<uint8_t> mask(size_t(n) * size_t(labels), 0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < kPolicySize; ++j) {
      const uint8_t legal = batch.masks[size_t(i) * kPolicySize + size_t(j)];
      mask[size_t(i) * size_t(labels) + size_t(site ? site_label_of_index(j) : j)] = legal;
    }

  torch::NoGradGuard no_grad;
  const auto [folded_p, folded_v] = InferenceNet(*net, torch::kCPU).forward(x);
  torch::Tensor policy, value;
  float check_policy, check_value;
  if (site) {  // the unfolded module, up to the site's 648 logits and the pre-tanh value
    torch::Tensor h = torch::relu(net->stem_bn(net->stem_conv(x)));
    for (size_t b = 0; b < net->blocks->size(); ++b)
      h = net->blocks->ptr<ResidualBlockImpl>(b)->forward(h);
    policy = net->policy_conv(h).flatten(1);
    torch::Tensor z = torch::relu(net->value_bn(net->value_conv(h))).flatten(1);
    z = net->value_fc2(torch::relu(net->value_fc1(z)));
    value = 2 * z;
    check_policy = max_abs(policy.index_select(1, site_camp_labels(torch::kCPU)), folded_p);
    check_value = max_abs(torch::tanh(z).squeeze(1), folded_v);
    // The planes are per position input1 then input2: split them.
    std::vector<float> in1, in2;
    for (int i = 0; i < n; ++i) {
      const float* p = batch.planes.data() + size_t(i) * kSiteInputSize;
      in1.insert(in1.end(), p, p + kSitePlanes1 * kPlaneSize);
      in2.insert(in2.end(), p + kSitePlanes1 * kPlaneSize, p + kSiteInputSize);
    }
    write(dir / "input1.f32", in1.data(), in1.size() * sizeof(float));
    write(dir / "input2.f32", in2.data(), in2.size() * sizeof(float));
  } else {
    std::tie(policy, value) = net->forward(x);
    check_policy = max_abs(policy, folded_p);
    check_value = max_abs(value, folded_v);
    write(dir / "planes.f32", batch.planes.data(), batch.planes.size() * sizeof(float));
  }
  write(dir / "policy.f32", policy);
  write(dir / "value.f32", value);
  write(dir / "mask.u8", mask.data(), mask.size());

  // The same network with one policy bias moved by 1e-3 (ten times the tolerance).
  net->policy_conv->bias[0].add_(1e-3);
  save_checkpoint((dir / "perturbed.ckpt").string(), *net, nullptr, {});

  nlohmann::json header = {
      {"format", format},
      {"count", n},
      {"seed", seed},
      {"network", describe(net->config())},
      {"rules", per_rules},
      {"policy_output", site ? "output_policy" : "policy"},
      {"policy_size", labels},
      {"value_output", site ? "output_value" : "value"},
      {"value_dims", site ? std::vector<int>{n, 1} : std::vector<int>{n}},
      {"module_vs_folded", {{"policy", check_policy}, {"value", check_value}}},
      {"policy_range", {policy.min().item<float>(), policy.max().item<float>()}},
      {"value_range", {value.min().item<float>(), value.max().item<float>()}},
  };
  if (site)
    header["inputs"] = {{{"name", "input1"}, {"file", "input1.f32"}, {"planes", kSitePlanes1}},
                        {{"name", "input2"}, {"file", "input2.f32"}, {"planes", kSitePlanes2}}};
  else
    header["inputs"] = {{{"name", "planes"}, {"file", "planes.f32"}, {"planes", kInputPlanes}}};
  std::ofstream(dir / "header.json") << header.dump(2) << "\n";
  std::printf(
      "onnx_parity_data: %s, %d positions (%s), logits %s, value %s; module vs folded: policy "
      "%.3g value %.3g\n",
      describe(net->config()).c_str(), n, nlohmann::json(per_rules).dump().c_str(),
      header["policy_range"].dump().c_str(), header["value_range"].dump().c_str(),
      double(check_policy), double(check_value));
  return check_policy < 1e-4f && check_value < 1e-4f ? 0 : 1;
}

}  // namespace
}  // namespace fuseki::net

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    std::fprintf(stderr, "usage: onnx_parity_data site|native|trained DIR COUNT SEED [CKPT]\n");
    return 2;
  }
  try {
    return fuseki::net::run(argv[1], argv[2], std::stoi(argv[3]), std::stoull(argv[4]),
                            argc == 6 ? argv[5] : "");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "onnx_parity_data: %s\n", e.what());
    return 2;
  }
}
