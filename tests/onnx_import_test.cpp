// ONNX import: the exporter's files read back with OnnxNet give the network's logits and values
// (site and native format, through the Evaluator too); a hand-made graph with a batch norm and
// other operators; each bad input is one clear error. A trainable network started from a file
// (net/onnx_init.h) computes the file's function, a dlshogi-style split stem included.
#include "net/onnx_import.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "net/checkpoint.h"
#include "net/evaluator.h"
#include "net/network.h"
#include "net/onnx_export.h"
#include "net/onnx_init.h"
#include "net/site_features.h"
#include "rules/movegen.h"
#include "rules/position.h"
#include "rules/rng.h"
#include "tests/net_fixture.h"

namespace fuseki::net {
namespace {

namespace onnx = ONNX_NAMESPACE;

// This process's scratch directory, removed when the process ends.
struct ScratchDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("fusekilab_onnx_import_" + std::to_string(::getpid()));
  ScratchDir() { std::filesystem::create_directories(path); }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};

std::string temp_path(const std::string& name) {
  static const ScratchDir dir;
  return (dir.path / name).string();
}

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
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
  randomize_batch_norms(*net,
                        planes_of(random_placement_positions(128, seed + 1000), config.site()));
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

  const auto ps = random_placement_positions(300, 5);
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

// A float initializer holding `t`.
void add_initializer(onnx::GraphProto* g, const std::string& name, const torch::Tensor& t) {
  const torch::Tensor c = t.contiguous();
  onnx::TensorProto* p = g->add_initializer();
  p->set_name(name);
  p->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : c.sizes()) p->add_dims(d);
  p->set_raw_data(std::string(static_cast<const char*>(c.data_ptr()), size_t(c.nbytes())));
}

// A small site-format graph by hand: Concat, Conv (stride 1, pads 0) + BatchNormalization
// (folded at load), Relu, Flatten; and a value output through Gemm, Tanh, Identity.
onnx::ModelProto hand_made(const torch::Tensor& w, const torch::Tensor& bn,
                           const torch::Tensor& fc) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  auto init = [&](const std::string& name, const torch::Tensor& t) { add_initializer(g, name, t); };
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
  const torch::Tensor x = planes_of(random_placement_positions(50, 9), true);
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

// ---- A trainable network from an ONNX file (net/onnx_init.h) ----

std::string written(const PolicyValueNetImpl& net, bool value, const std::string& name) {
  OnnxExportOptions options;
  options.value = value;
  const std::string path = temp_path(name);
  write(path, onnx_model_bytes(net, options));
  return path;
}

// The started network in evaluation mode against the original: the same logits (and values).
void expect_same_function(PolicyValueNetImpl& original, PolicyValueNetImpl& started, bool value) {
  const torch::Tensor x = planes_of(random_placement_positions(200, 31), original.config().site());
  torch::NoGradGuard no_grad;
  original.eval();
  started.eval();
  const auto [p0, v0] = original.forward(x);
  const auto [p1, v1] = started.forward(x);
  EXPECT_LE(max_abs(p0, p1), 1e-4f);
  EXPECT_GT(p0.abs().max().item<float>(), 1.0f);
  if (value) {
    EXPECT_LE(max_abs(v0, v1), 1e-4f);
  }
  started.train();
}

void init_round_trip(const NetConfig& config, bool value) {
  PolicyValueNet net = made_up(config, 12);
  const std::string file = written(*net, value, "init.onnx");
  OnnxInit init = network_from_onnx(file, 5);
  EXPECT_EQ(init.net->config(), config);
  EXPECT_EQ(init.value_from_file, value);
  EXPECT_TRUE(init.net->is_training());
  EXPECT_LE(init.max_logit_diff, 1e-4f);
  expect_same_function(*net, *init.net, value);
  std::printf("%s\n", init.summary().c_str());
}

TEST(OnnxInit, SiteFormatWithValue) { init_round_trip(with_format({16, 2}, "site"), true); }
TEST(OnnxInit, NativeFormat) { init_round_trip(NetConfig{16, 2}, true); }

