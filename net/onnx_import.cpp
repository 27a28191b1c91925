// ONNX import: the ModelProto's graph as a list of LibTorch operations over numbered tensor
// slots. Initializers and Constant nodes are tensors on the device; nodes whose inputs are all
// constant are evaluated once at load; a BatchNormalization after a convolution is folded into
// it; Identity and Dropout are removed. Relu and Add work in place on a tensor that nothing else
// reads afterwards, as InferenceNet does.
#include "net/onnx_import.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "io/atomic_file.h"
#include "net/checkpoint.h"
#include "net/encode.h"
#include "net/network.h"
#include "net/site_features.h"

#ifdef FUSEKILAB_WITH_ONNX
#include <onnx/onnx_pb.h>
#endif

namespace fuseki::net {

namespace {
bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(),
                    [](char a, char b) { return std::tolower(a) == std::tolower(b); });
}
}  // namespace

#ifdef FUSEKILAB_WITH_ONNX

namespace onnx = ONNX_NAMESPACE;

namespace onnx_import_detail {

enum class Kind {
  Conv,
  BatchNorm,
  Relu,
  Sigmoid,
  Tanh,
  Add,
  Sub,
  Mul,
  Div,
  Concat,
  Flatten,
  Reshape,
  MatMul,
  Gemm,
  Squeeze,
  Unsqueeze,
  Slice,
  Transpose,
  GlobalAveragePool,
  Shape,
  Gather,
  Identity,
  Constant,
  Softmax,
  LeakyRelu,
  Clip,
  Cast
};

namespace {

const std::map<std::string, Kind>& kinds() {
  static const std::map<std::string, Kind> k = {
      {"Conv", Kind::Conv},
      {"BatchNormalization", Kind::BatchNorm},
      {"Relu", Kind::Relu},
      {"Sigmoid", Kind::Sigmoid},
      {"Tanh", Kind::Tanh},
      {"Add", Kind::Add},
      {"Sub", Kind::Sub},
      {"Mul", Kind::Mul},
      {"Div", Kind::Div},
      {"Concat", Kind::Concat},
      {"Flatten", Kind::Flatten},
      {"Reshape", Kind::Reshape},
      {"MatMul", Kind::MatMul},
      {"Gemm", Kind::Gemm},
      {"Squeeze", Kind::Squeeze},
      {"Unsqueeze", Kind::Unsqueeze},
      {"Slice", Kind::Slice},
      {"Transpose", Kind::Transpose},
      {"GlobalAveragePool", Kind::GlobalAveragePool},
      {"Shape", Kind::Shape},
      {"Gather", Kind::Gather},
      {"Identity", Kind::Identity},
      {"Dropout", Kind::Identity},
      {"Constant", Kind::Constant},
      {"Softmax", Kind::Softmax},
      {"LeakyRelu", Kind::LeakyRelu},
      {"Clip", Kind::Clip},
      {"Cast", Kind::Cast},
  };
  return k;
}

bool is_view(Kind k) {
  return k == Kind::Flatten || k == Kind::Reshape || k == Kind::Squeeze || k == Kind::Unsqueeze ||
         k == Kind::Slice || k == Kind::Transpose || k == Kind::Gather;
}

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw CheckpointError("ONNX network '" + name + "': " + what);
}

}  // namespace

struct Node {
  Kind kind;
  std::string op, name;  // for errors
  std::vector<int> in;   // slots; -1: an optional input left out
  int out = -1;
  std::vector<int64_t> strides, pads, dilations, perm, axes;
  int64_t group = 1, axis = 0, trans_a = 0, trans_b = 0, to = 0;
  float alpha = 1, beta = 1, epsilon = 1e-5f;
  bool in_place = false;     // Relu, Add: may overwrite in[0]
  std::vector<int> release;  // slots read for the last time here: freed after the node
  bool axis_set = false;
  std::string where() const { return "node '" + name + "' (" + op + ")"; }
};

}  // namespace onnx_import_detail
using namespace onnx_import_detail;

struct OnnxNet::Impl {
  std::string name;
  NetConfig config;
  bool site = true;
  torch::Device device = torch::kCPU;
  torch::ScalarType dtype = torch::kFloat32;
  std::vector<torch::Tensor> constants;  // per slot; defined for initializers and constants
  std::vector<int> inputs;               // input1, input2 or planes
  int policy = -1, value = -1;
  int whole_input = -1;  // the slot of Concat(input1, input2, axis 1), when the graph has it
  std::vector<Node> nodes;
  size_t slots = 0;

  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x) const;
  torch::Tensor run(const Node& n, std::vector<torch::Tensor>& r) const;
};

