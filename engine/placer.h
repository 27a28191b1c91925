// The placement seam: what chooses the drops of plies 1-40 (and Balance's side choice), batch
// first so a network, or a search, sees every game of a step at once. No LibTorch here: the
// uniform placer lives beside the arbiter, the network and table placers in selfplay/.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/game.h"
#include "rules/rng.h"

namespace fuseki {

// One entry of a search's improved policy: a drop it evaluated and the probability it gives it.
struct PolicyTarget {
  int16_t action = 0;  // policy index (net/encode.h)
  float prob = 0;
  // The drop's value for its mover in [-1, 1] where a look-ahead measured it outside the network
  // (the rollout placer: its completions' mean at move 41); NaN where the value head gave it.
  float q = std::numeric_limits<float>::quiet_NaN();
};

// The training row of a drop chosen by a policy (uniform drops have none).
struct PlacementDecision {
  int16_t action = 0;  // policy index of the drop (net/encode.h)
  int16_t legal = 0;   // number of legal drops
  float prob = 0;      // probability the placer's policy gave the drop
  float value = 0;     // the placer's value for the mover before the drop, in [-1, 1]
  // A searching placer's improved policy over the drops it evaluated; the mass they leave
  // (1 - sum) belongs to the other legal drops. Empty for a plain policy.
  std::vector<PolicyTarget> target;
};

// One game's turn to drop: its side to move drops, drawing from the game's placement stream.
struct PlacementRequest {
  const Position* position = nullptr;
  Rng* rng = nullptr;
  Move move = MOVE_NONE;                      // the placer's answer
  std::optional<PlacementDecision> decision;  // its training row, where it has one
};

// Balance's side choice after the two kings: the chooser answers the side it takes.
struct ChoiceRequest {
  const Position* position = nullptr;
  Rng* rng = nullptr;
  Color takes = BLACK;
};

// Forward passes made and the positions they held (progress reports count them).
struct PassCount {
  uint64_t passes = 0, positions = 0;
};

class Placer {
 public:
  virtual ~Placer() = default;
  virtual std::string name() const = 0;
  // Sets each request's move (a legal drop) and, for a learning placer, its decision.
  virtual void place(std::span<PlacementRequest> requests) = 0;
  virtual PassCount passes() const { return {}; }
};

class Chooser {
 public:
  virtual ~Chooser() = default;
  virtual std::string name() const = 0;
  virtual void choose(std::span<ChoiceRequest> requests) = 0;
  virtual PassCount passes() const { return {}; }
};

// Uniform among the legal drops.
class UniformPlacer : public Placer {
 public:
  std::string name() const override { return "uniform"; }
  void place(std::span<PlacementRequest> requests) override;
};

// Either side with probability 1/2.
class UniformChooser : public Chooser {
 public:
  std::string name() const override { return "uniform"; }
  void choose(std::span<ChoiceRequest> requests) override;
};

// Who places what. kings and chooser may be null where no game places Balance kings (other
// rule sets, or kings given before placement).
struct Placers {
  Placer* kings = nullptr;      // Balance plies 1-2: Sente's king, then Gote's
  Chooser* chooser = nullptr;   // Balance: the side choice, right after the kings placer's
  Placer* side[COLOR_NB] = {};  // every other drop, by the mover
};

// A game to place and the stream its placers draw from.
struct PlacingGame {
  Game* game = nullptr;
  Rng* rng = nullptr;
  const Placers* placers = nullptr;  // this game's, where not place_games' own
};

// The stream a game's placers draw from, from the game seed. `play` uses self-play's (whose
// games stay as they were), so uniform placers place a game seed's game identically in both.
inline Rng placement_rng(uint64_t game_seed) { return Rng(Rng::derive(game_seed, 10)); }

// Called before each drop that carries a decision: the game's index, the position before the
// drop, the drop and its row.
using DecisionSink = std::function<void(size_t game, const Position& before, Move drop,
                                        const PlacementDecision& decision)>;

// Completes the placement of every game, stepping them together: each step asks each placer
// once for all the games it places now, so one network placing for both sides makes one forward
// pass per ply. Throws std::invalid_argument when a game needs a placer that is not given.
void place_games(std::span<const PlacingGame> games, const Placers& placers,
                 const DecisionSink& on_decision = {});

// The passes of every distinct placer and chooser of `placers`, summed.
PassCount passes_of(const Placers& placers);

}  // namespace fuseki
