// A trainable network started from an ONNX file (`network.init_from = FILE.onnx`): the file's
// weights mapped onto a PolicyValueNet of the same shape, where the shapes allow.
//
// The file's graph must be the residual network fusekilab trains (net/network.h), in either
// input format, with its batch norms folded or not:
//   stem     one or more convolutions reading the inputs (the site's input1 and input2, their
//            concatenation, or the native planes), summed: dlshogi-style stems of a 3x3 and 1x1
//            convolutions over input1 and a 1x1 over input2 become one 3x3 over both;
//   trunk    2 x blocks 3x3 convolutions, channels -> channels;
//   policy   one 1x1 convolution to 8 channels (with or without bias);
//   value    optional: a 1x1 convolution to 1 channel and two dense layers 81 -> channels -> 1.
// A file without a value head (the site's published nets) gets a freshly initialised one.
//
// Each folded convolution W x + b becomes the network's bias-free convolution and a batch norm
// whose running statistics are those of W x on real placement positions and whose scale and
// shift undo them: in evaluation mode the network computes the file's function exactly (to
// float rounding), and in training mode, where a batch's own statistics are used, nearly so.
// After mapping, the network is run beside the file on placement positions; logits (and values)
// that differ by more than 1e-3 mean the graph is not this architecture: CheckpointError.
#pragma once

#include <cstdint>
#include <string>

#include "net/network.h"

namespace fuseki::net {

struct OnnxInit {
  PolicyValueNet net{nullptr};                   // on the CPU, in training mode
  bool value_from_file = false;                  // false: the value head is freshly initialised
  float max_logit_diff = 0, max_value_diff = 0;  // against the file, on the check positions
  std::string summary() const;                   // one line for the user
};

// Throws CheckpointError naming the file and the layer that does not fit.
OnnxInit network_from_onnx(const std::string& path, uint64_t seed);

}  // namespace fuseki::net
