// The network's architecture, without LibTorch: self-play and config code can name it cheaply.
#pragma once

#include <string>

namespace fuseki::net {

struct NetConfig {
  int channels = 32;  // width of the residual trunk
  int blocks = 4;     // residual blocks in the trunk

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
