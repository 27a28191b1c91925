// ONNX import: the exporter's files read back with OnnxNet give the network's logits and values
// (site and native format, through the Evaluator too); a hand-made graph with a batch norm and
// other operators; each bad input is one clear error.
#include "net/onnx_import.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "net/checkpoint.h"
#include "net/evaluator.h"
#include "net/network.h"
#include "net/onnx_export.h"
#include "net/site_features.h"
#include "rules/movegen.h"
#include "rules/position.h"
#include "rules/rng.h"
#include "tests/net_fixture.h"

namespace fuseki::net {
namespace {

namespace onnx = ONNX_NAMESPACE;

std::string temp_path(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("fusekilab_onnx_import_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Placement positions along random placements of each rule set.
std::vector<Position> positions(int count, uint64_t seed) {
  Rng rng(seed);
  std::vector<Position> out;
  uint8_t mask[kPolicySize];
  const RuleSet rules[] = {RuleSet::Fuseki, RuleSet::BalanceV1, RuleSet::Balance};
  for (int game = 0; int(out.size()) < count; ++game) {
    Position pos = Position::start(rules[game % 3]);
    while (pos.in_placement() && int(out.size()) < count) {
      if (legal_mask(pos, mask) > 0 && rng.below(2) == 0) out.push_back(pos);
      MoveList list;
      generate_legal(pos, list);
      if (list.size == 0) break;
      pos.do_move(list.moves[rng.below(uint32_t(list.size))]);
    }
  }
  return out;
}

torch::Tensor planes_of(const std::vector<Position>& ps, bool site) {
  EncodedBatch batch;
  batch.site = site;
  for (const Position& p : ps) batch.add(p);
  return planes_tensor(batch, torch::kCPU).clone();  // planes_tensor does not copy
}

// Batch norms away from their defaults (as tests/onnx_parity_data.cpp): random scales and
// shifts, running statistics of real positions, a non-zero policy bias.
PolicyValueNet made_up(const NetConfig& config, uint64_t seed) {
  torch::manual_seed(seed);
  PolicyValueNet net(config);
  randomize_batch_norms(*net, planes_of(positions(128, seed + 1000), config.site()));
  return net;
}

float max_abs(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<float>();
}

void round_trip(const NetConfig& config, bool value) {
  ASSERT_TRUE(onnx_import_available());
  PolicyValueNet net = made_up(config, 11);
  OnnxExportOptions options;
  options.value = value;
  const std::string bytes = onnx_model_bytes(*net, options);
  const auto imported = OnnxNet::from_bytes(bytes, "round-trip");
  EXPECT_EQ(imported->config(), net->config());
  EXPECT_EQ(imported->has_value(), value || !config.site());

  const auto ps = positions(300, 5);
  const torch::Tensor x = planes_of(ps, config.site());
  torch::NoGradGuard no_grad;
  const auto [p0, v0] = InferenceNet(*net, torch::kCPU).forward(x);
  const auto [p1, v1] = imported->forward(x);
  ASSERT_EQ(p1.sizes(), p0.sizes());
  ASSERT_EQ(v1.sizes(), v0.sizes());
  const float dp = max_abs(p0, p1);
  EXPECT_LE(dp, 1e-5f);
  EXPECT_GT(p0.abs().max().item<float>(), 1.0f);  // logits of some size
  if (imported->has_value()) {
    EXPECT_LE(max_abs(v0, v1), 1e-5f);
  } else {
    EXPECT_EQ(v1.abs().max().item<float>(), 0.0f);
  }
  std::printf("round trip %s: max |diff| logits %.3g, value %.3g\n", describe(config).c_str(), dp,
              max_abs(v0, v1));

  // Through the Evaluator: the same probabilities and values as the checkpoint's.
  const std::string ckpt = temp_path("rt.ckpt"), file = temp_path("rt.onnx");
  save_checkpoint(ckpt, *net, nullptr, {});
  write(file, bytes);
  Evaluator a = Evaluator::from_file(ckpt, {"cpu", 1});
  Evaluator b = Evaluator::from_file(file, {"cpu", 1});
  EXPECT_EQ(b.config(), a.config());
  std::vector<const Position*> ptrs;
  for (const Position& p : ps) ptrs.push_back(&p);
  const auto ea = a.evaluate(ptrs), eb = b.evaluate(ptrs);
  for (size_t i = 0; i < ea.size(); ++i) {
    for (int j = 0; j < kPolicySize; ++j)
      ASSERT_NEAR(ea[i].policy[size_t(j)], eb[i].policy[size_t(j)], 1e-6) << i << " " << j;
    if (imported->has_value()) {
      ASSERT_NEAR(ea[i].value, eb[i].value, 1e-6) << i;
    }
  }
}

TEST(OnnxImport, SiteFormatRoundTripWithValue) { round_trip(with_format({16, 2}, "site"), true); }
TEST(OnnxImport, SiteFormatRoundTripPolicyOnly) { round_trip(with_format({8, 1}, "site"), false); }
TEST(OnnxImport, NativeFormatRoundTrip) { round_trip(NetConfig{16, 2}, true); }

// A small site-format graph by hand: Concat, Conv (stride 1, pads 0) + BatchNormalization
// (folded at load), Relu, Flatten; and a value output through Gemm, Tanh, Identity.
onnx::ModelProto hand_made(const torch::Tensor& w, const torch::Tensor& bn,
                           const torch::Tensor& fc) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  auto init = [&](const std::string& name, const torch::Tensor& t) {
    const torch::Tensor c = t.contiguous();
    onnx::TensorProto* p = g->add_initializer();
    p->set_name(name);
    p->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : c.sizes()) p->add_dims(d);
    p->set_raw_data(std::string(static_cast<const char*>(c.data_ptr()), size_t(c.nbytes())));
  };
  auto init_ints = [&](const std::string& name, std::vector<int64_t> dims,
                       std::vector<int64_t> values) {
    onnx::TensorProto* p = g->add_initializer();
    p->set_name(name);
    p->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) p->add_dims(d);
    for (int64_t v : values) p->add_int64_data(v);
  };
  auto node = [&](const std::string& op, std::vector<std::string> in, const std::string& out) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + out);
    for (auto& i : in) n->add_input(i);
    n->add_output(out);
    return n;
  };
  auto io = [&](onnx::ValueInfoProto* v, const std::string& name, std::vector<int64_t> dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param("N");
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  };
  io(g->add_input(), "input1", {62, 9, 9});
  io(g->add_input(), "input2", {59, 9, 9});
  init("w", w);
  init("scale", bn[0]);
  init("shift", bn[1]);
  init("mean", bn[2]);
  init("var", bn[3]);
  init("fc", fc);
  auto* cat = node("Concat", {"input1", "input2"}, "x");
  auto* a = cat->add_attribute();
  a->set_name("axis");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(1);
  node("Conv", {"x", "w"}, "c");
  auto* b = node("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, "b");
  auto* e = b->add_attribute();
  e->set_name("epsilon");
  e->set_type(onnx::AttributeProto::FLOAT);
  e->set_f(1e-3f);
  node("Relu", {"b"}, "r");
  node("Flatten", {"r"}, "output_policy");
  auto* gap = node("GlobalAveragePool", {"r"}, "pooled");
  (void)gap;
  // [N, 8, 1, 1] -> [N, 8] the way PyTorch exports x.view(x.size(0), -1): Shape, Gather,
  // Unsqueeze, Concat with a constant, Reshape.
  node("Shape", {"pooled"}, "shape");
  init_ints("zero", {}, {0});
  init_ints("minus_one", {1}, {-1});
  init_ints("axes0", {1}, {0});
  node("Gather", {"shape", "zero"}, "n");
  node("Unsqueeze", {"n", "axes0"}, "n1");
  auto* c2 = node("Concat", {"n1", "minus_one"}, "shape2");
  auto* a2 = c2->add_attribute();
  a2->set_name("axis");
  a2->set_type(onnx::AttributeProto::INT);
  a2->set_i(0);
  node("Reshape", {"pooled", "shape2"}, "pf");
  node("MatMul", {"pf", "fc"}, "z");
  node("Identity", {"z"}, "output_value");
  io(g->add_output(), "output_policy", {648});
  io(g->add_output(), "output_value", {1});
  return m;
}

