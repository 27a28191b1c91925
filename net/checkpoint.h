// Checkpoints (network, Adam state, counters, RNG state) and the TorchScript export.
//
// A checkpoint is a torch archive (zip) holding: a fusekilab tag, the format version, the
// architecture, the weights, the optimizer state, the step counters, the RNG words and an
// FNV-1a 64 content hash over all of them, checked on load. See docs/network.md.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/network.h"

namespace fuseki::net {

// 3: an architecture record (kind, sizes, input format, policy labels; NetConfig), checked on
// load. 2: the optimizer state in parameter order, so identical training gives identical files
// (still read: its architecture is the one format 3 calls resnet / planes-36 / drops-8x36).
// 1 held LibTorch's own Adam archive, keyed by memory addresses; no longer read.
constexpr int kCheckpointFormatVersion = 3;

// The architecture record of format 3, as JSON text.
std::string architecture_record(const NetConfig& config);

// Every failure to read or write a checkpoint; the message names the file and what is wrong.
struct CheckpointError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TrainingState {
  uint64_t train_step = 0;
  uint64_t generation = 0;
  std::vector<uint64_t> rng_state;  // any number of words (e.g. the trainer's generators)

  bool operator==(const TrainingState&) const = default;
};

// Writes `path` atomically: `path.tmp` is written and synced, then renamed over `path`.
// `optimizer` may be null (a checkpoint for inference only).
void save_checkpoint(const std::string& path, const PolicyValueNetImpl& net,
                     const torch::optim::Adam* optimizer, const TrainingState& state);

struct Checkpoint {
  NetConfig config;
  PolicyValueNet net{nullptr};  // on the requested device, in training mode
  TrainingState state;
  uint64_t content_hash = 0;

  bool has_optimizer() const { return !optimizer_state.empty(); }
  // Puts the saved Adam state into `optimizer`, which must be built over this->net's
  // parameters: moments, step counts and the saved options (lr, betas, eps, weight decay,
  // amsgrad; set new ones afterwards to change them). Throws CheckpointError when the file has
  // no optimizer state or it does not fit.
  void restore_optimizer(torch::optim::Adam& optimizer) const;

  std::string path;
  std::string optimizer_state;  // the optimizer's state archive, as bytes
};

// Reads and checks a checkpoint; any wrong, truncated, damaged or foreign file throws
// CheckpointError.
Checkpoint load_checkpoint(const std::string& path, torch::Device device = torch::kCPU);

// Writes a TorchScript module (torch::jit::load, Python torch.jit.load) whose
// forward(x: Tensor) -> Tuple[Tensor, Tensor] returns the same policy logits [N, 288] and value
// [N] as net->forward(x) in eval mode. Written atomically like a checkpoint; throws
// CheckpointError on failure.
void export_torchscript(const PolicyValueNetImpl& net, const std::string& path);

// FNV-1a 64, the content hash of checkpoints.
uint64_t fnv1a64(const void* data, size_t size, uint64_t hash = 0xcbf29ce484222325ull);
// FNV-1a 64 of a file's bytes, 16 hex digits: a publication's hash of its checkpoint, and what
// tells a journal's network from another at the same path. Throws std::runtime_error naming the
// file where it cannot be read.
std::string file_hash(const std::string& path);

}  // namespace fuseki::net
