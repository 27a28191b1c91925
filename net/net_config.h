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
// The fusekishogi.com front end's format (net/site_features.h): input1 [62] and input2 [59]
// planes, 648 labels (8 slots x 81 squares); inside fusekilab its camp labels are gathered
// into the native 288 order, so everything past the network is the same.
constexpr const char* kSiteInputFormat = "site-62+59";
constexpr const char* kSitePolicyLabels = "site-8x81";

struct NetConfig {
  int channels = 32;  // width of the residual trunk
  int blocks = 4;     // residual blocks in the trunk
  std::string kind = kNetKind;
  std::string input_format = kInputFormat;
  std::string policy = kPolicyLabels;
  // The value head: a 1x1 convolution to value_channels planes, then two dense layers through
  // value_hidden units (0: as many as the trunk has channels) to one tanh output. The default
  // (1, 0) is AlphaZero's head and every network made before these two fields existed.
  int value_channels = 1;
  int value_hidden = 0;

  bool operator==(const NetConfig&) const = default;
  bool site() const { return input_format == kSiteInputFormat; }
  int value_width() const { return value_hidden > 0 ? value_hidden : channels; }
  bool default_value_head() const { return value_channels == 1 && value_hidden == 0; }
};

// The formats by name: "native" (planes-36, drops-8x36) or "site" (site-62+59, site-8x81).
inline NetConfig with_format(NetConfig c, const std::string& format) {
  const bool site = format == "site";
  c.input_format = site ? kSiteInputFormat : kInputFormat;
  c.policy = site ? kSitePolicyLabels : kPolicyLabels;
  return c;
}
inline std::string format_name(const NetConfig& c) { return c.site() ? "site" : "native"; }

// The accepted ranges: channels 1..1024, blocks 0..64, value_channels 1..64, value_hidden 0..1024.
constexpr int kMaxChannels = 1024;
constexpr int kMaxBlocks = 64;
constexpr int kMaxValueChannels = 64;
inline bool valid(const NetConfig& c) {
  const bool native = c.input_format == kInputFormat && c.policy == kPolicyLabels;
  const bool site = c.input_format == kSiteInputFormat && c.policy == kSitePolicyLabels;
  return c.channels >= 1 && c.channels <= kMaxChannels && c.blocks >= 0 && c.blocks <= kMaxBlocks &&
         c.value_channels >= 1 && c.value_channels <= kMaxValueChannels && c.value_hidden >= 0 &&
         c.value_hidden <= kMaxChannels && c.kind == kNetKind && (native || site);
}
inline std::string describe(const NetConfig& c) {
  return std::to_string(c.channels) + " channels x " + std::to_string(c.blocks) + " blocks" +
         (c.default_value_head() ? ""
                                 : ", value head " + std::to_string(c.value_channels) + " x " +
                                       std::to_string(c.value_width())) +
         (c.site() ? ", site format" : "");
}

}  // namespace fuseki::net