namespace {

torch::Tensor tensor_of(const onnx::TensorProto& t, const std::string& file) {
  const std::string what = "tensor '" + t.name() + "'";
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    fail(file, what + " keeps its data in an external file (not supported)");
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0) fail(file, what + " has a negative dimension");
    count *= d;
  }
  torch::ScalarType type;
  size_t width;
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      type = torch::kFloat32, width = 4;
      break;
    case onnx::TensorProto::DOUBLE:
      type = torch::kFloat64, width = 8;
      break;
    case onnx::TensorProto::INT64:
      type = torch::kInt64, width = 8;
      break;
    case onnx::TensorProto::INT32:
      type = torch::kInt32, width = 4;
      break;
    default:
      fail(file, what + " has data type " + std::to_string(t.data_type()) +
                     " (supported: float, double, int64, int32)");
  }
  torch::Tensor out = torch::empty(dims, torch::TensorOptions().dtype(type));
  const size_t bytes = size_t(count) * width;
  if (t.has_raw_data()) {
    if (t.raw_data().size() != bytes)
      fail(file, what + " holds " + std::to_string(t.raw_data().size()) +
                     " bytes, its shape needs " + std::to_string(bytes) +
                     " (truncated or damaged)");
    std::memcpy(out.data_ptr(), t.raw_data().data(), bytes);
    return out;
  }
  auto copy = [&](const auto& field) {
    if (int64_t(field.size()) != count)
      fail(file, what + " holds " + std::to_string(field.size()) + " values, its shape needs " +
                     std::to_string(count) + " (truncated or damaged)");
    if (count) std::memcpy(out.data_ptr(), field.data(), bytes);
  };
  switch (type) {
    case torch::kFloat32:
      copy(t.float_data());
      break;
    case torch::kFloat64:
      copy(t.double_data());
      break;
    case torch::kInt64:
      copy(t.int64_data());
      break;
    default:
      copy(t.int32_data());
      break;
  }
  return out;
}

std::vector<int64_t> ints_of(const torch::Tensor& t) {
  const torch::Tensor c = t.to(torch::kCPU, torch::kInt64).contiguous().reshape(-1);
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

std::string shape_text(const onnx::ValueInfoProto& v) {
  std::string s = v.name() + " [";
  if (!v.type().tensor_type().has_shape()) return s + "?]";
  const auto& dims = v.type().tensor_type().shape().dim();
  for (int i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += dims[i].has_dim_value()       ? std::to_string(dims[i].dim_value())
         : dims[i].dim_param().empty() ? "?"
                                       : dims[i].dim_param();
  }
  return s + "]";
}

// A float input [N, planes, 9, 9]: the batch dimension anything, the others as given (or not
// stated).
bool input_fits(const onnx::ValueInfoProto& v, int planes) {
  if (v.type().tensor_type().elem_type() != onnx::TensorProto::FLOAT) return false;
  if (!v.type().tensor_type().has_shape()) return true;
  const auto& dims = v.type().tensor_type().shape().dim();
  if (dims.size() != 4) return false;
  const int64_t want[] = {0, planes, 9, 9};
  for (int i = 1; i < 4; ++i)
    if (dims[i].has_dim_value() && dims[i].dim_value() != want[i]) return false;
  return true;
}

// The first output's declared width, -1 when not stated.
int64_t declared_width(const onnx::ValueInfoProto& v, bool& two_d) {
  two_d = true;
  if (!v.type().tensor_type().has_shape()) return -1;
  const auto& dims = v.type().tensor_type().shape().dim();
  if (dims.size() != 2) {
    two_d = false;
    return -1;
  }
  return dims[1].has_dim_value() ? dims[1].dim_value() : -1;
}

}  // namespace