// A value head wider than AlphaZero's: its sizes come back from the file (eight planes, as many
// as the policy head's: the policy's 1x1 convolution is the first).
TEST(OnnxInit, AWiderValueHead) {
  for (int planes : {4, 8}) {
    NetConfig config{8, 1};
    config.value_channels = planes;
    config.value_hidden = 24;
    init_round_trip(config, true);
    PolicyValueNet net = made_up(config, 12);
    EXPECT_EQ(Evaluator::from_file(written(*net, true, "wide.onnx")).config(), config);
  }
}

TEST(OnnxInit, PolicyOnlyFileGetsAFreshValueHead) {
  init_round_trip(with_format({8, 3}, "site"), false);
  PolicyValueNet net = made_up(with_format({8, 1}, "site"), 12);
  const std::string file = written(*net, false, "policy-only.onnx");
  const OnnxInit a = network_from_onnx(file, 5), b = network_from_onnx(file, 5),
                 c = network_from_onnx(file, 6);
  EXPECT_NE(a.summary().find("value head fresh"), std::string::npos) << a.summary();
  // The fresh head comes from the seed.
  EXPECT_TRUE(torch::equal(a.net->value_fc1->weight, b.net->value_fc1->weight));
  EXPECT_FALSE(torch::equal(a.net->value_fc1->weight, c.net->value_fc1->weight));
}

// In training mode a batch's own statistics replace the running ones: the batch norms were set
// from real positions' statistics, so the function stays about as close to the file's as the
// original network's own training mode is to its evaluation mode; identity batch norms (running
// mean 0, variance 1, scale 1, the bias as shift) would renormalise every channel.
TEST(OnnxInit, TrainingModeStaysCloseToTheFile) {
  PolicyValueNet net = made_up(with_format({16, 2}, "site"), 13);
  OnnxInit init = network_from_onnx(written(*net, true, "train.onnx"), 5);
  const torch::Tensor x = planes_of(random_placement_positions(256, 77), true);
  torch::NoGradGuard no_grad;
  net->eval();
  const torch::Tensor p0 = std::get<0>(net->forward(x));
  auto drift = [&](PolicyValueNetImpl& m) {  // in training mode, against the file's logits
    m.train();
    return (std::get<0>(m.forward(x)) - p0).abs().mean().item<double>();
  };
  // The original network's own drift.
  PolicyValueNet copy = std::dynamic_pointer_cast<PolicyValueNetImpl>(net->clone());
  const double own = drift(*copy);
  // Identity batch norms: the same folded weights, running mean 0 and variance 1.
  PolicyValueNet naive = std::dynamic_pointer_cast<PolicyValueNetImpl>(init.net->clone());
  for (auto& m : naive->modules(false))
    if (auto* bn = m->as<torch::nn::BatchNorm2dImpl>()) {
      torch::Tensor shift = bn->bias - bn->running_mean * bn->weight /
                                           torch::sqrt(bn->running_var + bn->options.eps());
      bn->bias.copy_(shift);
      bn->weight.copy_(torch::sqrt(bn->running_var + bn->options.eps()) /
                       torch::sqrt(bn->running_var + bn->options.eps()));
      bn->running_mean.zero_();
      bn->running_var.fill_(1 - bn->options.eps());
    }
  const double identity = drift(*naive);
  const double started = drift(*init.net);
  std::printf(
      "training-mode drift (mean |logit diff|): started %.4f, the original's own %.4f, "
      "identity batch norms %.4f; mean |logit| %.4f\n",
      started, own, identity, p0.abs().mean().item<double>());
  EXPECT_LT(started, 2 * own + 1e-3);
  EXPECT_LT(started, identity / 2);
}

