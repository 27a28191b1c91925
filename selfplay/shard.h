// Self-play shards: one HDF5 file per shard, columnar (one 1-D dataset per field, chunked and
// compressed), with a format version. Written once under a temporary name, then renamed, so a
// reader never sees a half-written shard. Schema: docs/formats.md.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/outcome.h"
#include "engine/placer.h"

namespace fuseki {

// 2 added the search targets (group "targets"); version-1 shards are read with none. 3 added the
// look-ahead's value of each target drop (targets/q, NaN where none); version 2's are read as NaN.
constexpr int SHARD_FORMAT_VERSION = 3;

// One placement decision: the mover chose `action` (policy index) among `legal` drops.
struct DecisionRow {
  int32_t game = 0;    // index into the shard's games
  int16_t ply = 0;     // plies played before this drop (0..39)
  int8_t mover = 0;    // 0 Sente, 1 Gote
  int16_t action = 0;  // policy index of the drop (net/encode.h)
  uint16_t move = 0;   // the drop as a rules Move
  int16_t legal = 0;   // number of legal drops
  float prob = 0;      // probability the behaviour policy gave the drop
  float value = 0;     // the network's value for the mover before the drop, in [-1, 1]
  std::vector<PolicyTarget> target;  // a searching placer's improved policy (engine/placer.h)
};

// One game: its seed, result and record.
struct GameRow {
  uint64_t seed = 0;
  int8_t rules = 0;              // RuleSet id
  Winner winner = Winner::None;  // stored as its code (engine/outcome.h): 0 Sente ... 4 none
  Reason reason = Reason::None;  // stored as its code
  int16_t play_moves = 0;        // moves of ordinary play after ply 40
  int8_t placer = -1;         // Balance: the side of the player who placed the kings; -1 otherwise
  int8_t chooser_takes = -1;  // Balance: the side the chooser took; -1 otherwise
  int16_t sente_king = -1;    // squares of the kings after placement
  int16_t gote_king = -1;
  uint8_t shapes = 0;     // bit 0: Sente stacked rook and both lances on one file; bit 1: Gote
  float sente_eval = -1;  // Sente's win probability from an engine search at move 41; -1: none
  std::string record;     // the game record (rules.md format)
};

struct Shard {
  std::map<std::string, std::string> attributes;  // run metadata (rules, seed, network, config)
  std::vector<GameRow> games;
  std::vector<DecisionRow> decisions;
};

struct ShardError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Writes `path.tmp`, then commits it as every output is (io/atomic_file.h: commit_file). Throws
// ShardError.
void write_shard(const std::string& path, const Shard& shard);
// Reads a shard; a missing, truncated, foreign or newer-version file throws ShardError naming it.
Shard read_shard(const std::string& path);

}  // namespace fuseki
