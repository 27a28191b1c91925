// The network's architecture, without LibTorch: self-play and config code can name it cheaply.
#pragma once

#include <string>

namespace fuseki::net {

// What a network is, reads and predicts, by name: recorded in every checkpoint and checked when
// one is loaded, so a network made for other inputs or labels fails with a clear error, not with
// a shape error deep inside. A new input encoding or label space gets a new name.
constexpr const char* kNetKind = "resnet";         // residual trunk, policy and value heads
constexpr const char* kInputFormat = "planes-36";  // net/encode.h: 36 planes of 9 x 9, mover's view
constexpr const char* kPolicyLabels = "drops-8x36";  // net/encode.h: 8 kinds x 36 own-camp squares

struct NetConfig {
  int channels = 32;  // width of the residual trunk
  int blocks = 4;     // residual blocks in the trunk
  std::string kind = kNetKind;
  std::string input_format = kInputFormat;
  std::string policy = kPolicyLabels;

  bool operator==(const NetConfig&) const = default;
};

// The accepted ranges: channels 1..1024, blocks 0..64.
constexpr int kMaxChannels = 1024;
constexpr int kMaxBlocks = 64;
inline bool valid(const NetConfig& c) {
  return c.channels >= 1 && c.channels <= kMaxChannels && c.blocks >= 0 && c.blocks <= kMaxBlocks;
}
inline std::string describe(const NetConfig& c) {
  return std::to_string(c.channels) + " channels x " + std::to_string(c.blocks) + " blocks";
}

}  // namespace fuseki::net