// A dlshogi-style stem: a 3x3 and a 1x1 convolution over input1 and a 1x1 over input2, added,
// instead of one 3x3 over their concatenation. The same function, split three ways.
TEST(OnnxInit, SplitStemIsSummed) {
  PolicyValueNet net = made_up(with_format({8, 1}, "site"), 14);
  {  // input2 seen through the centre tap only, as a 1x1 convolution sees it
    torch::NoGradGuard no_grad;
    torch::Tensor in2 = net->stem_conv->weight.slice(1, kSitePlanes1);
    const torch::Tensor centre = in2.slice(2, 1, 2).slice(3, 1, 2).clone();
    in2.zero_();
    in2.slice(2, 1, 2).slice(3, 1, 2).copy_(centre);
  }
  OnnxExportOptions options;
  options.value = true;
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(onnx_model_bytes(*net, options)));
  model.clear_metadata_props();  // the architecture from the graph alone
  onnx::GraphProto* g = model.mutable_graph();
  ASSERT_EQ(g->node(0).op_type(), "Concat");
  ASSERT_EQ(g->node(1).op_type(), "Conv");
  const std::string stem_out = g->node(1).output(0), w_name = g->node(1).input(1);
  torch::Tensor w;  // the stem's weight, batch norm folded in
  for (const auto& t : g->initializer())
    if (t.name() == w_name)
      w = torch::from_blob(const_cast<char*>(t.raw_data().data()), {8, kSiteInputPlanes, 3, 3})
              .clone();
  ASSERT_TRUE(w.defined());
  // input1's centre tap split between the 3x3 and the 1x1; input2's centre as a 1x1.
  torch::Tensor w3 = w.slice(1, 0, kSitePlanes1).clone();
  const torch::Tensor w1 = w3.slice(2, 1, 2).slice(3, 1, 2).clone() * 0.25;
  w3.slice(2, 1, 2).slice(3, 1, 2).mul_(0.75);
  const torch::Tensor w2 = w.slice(1, kSitePlanes1).slice(2, 1, 2).slice(3, 1, 2).clone();
  auto init = [&](const std::string& name, const torch::Tensor& t) { add_initializer(g, name, t); };
  init("w3", w3);
  init("w1", w1);
  init("w2", w2);
  onnx::NodeProto* conv = g->mutable_node(1);  // the 3x3 over input1, with the stem's bias
  conv->set_input(0, "input1");
  conv->set_input(1, "w3");
  conv->set_output(0, "s3");
  auto node = [&](const std::string& op, std::vector<std::string> in, const std::string& out) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(out);
    for (auto& i : in) n->add_input(i);
    n->add_output(out);
  };
  node("Conv", {"input1", "w1"}, "s1");
  node("Conv", {"input2", "w2"}, "s2");
  node("Add", {"s3", "s1"}, "s31");
  node("Add", {"s31", "s2"}, stem_out);
  g->mutable_node()->DeleteSubrange(0, 1);  // the Concat
  std::string bytes;
  ASSERT_TRUE(model.SerializeToString(&bytes));
  const std::string file = temp_path("split.onnx");
  write(file, bytes);
  OnnxInit started = network_from_onnx(file, 5);
  EXPECT_EQ(started.net->config(), net->config());
  expect_same_function(*net, *started.net, true);
}

TEST(OnnxInit, AnotherArchitectureIsRefused) {
  PolicyValueNet net = made_up(with_format({8, 1}, "site"), 15);
  OnnxExportOptions options;
  options.value = true;
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(onnx_model_bytes(*net, options)));
  auto refused = [&](const std::string& want) {
    std::string bytes;
    ASSERT_TRUE(model.SerializeToString(&bytes));
    const std::string file = temp_path("other.onnx");
    write(file, bytes);
    try {
      network_from_onnx(file, 5);
      ADD_FAILURE() << "started from " << want;
    } catch (const CheckpointError& e) {
      EXPECT_TRUE(contains(e.what(), want)) << e.what();
      EXPECT_TRUE(contains(e.what(), file)) << e.what();
    }
  };
  // Weights that fit, another function: a block's Relu made a Tanh.
  for (auto& n : *model.mutable_graph()->mutable_node())
    if (n.op_type() == "Relu") {
      n.set_op_type("Tanh");
      break;
    }
  refused("not fusekilab's residual architecture");
  // Shapes that fit no layer: a single 1x1 convolution to 8 channels read as the stem, no
  // policy head after it.
  torch::manual_seed(4);
  model = hand_made(torch::randn({8, 121, 1, 1}), torch::rand({4, 8}) + 0.5, torch::randn({8, 1}));
  refused("no 1x1 convolution to 8 channels (the policy head)");
}

}  // namespace
}  // namespace fuseki::net