TEST(OnnxImport, HandMadeGraphWithBatchNorm) {
  torch::manual_seed(4);
  const torch::Tensor w = torch::randn({8, 121, 1, 1}) * 0.2;
  const torch::Tensor bn = torch::stack({torch::rand({8}) + 0.5, torch::randn({8}) * 0.3,
                                         torch::randn({8}) * 0.2, torch::rand({8}) + 0.3});
  const torch::Tensor fc = torch::randn({8, 1});
  std::string bytes;
  ASSERT_TRUE(hand_made(w, bn, fc).SerializeToString(&bytes));
  const auto net = OnnxNet::from_bytes(bytes, "hand");
  EXPECT_EQ(net->operators(),
            (std::vector<std::string>{"Conv", "Relu", "Flatten", "GlobalAveragePool", "Shape",
                                      "Gather", "Unsqueeze", "Concat", "Reshape",
                                      "MatMul"}));  // Concat of the inputs, BN and Identity gone
  const torch::Tensor x = planes_of(positions(50, 9), true);
  torch::NoGradGuard no_grad;
  const torch::Tensor r = torch::relu(
      torch::batch_norm(torch::conv2d(x, w), bn[0], bn[1], bn[2], bn[3], false, 0, 1e-3, false));
  const torch::Tensor p = r.flatten(1).index_select(1, site_camp_labels(torch::kCPU));
  const torch::Tensor v = torch::tanh(torch::matmul(r.mean({2, 3}), fc).squeeze(1) / 2);
  const auto [p1, v1] = net->forward(x);
  EXPECT_LE(max_abs(p, p1), 1e-5f);
  EXPECT_LE(max_abs(v, v1), 1e-5f);
}

