// Self-play: placement games placed by a policy network, many at once (one forward pass per
// ply for all of them, the lc0 "multigame" pattern), then played out after ply 40 by the
// arbiter on a pool of threads. Who places is the placement seam's (engine/placer.h): a network,
// uniform drops, the king-pair table.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine_pool.h"
#include "engine/game.h"
#include "engine/placer.h"
#include "engine/search.h"
#include "net/evaluator.h"
#include "selfplay/gumbel_placer.h"
#include "selfplay/journal.h"
#include "selfplay/king_table.h"
#include "selfplay/rollout_placer.h"

namespace fuseki {

// Where Balance Shogi's kings (plies 1-2) and the side choice come from.
enum class KingSource { Uniform, Table, Network };
std::optional<KingSource> parse_king_source(const std::string& name);
const char* king_source_name(KingSource k);

struct SelfPlayOptions {
  RuleSet rules = RuleSet::Balance;
  uint64_t seed = 1;         // the run seed
  int worker = 0;            // game seeds derive from (seed, worker, game index)
  int batch = 64;            // games stepped together
  double temperature = 1.0;  // the network placers' (self-play's, a match's)
  // Self-play's drops by a Gumbel search with the value head (the temperature then unused);
  // unset: sampled from the policy.
  std::optional<GumbelOptions> search;
  // Self-play's drops by a search over completed placements valued by an engine at move 41
  // (selfplay/rollout_placer.h; the kings then not the network's). Its threads: playout_threads.
  std::optional<RolloutOptions> rollout;
  // Self-play with its own network: this share of the games has a uniform placer on one side
  // (its colour drawn per game from the game seed), so the network also learns positions against
  // an opponent that does not play like itself. Only the network's drops are trained on.
  double uniform_share = 0;
  // Balance's kings and side choice in self-play (a match's kings never come from a network).
  KingSource kings = KingSource::Uniform;
  const KingPairTable* table = nullptr;  // for KingSource::Table
  int king_band = kKingBand;             // the placer draws among this many pairs closest to even
  std::string playout = kDefaultPlayout;
  int playout_threads = 1;
  int max_moves = 320;
  // An engine search of this many nodes at move 41 gives each game Sente's win probability,
  // 1 / (1 + exp(-(eval_bias + cp / eval_scale))): a lower-variance training signal than the
  // result. 0: none. The engine: any player spec without a budget (builtin, fairy-stockfish,
  // usi:PATH); each game's evaluation starts from a fresh engine state (new_game with its seed),
  // so it does not depend on which thread evaluated what before.
  uint64_t eval_nodes = 0;
  std::string eval_engine = "builtin";
  double eval_scale = 600;
  double eval_bias = 0;
  bool play_out = true;  // false: no play-out (the games then carry the evaluation alone)
  // When set, replaces the play-out: the result of each placed game (tests and experiments).
  std::function<Winner(const Position& placed)> judge;
};

// Counters for progress reports.
struct SelfPlayStats {
  uint64_t games = 0;
  uint64_t decisions = 0;
  uint64_t forward_passes = 0;
  uint64_t batch_positions = 0;  // positions evaluated, summed over forward passes
};

// Balance's kings and side choice without a network: from the table's band (kings = Table, a
// table given), else uniform.
struct KingPlacers {
  std::unique_ptr<Placer> kings;
  std::unique_ptr<Chooser> chooser;
};
KingPlacers table_or_uniform_kings(const SelfPlayOptions& options);

class SelfPlayGenerator {
 public:
  // Self-play: the network places both sides' drops (searching when options.search is set), and
  // the kings and the side choice as options.kings says.
  SelfPlayGenerator(net::Evaluator& network, SelfPlayOptions options);
  // Any placers (a match, uniform or table games); they outlive the generator.
  SelfPlayGenerator(const Placers& placers, SelfPlayOptions options);
  ~SelfPlayGenerator();
  // Plays games [first, first + count) and hands each finished game to `sink` in index order.
  void play(uint64_t first, uint64_t count, const std::function<void(PlayedGame&&)>& sink);

  // Games given one by one: their index, seed and, where set, their kings (the king-pair table
  // plays given pairs; the side choice is left out of such records).
  struct GameSpec {
    uint64_t index = 0;
    uint64_t seed = 0;
    Square sente_king = SQ_NONE, gote_king = SQ_NONE;
  };
  void play(const std::vector<GameSpec>& games, const std::function<void(PlayedGame&&)>& sink);
  const SelfPlayStats& stats() const { return stats_; }

 private:
  struct Slot;
  void place_batch(std::vector<Slot>& slots);
  void play_out_batch(std::vector<Slot>& slots);
  void evaluate_batch(std::vector<Slot>& slots);

  SelfPlayOptions options_;
  Placers placers_;
  // What the self-play constructor made; empty when the placers are the caller's.
  std::unique_ptr<Placer> own_network_;
  std::unique_ptr<Placer> own_early_;  // the rollout placer's before its from_ply
  KingPlacers own_kings_;
  // options_.uniform_share's games: the network as Sente against a uniform Gote, and the other
  // way round.
  std::unique_ptr<Placer> own_uniform_;
  Placers against_uniform_[2];
  // Kept across batches: play-out and move-41 engines start once.
  EnginePool playout_;
  std::vector<std::unique_ptr<Player>> evaluators_;
  SelfPlayStats stats_;
};

// Bit 0: Sente has its rook and both lances on one file (the "triple rocket"); bit 1: Gote.
uint8_t shape_flags(const Position& pos);

}  // namespace fuseki
