// ONNX import: a placement network written as ONNX (the fusekishogi.com front end's format, or
// fusekilab's own native export) read with libonnx (an onnx::ModelProto parsed with protobuf)
// and run with LibTorch operations, for inference only.
//
//   site format:   inputs `input1` [N, 62, 9, 9] and `input2` [N, 59, 9, 9]; the first output
//                  [N, 648] logits (the site's labels); `output_value` optional, read as the
//                  mover's win probability after a sigmoid (value = tanh(output_value / 2)).
//   native format: input `planes` [N, 36, 9, 9]; the first output [N, 288] logits; `value`
//                  optional ([N] or [N, 1], already tanh).
//
// forward() takes the Evaluator's planes ([N, 121, 9, 9] for the site format: input1 then
// input2) and returns the native [N, 288] logits (the site's 648 gathered with
// site_camp_labels) and the value [N] (0 without a value output). See docs/network.md.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "net/net_config.h"

namespace fuseki::net {

// False when this build was configured without libonnx-dev: loading then throws.
bool onnx_import_available();

// True when `path` names an ONNX file: the suffix .onnx, or (for an existing file) bytes that
// do not start like a torch zip archive but parse as an ONNX model with a graph.
bool is_onnx_file(const std::string& path);

class OnnxNet {
 public:
  // Reads, checks and prepares the graph; any fault throws CheckpointError (net/checkpoint.h)
  // with one line naming the file and what is wrong.
  static std::shared_ptr<const OnnxNet> load(const std::string& path,
                                             torch::Device device = torch::kCPU,
                                             torch::ScalarType dtype = torch::kFloat32);
  static std::shared_ptr<const OnnxNet> from_bytes(const std::string& bytes,
                                                   const std::string& name,
                                                   torch::Device device = torch::kCPU,
                                                   torch::ScalarType dtype = torch::kFloat32);
  ~OnnxNet();

  // x: [N, 121 (site) or 36 (native), 9, 9]. Returns logits [N, kPolicySize] and value [N],
  // float32.
  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x) const;

  // The architecture: from the file's fusekilab_architecture metadata when it has one, else
  // the format from the inputs, channels from the first convolution, blocks = the Add nodes.
  const NetConfig& config() const;
  bool has_value() const;
  // The operators of the graph in execution order (after batch-norm folding).
  std::vector<std::string> operators() const;

  // The weighted layers in execution order, each batch norm folded into the convolution before
  // it: what a trainable network started from this file takes (net/onnx_init.h).
  struct Layer {
    std::string node;            // the node's name and operator, for errors
    bool conv = false;           // a Conv; else a Gemm or MatMul
    torch::Tensor weight, bias;  // float32 on the CPU; a Gemm/MatMul's as torch::nn::Linear's
                                 // [out, in]; bias [out], zeros where the node has none
    bool plain = true;           // a Conv with stride 1, no dilation, one group, "same" padding
    int source = -1;             // reads a graph input: 0 input1, 1 input2, 2 both or planes
  };
  std::vector<Layer> layers() const;

  struct Impl;

 private:
  explicit OnnxNet(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace fuseki::net