torch::Tensor OnnxNet::Impl::run(const Node& n, std::vector<torch::Tensor>& r) const {
  auto in = [&](size_t i) -> const torch::Tensor& { return r[size_t(n.in[i])]; };
  auto has = [&](size_t i) { return i < n.in.size() && n.in[i] >= 0; };
  switch (n.kind) {
    case Kind::Conv: {
      const torch::Tensor& w = in(1);
      torch::Tensor x = in(0);
      std::vector<int64_t> pad = {0, 0};
      if (!n.pads.empty()) {
        if (n.pads[0] == n.pads[2] && n.pads[1] == n.pads[3]) {
          pad = {n.pads[0], n.pads[1]};
        } else {  // asymmetric: pad first (ONNX begins, ends; torch last dimension first)
          x = torch::constant_pad_nd(x, {n.pads[1], n.pads[3], n.pads[0], n.pads[2]});
        }
      }
      return torch::conv2d(x, w, has(2) ? in(2) : torch::Tensor(), n.strides, pad, n.dilations,
                           n.group);
    }
    case Kind::BatchNorm: {  // not after a foldable convolution: y = x * a + b per channel
      const torch::Tensor a = in(1) / torch::sqrt(in(4) + n.epsilon);
      const torch::Tensor b = in(2) - in(3) * a;
      std::vector<int64_t> shape(size_t(in(0).dim()), 1);
      shape[1] = -1;
      return in(0) * a.reshape(shape) + b.reshape(shape);
    }
    case Kind::Relu:
      return n.in_place ? r[size_t(n.in[0])].relu_() : in(0).relu();
    case Kind::LeakyRelu:
      return torch::leaky_relu(in(0), n.alpha);
    case Kind::Sigmoid:
      return in(0).sigmoid();
    case Kind::Tanh:
      return in(0).tanh();
    case Kind::Clip: {
      torch::Tensor y = in(0);
      if (has(1)) y = torch::max(y, in(1).to(y.scalar_type()));
      if (has(2)) y = torch::min(y, in(2).to(y.scalar_type()));
      return y;
    }
    case Kind::Add:
      return n.in_place ? r[size_t(n.in[0])].add_(in(1)) : in(0) + in(1);
    case Kind::Sub:
      return in(0) - in(1);
    case Kind::Mul:
      return in(0) * in(1);
    case Kind::Div:
      return in(0) / in(1);
    case Kind::Concat: {
      std::vector<torch::Tensor> parts;
      for (size_t i = 0; i < n.in.size(); ++i) parts.push_back(in(i));
      return torch::cat(parts, n.axis);
    }
    case Kind::Flatten: {
      const torch::Tensor& x = in(0);
      const int64_t axis = n.axis < 0 ? n.axis + x.dim() : n.axis;
      int64_t lead = 1;
      for (int64_t d = 0; d < axis; ++d) lead *= x.size(d);
      return x.reshape({lead, -1});
    }
    case Kind::Reshape: {
      const torch::Tensor& x = in(0);
      std::vector<int64_t> shape = ints_of(in(1));
      for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] == 0 && n.axis == 0) shape[d] = x.size(int64_t(d));  // allowzero = 0
      return x.reshape(shape);
    }
    case Kind::MatMul:
      return torch::matmul(in(0), in(1));
    case Kind::Gemm: {
      const torch::Tensor a = n.trans_a ? in(0).t() : in(0);
      const torch::Tensor b = n.trans_b ? in(1).t() : in(1);
      if (!has(2)) return n.alpha == 1 ? torch::mm(a, b) : torch::mm(a, b) * n.alpha;
      return torch::addmm(in(2), a, b, n.beta, n.alpha);
    }
    case Kind::Squeeze: {
      std::vector<int64_t> axes = has(1) ? ints_of(in(1)) : n.axes;
      torch::Tensor x = in(0);
      if (axes.empty() && !has(1)) return x.squeeze();
      for (int64_t& a : axes)
        if (a < 0) a += x.dim();
      std::sort(axes.rbegin(), axes.rend());
      for (int64_t a : axes) x = x.squeeze(a);
      return x;
    }
    case Kind::Unsqueeze: {
      std::vector<int64_t> axes = has(1) ? ints_of(in(1)) : n.axes;
      torch::Tensor x = in(0);
      const int64_t rank = x.dim() + int64_t(axes.size());
      for (int64_t& a : axes)
        if (a < 0) a += rank;
      std::sort(axes.begin(), axes.end());
      for (int64_t a : axes) x = x.unsqueeze(a);
      return x;
    }
    case Kind::Slice: {
      torch::Tensor x = in(0);
      const std::vector<int64_t> starts = ints_of(in(1)), ends = ints_of(in(2));
      std::vector<int64_t> axes = has(3) ? ints_of(in(3)) : std::vector<int64_t>{};
      const std::vector<int64_t> steps = has(4) ? ints_of(in(4)) : std::vector<int64_t>{};
      if (axes.empty())
        for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
      for (size_t i = 0; i < starts.size(); ++i) {
        int64_t a = axes[i] < 0 ? axes[i] + x.dim() : axes[i];
        const int64_t size = x.size(a), step = steps.empty() ? 1 : steps[i];
        if (step <= 0) throw std::runtime_error("Slice with a step <= 0 is not supported");
        int64_t s = starts[i] < 0 ? starts[i] + size : starts[i];
        int64_t e = ends[i] < 0 ? ends[i] + size : ends[i];
        s = std::clamp<int64_t>(s, 0, size);
        e = std::clamp<int64_t>(e, 0, size);
        x = x.slice(a, s, std::max(s, e), step);
      }
      return x;
    }
    case Kind::Transpose: {
      if (n.perm.empty()) {
        std::vector<int64_t> p;
        for (int64_t d = in(0).dim() - 1; d >= 0; --d) p.push_back(d);
        return in(0).permute(p);
      }
      return in(0).permute(n.perm);
    }
    case Kind::GlobalAveragePool:
      return in(0).mean({2, 3}, /*keepdim=*/true);
    case Kind::Shape:
      return torch::tensor(in(0).sizes().vec(), torch::kInt64);
    case Kind::Gather: {
      const torch::Tensor& x = in(0);
      const int64_t axis = n.axis < 0 ? n.axis + x.dim() : n.axis;
      torch::Tensor idx = in(1).to(x.device(), torch::kInt64);
      idx = torch::where(idx < 0, idx + x.size(axis), idx);
      if (idx.dim() == 0) return x.select(axis, idx.item<int64_t>());
      std::vector<int64_t> shape = x.sizes().vec();
      torch::Tensor flat = x.index_select(axis, idx.reshape(-1));
      shape.erase(shape.begin() + axis);
      const auto is = idx.sizes().vec();
      shape.insert(shape.begin() + axis, is.begin(), is.end());
      return flat.reshape(shape);
    }
    case Kind::Softmax:
      return in(0).softmax(n.axis < 0 ? n.axis + in(0).dim() : n.axis);
    case Kind::Cast:
      if (n.to == onnx::TensorProto::FLOAT) return in(0).to(dtype);
      if (n.to == onnx::TensorProto::INT64) return in(0).to(torch::kInt64);
      throw std::runtime_error("Cast to data type " + std::to_string(n.to) + " is not supported");
    case Kind::Identity:
    case Kind::Constant:
      return in(0);
  }
  return {};
}

