// ONNX export: walks InferenceNet's steps, as the TorchScript export does, and writes one or two
// ONNX nodes per step, the folded weights as initializers.
#include "net/onnx_export.h"

#include <cstring>
#include <set>
#include <vector>

#include "io/atomic_file.h"
#include "net/checkpoint.h"
#include "net/site_features.h"

#ifdef FUSEKILAB_WITH_ONNX
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#endif

namespace fuseki::net {

#ifdef FUSEKILAB_WITH_ONNX

namespace {

namespace onnx = ONNX_NAMESPACE;

// The ONNX IR version of onnx 1.12 (opset 17); onnxruntime reads it from 1.10 on.
constexpr int64_t kOnnxIrVersion = 8;
constexpr const char* kBatchDim = "N";

class GraphWriter {
 public:
  explicit GraphWriter(onnx::GraphProto* graph) : g_(graph) {}

  void floats(const std::string& name, const torch::Tensor& t) {
    const torch::Tensor c = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    onnx::TensorProto* p = g_->add_initializer();
    p->set_name(name);
    p->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : c.sizes()) p->add_dims(d);
    p->set_raw_data(std::string(static_cast<const char*>(c.data_ptr()), size_t(c.nbytes())));
  }
  void floats(const std::string& name, float value) {
    onnx::TensorProto* p = g_->add_initializer();
    p->set_name(name);
    p->set_data_type(onnx::TensorProto::FLOAT);
    p->add_float_data(value);  // a scalar: no dims
  }
  void ints(const std::string& name, const std::vector<int64_t>& values) {
    onnx::TensorProto* p = g_->add_initializer();
    p->set_name(name);
    p->set_data_type(onnx::TensorProto::INT64);
    p->add_dims(int64_t(values.size()));
    for (int64_t v : values) p->add_int64_data(v);
  }

  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::string& output) {
    onnx::NodeProto* n = g_->add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + std::to_string(g_->node_size() - 1));
    for (const std::string& i : inputs) n->add_input(i);
    n->add_output(output);
    return n;
  }
  static void attribute(onnx::NodeProto* n, const std::string& name, int64_t value) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }
  static void attribute(onnx::NodeProto* n, const std::string& name,
                        const std::vector<int64_t>& values) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : values) a->add_ints(v);
  }

  // A float tensor [N, dims...] as a graph input or output.
  void value_info(onnx::ValueInfoProto* v, const std::string& name,
                  const std::vector<int64_t>& dims) {
    v->set_name(name);
    onnx::TypeProto_Tensor* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    onnx::TensorShapeProto* shape = t->mutable_shape();
    shape->add_dim()->set_dim_param(kBatchDim);
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  }
  void input(const std::string& name, const std::vector<int64_t>& dims) {
    value_info(g_->add_input(), name, dims);
  }
  void output(const std::string& name, const std::vector<int64_t>& dims) {
    value_info(g_->add_output(), name, dims);
  }

 private:
  onnx::GraphProto* g_;
};

