// The ONNX export's graph, read back with onnx's protobuf classes: names, shapes and output order
// per format, the folded weights as initializers, atomic writing. Runs without Node.js; the
// numbers are compared with onnxruntime-web by tests/onnx_parity.sh.
#include "net/onnx_export.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "net/checkpoint.h"
#include "net/network.h"

namespace fuseki::net {
namespace {

namespace onnx = ONNX_NAMESPACE;

onnx::ModelProto model_of(const PolicyValueNetImpl& net, bool value) {
  OnnxExportOptions options;
  options.value = value;
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(onnx_model_bytes(net, options)));
  return m;
}

// "name[N,62,9,9]" for each graph input or output.
std::vector<std::string> signature(
    const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& values) {
  std::vector<std::string> out;
  for (const auto& v : values) {
    std::string s = v.name() + "[";
    const auto& dims = v.type().tensor_type().shape().dim();
    for (int i = 0; i < dims.size(); ++i) {
      if (i) s += ",";
      s += dims[i].has_dim_param() ? dims[i].dim_param() : std::to_string(dims[i].dim_value());
    }
    out.push_back(s + "]");
    EXPECT_EQ(v.type().tensor_type().elem_type(), onnx::TensorProto::FLOAT) << v.name();
  }
  return out;
}

std::vector<std::string> ops(const onnx::ModelProto& m) {
  std::vector<std::string> out;
  for (const auto& n : m.graph().node()) out.push_back(n.op_type());
  return out;
}

bool has_op(const onnx::ModelProto& m, const std::string& op) {
  const auto o = ops(m);
  return std::find(o.begin(), o.end(), op) != o.end();
}

TEST(OnnxExport, SiteFormatHasTheSitesNamesShapesAndOrder) {
  ASSERT_TRUE(onnx_export_available());
  torch::manual_seed(3);
  PolicyValueNet net(with_format(NetConfig{8, 1}, "site"));
  const onnx::ModelProto m = model_of(*net, false);
  EXPECT_EQ(m.ir_version(), 8);
  ASSERT_EQ(m.opset_import_size(), 1);
  EXPECT_EQ(m.opset_import(0).version(), kOnnxOpset);
  EXPECT_EQ(signature(m.graph().input()),
            (std::vector<std::string>{"input1[N,62,9,9]", "input2[N,59,9,9]"}));
  EXPECT_EQ(signature(m.graph().output()), (std::vector<std::string>{"output_policy[N,648]"}));
  EXPECT_EQ(ops(m).front(), "Concat");
  EXPECT_FALSE(has_op(m, "Gather"));  // all 648 labels, not the 288 gathered inside fusekilab
  for (const auto& t : m.graph().initializer())  // no value head without --value
    EXPECT_EQ(t.name().rfind("value", 0), std::string::npos) << t.name();

  const onnx::ModelProto v = model_of(*net, true);
  EXPECT_EQ(signature(v.graph().output()),
            (std::vector<std::string>{"output_policy[N,648]", "output_value[N,1]"}));
  EXPECT_TRUE(has_op(v, "Mul"));    // 2z
  EXPECT_FALSE(has_op(v, "Tanh"));  // the site applies a sigmoid
}

TEST(OnnxExport, NativeFormatHasItsOwnNames) {
  torch::manual_seed(4);
  PolicyValueNet net(NetConfig{8, 2});
  const onnx::ModelProto m = model_of(*net, false);
  EXPECT_EQ(signature(m.graph().input()), (std::vector<std::string>{"planes[N,36,9,9]"}));
  EXPECT_EQ(signature(m.graph().output()), (std::vector<std::string>{"policy[N,288]", "value[N]"}));
  // stem, 2 x 2 block convolutions, policy, value conv, 2 fully connected: weight and bias each.
  int layers = 0;
  for (const auto& t : m.graph().initializer())
    if (t.name().size() > 7 && t.name().substr(t.name().size() - 7) == "_weight") ++layers;
  EXPECT_EQ(layers, 1 + 2 * 2 + 1 + 1 + 2);
}

TEST(OnnxExport, InitializersAreTheFoldedWeights) {
  torch::manual_seed(5);
  PolicyValueNet net(NetConfig{8, 1});
  {  // batch-norm statistics away from their defaults, so folding changes the weights
    torch::NoGradGuard no_grad;
    net->stem_bn->running_var.fill_(4.0);
    net->stem_bn->running_mean.fill_(0.5);
  }
  const InferenceNet folded(*net, torch::kCPU);
  const onnx::ModelProto m = model_of(*net, false);
  int checked = 0;
  for (const InferenceNet::Layer& l : folded.layers())
    for (const auto& t : m.graph().initializer()) {
      if (t.name() != l.name + "_weight" && t.name() != l.name + "_bias") continue;
      const torch::Tensor w = (t.name() == l.name + "_weight" ? l.weight : l.bias).contiguous();
      ASSERT_EQ(t.data_type(), onnx::TensorProto::FLOAT);
      ASSERT_EQ(std::vector<int64_t>(t.dims().begin(), t.dims().end()), w.sizes().vec());
      ASSERT_EQ(t.raw_data().size(), size_t(w.nbytes()));
      EXPECT_EQ(std::memcmp(t.raw_data().data(), w.data_ptr(), size_t(w.nbytes())), 0) << t.name();
      ++checked;
    }
  EXPECT_EQ(checked, 2 * int(folded.layers().size()));
}

TEST(OnnxExport, WritesAtomically) {
  PolicyValueNet net(NetConfig{4, 0});
  const auto dir = std::filesystem::temp_directory_path() /
                   ("fusekilab_onnx_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "net.onnx").string();
  export_onnx(*net, path);
  EXPECT_GT(std::filesystem::file_size(path), 0u);
  EXPECT_THROW(export_onnx(*net, (dir / "missing" / "net.onnx").string()), CheckpointError);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);  // no temporaries
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fuseki::net