std::string load_error(const std::string& bytes) {
  const std::string path = temp_path("bad.onnx");
  write(path, bytes);
  try {
    OnnxNet::load(path);
  } catch (const CheckpointError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;  // one line
    EXPECT_NE(what.find(path), std::string::npos) << what;  // naming the file
    return what;
  }
  ADD_FAILURE() << "loaded";
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

class OnnxImportErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    net_ = made_up(with_format({8, 1}, "site"), 3);
    OnnxExportOptions o;
    o.value = true;
    bytes_ = onnx_model_bytes(*net_, o);
    ASSERT_TRUE(model_.ParseFromString(bytes_));
  }
  std::string edited() const {
    std::string out;
    EXPECT_TRUE(model_.SerializeToString(&out));
    return out;
  }
  PolicyValueNet net_{nullptr};
  std::string bytes_;
  onnx::ModelProto model_;
};

TEST_F(OnnxImportErrors, TruncatedFile) {
  for (size_t keep : {bytes_.size() / 2, bytes_.size() - 7, size_t(10)}) {
    const std::string e = load_error(bytes_.substr(0, keep));
    EXPECT_TRUE(contains(e, "truncated")) << e;
  }
  EXPECT_TRUE(contains(load_error(""), "the file is empty"));
  EXPECT_THROW(OnnxNet::load(temp_path("missing.onnx")), CheckpointError);
}

TEST_F(OnnxImportErrors, NotOnnx) {
  EXPECT_TRUE(contains(load_error("hello, this is a text file\n"), "not an ONNX model"));
  const std::string ckpt = temp_path("x.ckpt");
  save_checkpoint(ckpt, *net_, nullptr, {});
  std::ifstream f(ckpt, std::ios::binary);
  const std::string zip((std::istreambuf_iterator<char>(f)), {});
  EXPECT_TRUE(contains(load_error(zip), "not an ONNX model (a zip archive"));
}

TEST_F(OnnxImportErrors, OtherInputs) {
  model_.mutable_graph()->mutable_input(0)->set_name("planes1");
  model_.mutable_graph()->mutable_node(0)->set_input(0, "planes1");
  std::string e = load_error(edited());
  EXPECT_TRUE(contains(e, "graph inputs planes1 [N, 62, 9, 9], input2 [N, 59, 9, 9]")) << e;
  EXPECT_TRUE(contains(e, "expected input1 [N, 62, 9, 9]")) << e;
  SetUp();
  model_.mutable_graph()
      ->mutable_input(1)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(60);
  e = load_error(edited());
  EXPECT_TRUE(contains(e, "input2 [N, 60, 9, 9]")) << e;
}

TEST_F(OnnxImportErrors, FirstOutputNot648) {
  model_.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(2268);
  const std::string e = load_error(edited());
  EXPECT_TRUE(contains(e, "the first output is output_policy [N, 2268], expected [N, 648]")) << e;
}

TEST_F(OnnxImportErrors, UnsupportedOperator) {
  onnx::NodeProto* n = model_.mutable_graph()->mutable_node(1);  // the stem's Conv
  const std::string out = n->output(0);
  n->set_output(0, out + "_pre");
  onnx::NodeProto* s = model_.mutable_graph()->add_node();
  s->set_op_type("Softplus");
  s->set_name("my_softplus");
  s->add_input(out + "_pre");
  s->add_output(out);
  const std::string e = load_error(edited());
  EXPECT_TRUE(contains(e, "unsupported operator 'Softplus' in node 'my_softplus' (Softplus)")) << e;
}

TEST_F(OnnxImportErrors, BadAttributes) {
  onnx::NodeProto* conv = model_.mutable_graph()->mutable_node(1);
  for (auto& a : *conv->mutable_attribute())
    if (a.name() == "strides") a.set_ints(0, 0);
  std::string e = load_error(edited());
  EXPECT_TRUE(contains(e, "(Conv): strides must be >= 1")) << e;
  SetUp();
  for (auto& a : *model_.mutable_graph()->mutable_node(1)->mutable_attribute())
    if (a.name() == "kernel_shape") a.set_ints(0, 5);
  e = load_error(edited());
  EXPECT_TRUE(contains(e, "kernel_shape disagrees")) << e;
  SetUp();
  auto* extra = model_.mutable_graph()->mutable_node(1)->add_attribute();
  extra->set_name("colour");
  extra->set_type(onnx::AttributeProto::INT);
  e = load_error(edited());
  EXPECT_TRUE(contains(e, "unsupported attribute 'colour'")) << e;
}

TEST_F(OnnxImportErrors, EvaluatorAndTrainingPaths) {
  const std::string path = temp_path("net.onnx");
  write(path, bytes_);
  EXPECT_TRUE(Evaluator::is_onnx(path));
  EXPECT_EQ(Evaluator::from_file(path).config(), net_->config());
  const std::string odd = temp_path("net.bin");  // no suffix: the first bytes decide
  write(odd, bytes_);
  EXPECT_TRUE(Evaluator::is_onnx(odd));
  EXPECT_EQ(Evaluator::from_file(odd).config(), net_->config());
  const std::string ckpt = temp_path("net.ckpt");
  save_checkpoint(ckpt, *net_, nullptr, {});
  EXPECT_FALSE(Evaluator::is_onnx(ckpt));
}

}  // namespace
}  // namespace fuseki::net
