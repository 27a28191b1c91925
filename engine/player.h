// Players: what decides the moves of one side in ordinary play. The arbiter (Game) checks
// every decision, so a player's output is never trusted.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "engine/game.h"
#include "engine/search.h"
#include "rules/rng.h"

namespace fuseki {

// The play-out from move 41 of self-play, gating and the king-pair table unless a setting names
// another: the built-in searcher, 300 nodes a move, 20 cp of noise so games vary.
constexpr const char* kDefaultPlayout = "builtin:nodes=300:noise=20";

struct Decision {
  enum Kind { Play, Declare, Resign, Failure } kind = Play;
  std::string move;   // Play: the move in USI
  std::string error;  // Failure: what went wrong (crash, hang, garbage)
};

class Player {
 public:
  virtual ~Player() = default;
  virtual std::string name() const = 0;
  // Gets ready to play (an external engine starts); throws std::runtime_error if it cannot.
  virtual void prepare() {}
  virtual void new_game(uint64_t seed) = 0;
  virtual Decision decide(const Game& game) = 0;
  // The mover's evaluation of the game's position in centipawns (a mate: near +-MATE), from a
  // search with the player's budget: the move-41 score of self-play. nullopt when the player
  // has none (random) or its engine failed.
  virtual std::optional<int> evaluate(const Game& game) {
    (void)game;
    return std::nullopt;
  }
};

// Plays a uniformly random legal move.
class RandomPlayer : public Player {
 public:
  std::string name() const override { return "random"; }
  void new_game(uint64_t seed) override { rng_ = Rng(seed); }
  Decision decide(const Game& game) override;

 private:
  Rng rng_{0};
};

// The built-in searcher with a node, depth or time budget per move.
class BuiltinPlayer : public Player {
 public:
  BuiltinPlayer(SearchLimits limits, int noise) : limits_(limits), searcher_({noise, 0, 16}) {}
  std::string name() const override;
  void new_game(uint64_t seed) override;
  Decision decide(const Game& game) override;
  std::optional<int> evaluate(const Game& game) override;
  uint64_t nodes_searched() const { return nodes_; }

 private:
  SearchLimits limits_;
  Searcher searcher_;
  uint64_t nodes_ = 0;
};

}  // namespace fuseki
