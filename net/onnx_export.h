// ONNX export: InferenceNet's steps (batch norms folded into the convolutions) written out as an
// ONNX graph with Debian's libonnx (protobuf), for onnxruntime and the fusekishogi.com front end.
//
//   native format: input `planes` [N, 36, 9, 9] -> `policy` [N, 288] (the camp ranks, as
//                  InferenceNet's PolicyLabels step), `value` [N] (tanh: the mover's score)
//   site format:   inputs `input1` [N, 62, 9, 9] and `input2` [N, 59, 9, 9], concatenated on axis
//                  1 -> `output_policy` [N, 648] (the policy convolution flattened: the site's
//                  labels, not the 288 gathered inside fusekilab); with `value`, a second output
//                  `output_value` [N, 1] = 2 z, z the value head's pre-tanh output, so that
//                  sigmoid(output_value) = (tanh(z) + 1) / 2 is the mover's win probability.
//
// Opset 17, IR version 8 (onnx 1.12); N is a dynamic dimension. See docs/network.md.
#pragma once

#include <string>

#include "net/network.h"

namespace fuseki::net {

constexpr int kOnnxOpset = 17;

struct OnnxExportOptions {
  bool value = false;  // site format: also write `output_value` (native: always written)
};

// False when this build was configured without libonnx-dev: export_onnx then throws.
bool onnx_export_available();

// The network as a serialized ONNX ModelProto, checked with onnx's checker and shape
// inference. Throws CheckpointError (net/checkpoint.h) on failure.
std::string onnx_model_bytes(const PolicyValueNetImpl& net, const OnnxExportOptions& options = {});

// Writes onnx_model_bytes to `path` atomically (nothing under `path` on failure). Throws
// CheckpointError naming the file.
void export_onnx(const PolicyValueNetImpl& net, const std::string& path,
                 const OnnxExportOptions& options = {});

}  // namespace fuseki::net