std::tuple<torch::Tensor, torch::Tensor> OnnxNet::Impl::forward(const torch::Tensor& x) const {
  std::vector<torch::Tensor> r(constants);
  const torch::Tensor input = x.scalar_type() == dtype ? x : x.to(dtype);
  if (site) {
    r[size_t(inputs[0])] = input.slice(1, 0, kSitePlanes1);
    r[size_t(inputs[1])] = input.slice(1, kSitePlanes1, kSiteInputPlanes);
    if (whole_input >= 0) r[size_t(whole_input)] = input;
  } else {
    r[size_t(inputs[0])] = input;
  }
  const Node* current = nullptr;
  try {
    for (const Node& n : nodes) {
      current = &n;
      r[size_t(n.out)] = run(n, r);
      for (int s : n.release) r[size_t(s)].reset();  // keeps the working set small, in cache
    }
  } catch (const std::exception& e) {
    std::string what = e.what();
    if (const auto* c = dynamic_cast<const c10::Error*>(&e)) what = c->what_without_backtrace();
    what = what.substr(0, what.find('\n'));
    fail(name, (current ? current->where() + ": " : std::string()) + what);
  }
  torch::Tensor p = r[size_t(policy)].to(torch::kFloat32);
  const int64_t n = x.size(0);
  const int64_t width = site ? kSitePolicySize : kPolicySize;
  if (p.dim() != 2 || p.size(0) != n || p.size(1) != width)
    fail(name, "the first output is " + c10::str(p.sizes()) + ", expected [" + std::to_string(n) +
                   ", " + std::to_string(width) + "]");
  if (site) p = p.index_select(1, site_camp_labels(p.device()));
  torch::Tensor v;
  if (value >= 0) {
    v = r[size_t(value)].to(torch::kFloat32);
    if (v.numel() != n)
      fail(name, "the value output is " + c10::str(v.sizes()) + ", expected [" + std::to_string(n) +
                     "] or [" + std::to_string(n) + ", 1]");
    v = v.reshape({n});
    if (site) v = (v * 0.5).tanh();  // sigmoid(o) = (tanh(o / 2) + 1) / 2
  } else {
    v = torch::zeros({n}, p.options());
  }
  return {p, v};
}