void build_graph(const InferenceNet& net, const OnnxExportOptions& options, onnx::GraphProto* g) {
  using Op = InferenceNet::Op;
  const bool site = net.config().site();
  const bool value = !site || options.value;
  const std::string policy_name = site ? "output_policy" : "policy";
  const std::string value_name = site ? "output_value" : "value";
  GraphWriter w(g);

  // The steps that feed the outputs: a site network without --value has no value head.
  const std::vector<InferenceNet::Step>& steps = net.steps();
  std::vector<bool> needed(steps.size(), false);
  std::set<int> live = {InferenceNet::kPolicyOut};
  if (value) live.insert(InferenceNet::kValueOut);
  int last_policy = -1, last_value = -1;
  for (int i = int(steps.size()) - 1; i >= 0; --i) {
    const InferenceNet::Step& s = steps[size_t(i)];
    if (!live.count(s.out)) continue;
    needed[size_t(i)] = true;
    if (s.out == InferenceNet::kPolicyOut && last_policy < 0) last_policy = i;
    if (s.out == InferenceNet::kValueOut && last_value < 0) last_value = i;
    live.erase(s.out);
    live.insert(s.a);
    if (s.b >= 0) live.insert(s.b);
  }

  // Registers hold the name of their current value; every step writes a fresh name.
  std::vector<std::string> reg(std::size(InferenceNet::kRegisterNames));
  if (site) {
    w.input("input1", {kSitePlanes1, kBoardFiles, kBoardRanks});
    w.input("input2", {kSitePlanes2, kBoardFiles, kBoardRanks});
    reg[InferenceNet::kInput] = "x";
    GraphWriter::attribute(w.node("Concat", {"input1", "input2"}, "x"), "axis", 1);
  } else {
    w.input("planes", {kInputPlanes, kBoardRanks, kBoardFiles});
    reg[InferenceNet::kInput] = "planes";
  }
  std::set<int> used_layers;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!needed[i]) continue;
    const InferenceNet::Step& s = steps[i];
    const std::string a = reg[size_t(s.a)];
    std::string out = std::string(InferenceNet::kRegisterNames[s.out]) + "_" + std::to_string(i);
    if (int(i) == last_policy) out = policy_name;
    if (int(i) == last_value) out = value_name;
    std::string weight, bias;
    if (s.layer >= 0) {
      const InferenceNet::Layer& l = net.layers()[size_t(s.layer)];
      weight = l.name + "_weight";
      bias = l.name + "_bias";
      if (used_layers.insert(s.layer).second) {
        w.floats(weight, l.weight);
        w.floats(bias, l.bias);
      }
    }
    switch (s.op) {
      case Op::Conv: {
        const InferenceNet::Layer& l = net.layers()[size_t(s.layer)];
        onnx::NodeProto* n = w.node("Conv", {a, weight, bias}, out);
        const int64_t p = l.padding;
        GraphWriter::attribute(n, "kernel_shape", {l.weight.size(2), l.weight.size(3)});
        GraphWriter::attribute(n, "pads", {p, p, p, p});
        GraphWriter::attribute(n, "strides", {1, 1});
        GraphWriter::attribute(n, "dilations", {1, 1});
        GraphWriter::attribute(n, "group", 1);
        break;
      }
      case Op::Linear:
        GraphWriter::attribute(w.node("Gemm", {a, weight, bias}, out), "transB", 1);
        break;
      case Op::Relu:
        w.node("Relu", {a}, out);
        break;
      case Op::Add:
        w.node("Add", {a, reg[size_t(s.b)]}, out);
        break;
      case Op::PolicyLabels: {  // the camp ranks (dimension 2) of [N, 8, 9, 9], flattened
        const std::string camp = out + "_camp";
        w.ints("camp_starts", {kFirstCampRank});
        w.ints("camp_ends", {kBoardRanks});
        w.ints("camp_axes", {2});
        w.ints("policy_shape", {-1, kPolicySize});
        w.node("Slice", {a, "camp_starts", "camp_ends", "camp_axes"}, camp);
        w.node("Reshape", {camp, "policy_shape"}, out);
        break;
      }
      case Op::SiteLabels:  // the site's 648 labels: all of them, in their own order
      case Op::Flatten:
        GraphWriter::attribute(w.node("Flatten", {a}, out), "axis", 1);
        break;
      case Op::TanhSqueeze:
        if (site) {  // 2 z: the site applies a sigmoid, sigmoid(2 z) = (tanh(z) + 1) / 2
          w.floats("two", 2.0f);
          w.node("Mul", {a, "two"}, out);
        } else {
          const std::string t = out + "_tanh";
          w.ints("squeeze_axes", {1});
          w.node("Tanh", {a}, t);
          w.node("Squeeze", {t, "squeeze_axes"}, out);
        }
        break;
    }
    reg[size_t(s.out)] = out;
  }
  if (reg[InferenceNet::kPolicyOut] != policy_name ||
      (value && reg[InferenceNet::kValueOut] != value_name))
    throw CheckpointError("ONNX export: the network's steps do not end in its outputs");
  w.output(policy_name, {site ? kSitePolicySize : kPolicySize});
  if (value) w.output(value_name, site ? std::vector<int64_t>{1} : std::vector<int64_t>{});
}

}  // namespace

bool onnx_export_available() { return true; }

std::string onnx_model_bytes(const PolicyValueNetImpl& net, const OnnxExportOptions& options) {
  onnx::ModelProto model;
  try {
    torch::NoGradGuard no_grad;
    model.set_ir_version(kOnnxIrVersion);
    model.set_producer_name("fusekilab");
    model.set_producer_version("0.1.0");
    model.set_doc_string("fusekilab policy-value network, " + describe(net.config()));
    onnx::OperatorSetIdProto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(kOnnxOpset);
    onnx::StringStringEntryProto* meta = model.add_metadata_props();
    meta->set_key("fusekilab_architecture");
    meta->set_value(architecture_record(net.config()));
    onnx::GraphProto* g = model.mutable_graph();
    g->set_name("fuseki_policy_value");
    build_graph(InferenceNet(net, torch::kCPU), options, g);
    onnx::checker::check_model(model);
    onnx::ModelProto inferred = model;
    onnx::shape_inference::InferShapes(inferred, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(true, 1));
  } catch (const c10::Error& e) {
    throw CheckpointError(std::string("ONNX export: ") + e.what_without_backtrace());
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::exception& e) {  // onnx's ValidationError, InferenceError
    throw CheckpointError(std::string("ONNX export: invalid model: ") + e.what());
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    throw CheckpointError("ONNX export: the model could not be serialized");
  return bytes;
}

#else  // built without libonnx-dev

bool onnx_export_available() { return false; }

std::string onnx_model_bytes(const PolicyValueNetImpl&, const OnnxExportOptions&) {
  throw CheckpointError(
      "ONNX export: this fusekilab was built without ONNX support (install libonnx-dev, e.g. "
      "with scripts/setup.sh, and configure again)");
}

#endif

void export_onnx(const PolicyValueNetImpl& net, const std::string& path,
                 const OnnxExportOptions& options) {
  const std::string bytes = onnx_model_bytes(net, options);
  try {
    write_file_atomically(path, bytes);
  } catch (const std::runtime_error& e) {
    throw CheckpointError(std::string("ONNX export ") + e.what());
  }
}

}  // namespace fuseki::net