namespace {

std::unique_ptr<OnnxNet::Impl> build(const std::string& bytes, const std::string& file,
                                     torch::Device device, torch::ScalarType dtype) {
  if (bytes.empty()) fail(file, "the file is empty");
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "PK\x03\x04", 4) == 0)
    fail(file, "not an ONNX model (a zip archive: a checkpoint?)");
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes))
    fail(file, "not an ONNX model, or a truncated one (the protobuf does not parse)");
  if (!model.has_graph() || model.ir_version() <= 0 || model.graph().node_size() == 0)
    fail(file, "not an ONNX model (no IR version or no graph)");
  const onnx::GraphProto& g = model.graph();
  for (const auto& o : model.opset_import())
    if ((o.domain().empty() || o.domain() == "ai.onnx") && o.version() < 7)
      fail(file, "opset " + std::to_string(o.version()) + " (this reader needs opset 7 or later)");

  auto impl = std::make_unique<OnnxNet::Impl>();
  impl->name = file;
  impl->device = device;
  impl->dtype = dtype;
  std::map<std::string, int> slot;
  std::vector<torch::Tensor>& constants = impl->constants;
  auto new_slot = [&](const std::string& name) {
    slot[name] = int(constants.size());
    constants.emplace_back();
    return int(constants.size()) - 1;
  };

  // Initializers.
  std::set<std::string> initializers;
  for (const auto& t : g.initializer()) {
    if (t.name().empty()) fail(file, "an initializer without a name");
    constants[size_t(new_slot(t.name()))] = tensor_of(t, file);
    initializers.insert(t.name());
  }

  // Inputs: input1 and input2 (the site's format) or planes (fusekilab's native).
  std::vector<const onnx::ValueInfoProto*> inputs;
  for (const auto& v : g.input())
    if (!initializers.count(v.name())) inputs.push_back(&v);
  std::string listed;
  for (const auto* v : inputs) listed += (listed.empty() ? "" : ", ") + shape_text(*v);
  const bool site = inputs.size() == 2 && inputs[0]->name() == "input1" &&
                    inputs[1]->name() == "input2" && input_fits(*inputs[0], kSitePlanes1) &&
                    input_fits(*inputs[1], kSitePlanes2);
  const bool native =
      inputs.size() == 1 && inputs[0]->name() == "planes" && input_fits(*inputs[0], kInputPlanes);
  if (!site && !native)
    fail(file, "graph inputs " + listed +
                   ": expected input1 [N, 62, 9, 9] and input2 [N, 59, 9, 9] float (the site's "
                   "format) or planes [N, 36, 9, 9] (fusekilab's native)");
  impl->site = site;
  for (const auto* v : inputs) {
    if (slot.count(v->name())) fail(file, "input '" + v->name() + "' is also an initializer");
    impl->inputs.push_back(new_slot(v->name()));
  }

  // Outputs: the first is the policy, [N, 648] (site) or [N, 288].
  if (g.output_size() == 0) fail(file, "the graph has no output");
  const int64_t width = site ? kSitePolicySize : kPolicySize;
  bool two_d = true;
  const int64_t declared = declared_width(g.output(0), two_d);
  if (!two_d || (declared >= 0 && declared != width))
    fail(file, "the first output is " + shape_text(g.output(0)) + ", expected [N, " +
                   std::to_string(width) + "] policy logits");
  const std::string value_name = site ? "output_value" : "value";

  // Nodes, in topological order (ONNX requires it; checked, and sorted if not).
  struct Pending {
    const onnx::NodeProto* proto;
    int index;
  };
  std::vector<Pending> pending;
  for (int i = 0; i < g.node_size(); ++i) pending.push_back({&g.node(i), i});
  std::set<std::string> produced;
  for (const auto& [k, v] : slot) produced.insert(k);
  std::vector<const onnx::NodeProto*> order;
  std::vector<int> order_index;
  while (!pending.empty()) {
    bool progress = false;
    for (size_t i = 0; i < pending.size();) {
      const onnx::NodeProto& n = *pending[i].proto;
      bool ready = true;
      for (const auto& in : n.input())
        if (!in.empty() && !produced.count(in)) ready = false;
      if (!ready) {
        ++i;
        continue;
      }
      order.push_back(&n);
      order_index.push_back(pending[i].index);
      for (const auto& out : n.output()) produced.insert(out);
      pending.erase(pending.begin() + std::ptrdiff_t(i));
      progress = true;
    }
    if (!progress) {
      const onnx::NodeProto& n = *pending.front().proto;
      std::string missing;
      for (const auto& in : n.input())
        if (!in.empty() && !produced.count(in)) missing = in;
      fail(file, "node '" +
                     (n.name().empty() ? "#" + std::to_string(pending.front().index) : n.name()) +
                     "' (" + n.op_type() + ") reads '" + missing +
                     "', which no initializer, input or node produces (truncated or damaged?)");
    }
  }

  for (size_t k = 0; k < order.size(); ++k) {
    const onnx::NodeProto& p = *order[k];
    Node n;
    n.op = p.op_type();
    n.name = p.name().empty() ? "#" + std::to_string(order_index[k]) : p.name();
    const auto it = kinds().find(p.op_type());
    if ((!p.domain().empty() && p.domain() != "ai.onnx") || it == kinds().end())
      fail(file, "unsupported operator '" + (p.domain().empty() ? "" : p.domain() + ".") +
                     p.op_type() + "' in " + n.where());
    n.kind = it->second;
    auto bad = [&](const std::string& what) { fail(file, n.where() + ": " + what); };
    if (p.output_size() < 1 || p.output(0).empty()) bad("no output");
    if (n.kind != Kind::Identity && n.kind != Kind::BatchNorm)  // Dropout's mask: never read
      for (int i = 1; i < p.output_size(); ++i)
        if (!p.output(i).empty()) bad("more than one output is not supported");
    if (n.kind == Kind::BatchNorm)
      for (int i = 1; i < p.output_size(); ++i)
        if (!p.output(i).empty()) bad("training-mode outputs (running statistics) requested");
    for (const auto& in : p.input()) n.in.push_back(in.empty() ? -1 : slot.at(in));
    auto need_inputs = [&](size_t lo, size_t hi) {
      size_t present = 0;
      for (size_t i = 0; i < n.in.size(); ++i)
        if (n.in[i] >= 0) present = i + 1;
      if (n.in.size() < lo || present > hi || (lo > 0 && n.in[0] < 0))
        bad(std::to_string(n.in.size()) + " inputs (expected " + std::to_string(lo) +
            (hi != lo ? " to " + std::to_string(hi) : "") + ")");
      for (size_t i = 0; i < lo; ++i)
        if (n.in[i] < 0) bad("required input " + std::to_string(i) + " is empty");
    };
    // Attributes.
    for (const auto& a : p.attribute()) {
      const std::string& an = a.name();
      auto ints = [&] { return std::vector<int64_t>(a.ints().begin(), a.ints().end()); };
      auto unknown = [&] { bad("unsupported attribute '" + an + "'"); };
      switch (n.kind) {
        case Kind::Conv:
          if (an == "strides")
            n.strides = ints();
          else if (an == "pads")
            n.pads = ints();
          else if (an == "dilations")
            n.dilations = ints();
          else if (an == "group")
            n.group = a.i();
          else if (an == "kernel_shape")
            n.perm = ints();  // checked against the weight below
          else if (an == "auto_pad") {
            if (a.s() != "NOTSET" && a.s() != "VALID")
              bad("auto_pad '" + a.s() + "' is not supported");
          } else
            unknown();
          break;
        case Kind::BatchNorm:
          if (an == "epsilon")
            n.epsilon = a.f();
          else if (an == "training_mode") {
            if (a.i() != 0) bad("training_mode = " + std::to_string(a.i()) + " (inference only)");
          } else if (an == "momentum" || an == "spatial") {
          } else
            unknown();
          break;
        case Kind::Concat:
        case Kind::Flatten:
        case Kind::Gather:
        case Kind::Softmax:
          if (an == "axis")
            n.axis = a.i(), n.axis_set = true;
          else
            unknown();
          break;
        case Kind::Reshape:
          if (an == "allowzero")
            n.axis = a.i();
          else
            unknown();
          break;
        case Kind::Gemm:
          if (an == "alpha")
            n.alpha = a.f();
          else if (an == "beta")
            n.beta = a.f();
          else if (an == "transA")
            n.trans_a = a.i();
          else if (an == "transB")
            n.trans_b = a.i();
          else
            unknown();
          break;
        case Kind::LeakyRelu:
          if (an == "alpha")
            n.alpha = a.f();
          else
            unknown();
          break;
        case Kind::Squeeze:
        case Kind::Unsqueeze:
          if (an == "axes")
            n.axes = ints();
          else
            unknown();
          break;
        case Kind::Transpose:
          if (an == "perm")
            n.perm = ints();
          else
            unknown();
          break;
        case Kind::Cast:
          if (an == "to")
            n.to = a.i();
          else
            unknown();
          break;
        case Kind::Identity:
          if (an != "seed") unknown();  // Dropout's
          break;
        case Kind::Constant:
          if (an == "value") {
            const int s = new_slot(p.output(0) + "#value");
            constants[size_t(s)] = tensor_of(a.t(), file);
            n.in = {s};
          } else if (an == "value_float") {
            const int s = new_slot(p.output(0) + "#value");
            constants[size_t(s)] = torch::tensor(a.f());
            n.in = {s};
          } else if (an == "value_floats") {
            const int s = new_slot(p.output(0) + "#value");
            constants[size_t(s)] =
                torch::tensor(std::vector<float>(a.floats().begin(), a.floats().end()));
            n.in = {s};
          } else if (an == "value_int") {
            const int s = new_slot(p.output(0) + "#value");
            constants[size_t(s)] = torch::tensor(a.i(), torch::kInt64);
            n.in = {s};
          } else if (an == "value_ints") {
            const int s = new_slot(p.output(0) + "#value");
            constants[size_t(s)] = torch::tensor(ints(), torch::kInt64);
            n.in = {s};
          } else
            unknown();
          break;
        default:
          unknown();
      }
    }
    if (!n.axis_set && (n.kind == Kind::Flatten || n.kind == Kind::Softmax))
      n.axis = n.kind == Kind::Flatten ? 1 : -1;
    if (n.kind == Kind::Concat && !n.axis_set) bad("no axis");
    switch (n.kind) {
      case Kind::Conv: {
        need_inputs(2, 3);
        const torch::Tensor& w = constants[size_t(n.in[1])];
        if (!w.defined() || w.dim() != 4)
          bad("the weight must be a 4-D initializer (2-D convolution)");
        if (n.strides.empty()) n.strides = {1, 1};
        if (n.dilations.empty()) n.dilations = {1, 1};
        if (n.strides.size() != 2 || n.dilations.size() != 2 ||
            (!n.pads.empty() && n.pads.size() != 4))
          bad("strides, dilations need 2 values and pads 4 (a 2-D convolution)");
        for (int64_t v : n.strides)
          if (v < 1) bad("strides must be >= 1");
        for (int64_t v : n.dilations)
          if (v < 1) bad("dilations must be >= 1");
        for (int64_t v : n.pads)
          if (v < 0) bad("pads must be >= 0");
        if (n.group < 1 || w.size(0) % n.group != 0)
          bad("group = " + std::to_string(n.group) + " does not divide the output channels");
        if (!n.perm.empty() &&
            (n.perm.size() != 2 || n.perm[0] != w.size(2) || n.perm[1] != w.size(3)))
          bad("kernel_shape disagrees with the weight's shape " + c10::str(w.sizes()));
        n.perm.clear();
        break;
      }
      case Kind::BatchNorm:
        need_inputs(5, 5);
        if (!(n.epsilon >= 0)) bad("epsilon must be >= 0");
        break;
      case Kind::Add:
      case Kind::Sub:
      case Kind::Mul:
      case Kind::Div:
      case Kind::MatMul:
      case Kind::Gather:
        need_inputs(2, 2);
        break;
      case Kind::Gemm:
        need_inputs(2, 3);
        if (n.trans_a < 0 || n.trans_a > 1 || n.trans_b < 0 || n.trans_b > 1)
          bad("transA and transB must be 0 or 1");
        break;
      case Kind::Reshape:
        need_inputs(2, 2);
        break;
      case Kind::Slice:
        if (n.in.size() < 3) bad("Slice needs starts and ends inputs (opset 10 or later)");
        need_inputs(3, 5);
        break;
      case Kind::Squeeze:
      case Kind::Unsqueeze:
        need_inputs(1, 2);
        if (n.kind == Kind::Unsqueeze && n.axes.empty() && n.in.size() < 2) bad("no axes");
        break;
      case Kind::Concat:
        if (n.in.empty()) bad("no inputs");
        for (int s : n.in)
          if (s < 0) bad("an empty input");
        break;
      case Kind::Clip:
        need_inputs(1, 3);
        break;
      case Kind::Constant:
        if (n.in.size() != 1) bad("a Constant needs exactly one value attribute");
        break;
      case Kind::Cast:
        need_inputs(1, 1);
        if (n.to != onnx::TensorProto::FLOAT && n.to != onnx::TensorProto::INT64)
          bad("cast to data type " + std::to_string(n.to) + " (float and int64 only)");
        break;
      case Kind::Identity:
        need_inputs(1, 3);
        n.in.resize(1);
        break;
      default:
        need_inputs(1, 1);
    }
    if (slot.count(p.output(0))) bad("writes '" + p.output(0) + "', which already exists");
    n.out = new_slot(p.output(0));
    impl->nodes.push_back(std::move(n));
  }

  for (int i = 0; i < g.output_size(); ++i)
    if (!slot.count(g.output(i).name()))
      fail(file, "output '" + g.output(i).name() + "' is produced by no node");
  impl->policy = slot.at(g.output(0).name());
  for (int i = 1; i < g.output_size(); ++i)
    if (g.output(i).name() == value_name) impl->value = slot.at(value_name);

  // Floating constants to the device and precision.
  for (torch::Tensor& t : constants)
    if (t.defined() && t.is_floating_point()) t = t.to(device, dtype);  // shapes stay on the CPU

  std::vector<Node>& nodes = impl->nodes;
  // Identity and Dropout: their readers read the input instead.
  {
    std::vector<int> alias(constants.size());
    for (size_t s = 0; s < alias.size(); ++s) alias[s] = int(s);
    std::vector<Node> kept;
    for (Node& n : nodes) {
      for (int& s : n.in)
        if (s >= 0) s = alias[size_t(s)];
      if (n.kind == Kind::Identity) {
        alias[size_t(n.out)] = n.in[0];
        continue;
      }
      kept.push_back(std::move(n));
    }
    nodes = std::move(kept);
    impl->policy = alias[size_t(impl->policy)];
    if (impl->value >= 0) impl->value = alias[size_t(impl->value)];
  }
  // Nodes of constant inputs (Constant, shapes computed from initializers, ...): evaluated now.
  {
    torch::NoGradGuard no_grad;
    std::vector<Node> kept;
    for (Node& n : nodes) {
      bool all = n.kind != Kind::Shape;
      for (int s : n.in)
        if (s >= 0 && !constants[size_t(s)].defined()) all = false;
      if (all) {
        try {
          constants[size_t(n.out)] = impl->run(n, constants);
        } catch (const std::exception& e) {
          std::string what = e.what();
          if (const auto* c = dynamic_cast<const c10::Error*>(&e))
            what = c->what_without_backtrace();
          fail(file, n.where() + ": " + what.substr(0, what.find('\n')));
        }
        continue;
      }
      kept.push_back(std::move(n));
    }
    nodes = std::move(kept);
  }
  // Uses of each slot; the outputs are used at the end.
  auto count_uses = [&] {
    std::vector<int> uses(constants.size(), 0);
    for (const Node& n : nodes)
      for (int s : n.in)
        if (s >= 0) ++uses[size_t(s)];
    ++uses[size_t(impl->policy)];
    if (impl->value >= 0) ++uses[size_t(impl->value)];
    return uses;
  };
  // A BatchNormalization whose input is a convolution read by nothing else: folded into it.
  {
    torch::NoGradGuard no_grad;
    const std::vector<int> uses = count_uses();
    std::map<int, size_t> producer;
    for (size_t i = 0; i < nodes.size(); ++i) producer[nodes[i].out] = i;
    std::vector<bool> drop(nodes.size(), false);
    for (size_t i = 0; i < nodes.size(); ++i) {
      Node& bn = nodes[i];
      if (bn.kind != Kind::BatchNorm) continue;
      bool params = true;
      for (size_t k = 1; k < 5; ++k)
        if (!constants[size_t(bn.in[k])].defined()) params = false;
      const auto pi = producer.find(bn.in[0]);
      if (!params || pi == producer.end() || uses[size_t(bn.in[0])] != 1) continue;
      Node& conv = nodes[pi->second];
      if (conv.kind != Kind::Conv) continue;
      const torch::Tensor w = constants[size_t(conv.in[1])];
      const torch::Tensor b = conv.in.size() > 2 && conv.in[2] >= 0
                                  ? constants[size_t(conv.in[2])]
                                  : torch::zeros({w.size(0)}, w.options());
      if (!w.defined() || !b.defined()) continue;
      auto c = [&](size_t k) { return constants[size_t(bn.in[k])].to(torch::kFloat64); };
      const torch::Tensor a = c(1) / torch::sqrt(c(4) + double(bn.epsilon));
      if (a.numel() != w.size(0)) continue;  // left to fail at the trial run
      const torch::Tensor w2 = (w.to(torch::kFloat64) * a.reshape({-1, 1, 1, 1})).to(w.dtype());
      const torch::Tensor b2 = ((b.to(torch::kFloat64) - c(3)) * a + c(2)).to(w.dtype());
      const int ws = new_slot(bn.name + "#folded_weight"), bs = new_slot(bn.name + "#folded_bias");
      constants[size_t(ws)] = w2;
      constants[size_t(bs)] = b2;
      conv.in.resize(3);
      conv.in[1] = ws;
      conv.in[2] = bs;
      conv.out = bn.out;
      drop[i] = true;
    }
    std::vector<Node> kept;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (!drop[i]) kept.push_back(std::move(nodes[i]));
    nodes = std::move(kept);
  }
  // Concat(input1, input2) on axis 1: the evaluator's planes as they are (not fresh: never
  // overwritten in place).
  if (site && !nodes.empty() && nodes.front().kind == Kind::Concat && nodes.front().axis == 1 &&
      nodes.front().in == impl->inputs) {
    impl->whole_input = nodes.front().out;  // input1 then input2: the planes as they come
    nodes.erase(nodes.begin());
  }
  // In place: Relu and Add on a fresh tensor (made by a computing node, not a view of another
  // or an input or constant) that nothing reads afterwards and no view shares.
  {
    const std::vector<int> uses = count_uses();
    std::vector<int> last(constants.size(), -1);
    std::vector<bool> viewed(constants.size(), false), fresh(constants.size(), false);
    for (size_t i = 0; i < nodes.size(); ++i)
      for (int s : nodes[i].in)
        if (s >= 0) {
          last[size_t(s)] = int(i);
          if (is_view(nodes[i].kind)) viewed[size_t(s)] = true;
        }
    for (size_t i = 0; i < nodes.size(); ++i) {
      Node& n = nodes[i];
      const int s = n.in[0];
      if ((n.kind == Kind::Relu || n.kind == Kind::Add) && fresh[size_t(s)] && !viewed[size_t(s)] &&
          last[size_t(s)] == int(i) && s != impl->policy && s != impl->value &&
          !(n.kind == Kind::Add && n.in[1] == s)) {
        n.in_place = true;
      }
      fresh[size_t(n.out)] = !is_view(n.kind) && n.kind != Kind::Shape;
    }
    for (size_t s = 0; s < last.size(); ++s)
      if (last[s] >= 0 && !constants[s].defined() && int(s) != impl->policy &&
          int(s) != impl->value)
        nodes[size_t(last[s])].release.push_back(int(s));
    (void)uses;
  }
  impl->slots = constants.size();

  // The architecture: the file's own record, else what the graph shows.
  NetConfig config = with_format(NetConfig{}, site ? "site" : "native");
  bool recorded = false;
  for (const auto& m : model.metadata_props())
    if (m.key() == "fusekilab_architecture") {
      const nlohmann::json a = nlohmann::json::parse(m.value(), nullptr, false);
      if (a.is_object() && a.value("channels", 0) > 0) {
        config.channels = a.value("channels", 1);
        config.blocks = a.value("blocks", 0);
        config.value_channels = std::clamp(a.value("value_channels", 1), 1, kMaxValueChannels);
        config.value_hidden = std::clamp(a.value("value_hidden", 0), 0, kMaxChannels);
        recorded = true;
      }
    }
  if (!recorded) {
    int adds = 0;
    config.channels = 0;
    for (const Node& n : nodes) {
      if (n.kind == Kind::Add) ++adds;
      if (n.kind == Kind::Conv && config.channels == 0)
        config.channels = int(constants[size_t(n.in[1])].size(0));
    }
    config.channels = std::clamp(config.channels, 1, kMaxChannels);
    config.blocks = std::clamp(adds, 0, kMaxBlocks);
  }
  impl->config = config;
  return impl;
}

}  // namespace

bool onnx_import_available() { return true; }

std::shared_ptr<const OnnxNet> OnnxNet::from_bytes(const std::string& bytes,
                                                   const std::string& name, torch::Device device,
                                                   torch::ScalarType dtype) {
  std::shared_ptr<const OnnxNet> net(new OnnxNet(build(bytes, name, device, dtype)));
  // The site's load check: one all-zero position, the first output [1, width].
  torch::NoGradGuard no_grad;
  net->forward(torch::zeros({1, net->impl_->site ? kSiteInputPlanes : kInputPlanes, 9, 9},
                            torch::TensorOptions().device(device)));
  return net;
}

std::vector<OnnxNet::Layer> OnnxNet::layers() const {
  const Impl& m = *impl_;
  auto constant = [&](const Node& n, size_t i) {
    return i < n.in.size() && n.in[i] >= 0 && m.constants[size_t(n.in[i])].defined()
               ? m.constants[size_t(n.in[i])].to(torch::kCPU, torch::kFloat32)
               : torch::Tensor();
  };
  std::vector<Layer> out;
  for (const Node& n : m.nodes) {
    if (n.kind != Kind::Conv && n.kind != Kind::Gemm && n.kind != Kind::MatMul) continue;
    Layer l;
    l.node = n.where();
    l.conv = n.kind == Kind::Conv;
    torch::Tensor w = constant(n, 1), b = constant(n, 2);
    if (!w.defined()) continue;  // a product of two computed tensors: no weights to take
    if (n.kind == Kind::Gemm) {
      if (w.dim() != 2) continue;
      w = (n.trans_b ? w : w.t()) * n.alpha;
      if (b.defined()) b = b.reshape({-1}) * n.beta;
    } else if (n.kind == Kind::MatMul) {
      if (w.dim() != 2) continue;
      w = w.t();
    } else {
      auto all = [](const std::vector<int64_t>& v, int64_t x) {
        return std::all_of(v.begin(), v.end(), [&](int64_t e) { return e == x; });
      };
      const int64_t half = w.dim() == 4 ? w.size(2) / 2 : -1;
      l.plain = w.dim() == 4 && w.size(2) == w.size(3) && w.size(2) % 2 == 1 && n.group == 1 &&
                all(n.strides, 1) && all(n.dilations, 1) && all(n.pads, half) &&
                (!n.pads.empty() || half == 0);
    }
    l.weight = w.contiguous();
    l.bias = b.defined() && b.numel() == w.size(0) ? b.contiguous() : torch::zeros({w.size(0)});
    const int in = n.in[0];
    if (in == m.whole_input || (!m.site && in == m.inputs[0]))
      l.source = 2;
    else if (m.site && in == m.inputs[0])
      l.source = 0;
    else if (m.site && in == m.inputs[1])
      l.source = 1;
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<std::string> OnnxNet::operators() const {
  std::vector<std::string> out;
  for (const Node& n : impl_->nodes) out.push_back(n.op);
  return out;
}

bool is_onnx_file(const std::string& path) {
  if (has_suffix(path, ".onnx")) return true;
  std::ifstream f(path, std::ios::binary);
  char head[4] = {};
  if (!f.read(head, 4)) return false;
  if (std::memcmp(head, "PK\x03\x04", 4) == 0) return false;
  // An ONNX ModelProto starts with field 1 (ir_version, varint): 0x08.
  return head[0] == 0x08;
}

#else  // built without libonnx-dev

struct OnnxNet::Impl {
  NetConfig config;
  int value = -1;
  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor&) const { return {}; }
};

bool onnx_import_available() { return false; }

std::shared_ptr<const OnnxNet> OnnxNet::from_bytes(const std::string&, const std::string& name,
                                                   torch::Device, torch::ScalarType) {
  throw CheckpointError("ONNX network '" + name +
                        "': this fusekilab was built without ONNX support (install libonnx-dev, "
                        "e.g. with scripts/setup.sh, and configure again)");
}

std::vector<std::string> OnnxNet::operators() const { return {}; }
std::vector<OnnxNet::Layer> OnnxNet::layers() const { return {}; }

bool is_onnx_file(const std::string& path) { return has_suffix(path, ".onnx"); }

#endif

OnnxNet::OnnxNet(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OnnxNet::~OnnxNet() = default;

std::shared_ptr<const OnnxNet> OnnxNet::load(const std::string& path, torch::Device device,
                                             torch::ScalarType dtype) {
  std::string bytes;
  try {
    bytes = read_file(path);
  } catch (const std::runtime_error& e) {
    throw CheckpointError(std::string("ONNX network ") + e.what());
  }
  return from_bytes(bytes, path, device, dtype);
}

std::tuple<torch::Tensor, torch::Tensor> OnnxNet::forward(const torch::Tensor& x) const {
  return impl_->forward(x);
}
const NetConfig& OnnxNet::config() const { return impl_->config; }
bool OnnxNet::has_value() const { return impl_->value >= 0; }

}  // namespace fuseki::net
