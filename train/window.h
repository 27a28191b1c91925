// The training window: the decisions of the most recent self-play games, with their rewards.
// Positions are not stored: a sample replays its game's record to the decision's ply (cheap with
// the rules engine) and encodes it, so a window of many thousands of games fits in memory.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "net/encode.h"
#include "rules/rng.h"
#include "selfplay/shard.h"

namespace fuseki {

struct WindowDecision {
  uint32_t game;  // index into the window's games
  int16_t ply;
  int16_t action;
  float reward;               // the deciding player's result: +1 win, -1 loss, 0 draw
  uint32_t target_first = 0;  // the search target: entries of the window's target pool
  uint16_t target_count = 0;
};

struct WindowGame {
  RuleSet rules;
  std::vector<Move> moves;  // the placement drops
};

// What a decision is rewarded with: the game's result, the engine's evaluation at move 41
// (2p - 1 for the deciding side's win probability p), or a mix: mix * eval + (1 - mix) * result.
enum class RewardMode { Result, Eval, Mix };

struct TrainBatch {
  net::EncodedBatch inputs;
  std::vector<int64_t> actions;
  std::vector<float> rewards;
  // Search targets (a window that keeps them), size() * kPolicySize each: the improved policy's
  // probability of each evaluated drop, and 1 where a drop was evaluated; `rest` is the mass
  // of the legal drops that were not (0 when every one was).
  std::vector<float> targets;
  std::vector<uint8_t> visited;
  std::vector<float> rest;
  // For reanalysis (sample with `children`): each sample's position, and the positions after the
  // drops its search evaluated, encoded for one forward pass; child c is sample child_sample[c]'s
  // drop child_action[c].
  std::vector<Position> positions;
  std::vector<Position> child_positions;
  net::EncodedBatch children;
  std::vector<uint32_t> child_sample;
  std::vector<int16_t> child_action;
  // For the value head's regression on the look-ahead's values (sample with `q_children`): per
  // sample whose target has measured values (PolicyTarget::q), one of those drops drawn
  // uniformly, its child encoded, and the value its side to move has there (the q of the
  // mover, negated where the other side moves next).
  net::EncodedBatch q_children;
  std::vector<float> q_targets;
};

// Mirrors each sample of the batch left to right with probability 1/2 (net/encode.h): its
// planes, legal drops, the drop played and its search target; its reward and `rest` are the
// mirror's too. The positions and children kept for reanalysis are left as they are: mirror
// after reanalysing.
void mirror_samples(TrainBatch& b, Rng& rng);

class TrainingWindow {
 public:
  // With `targets`, every decision must carry a search target (train.target = search).
  explicit TrainingWindow(RewardMode mode = RewardMode::Result, double mix = 0.5,
                          bool targets = false)
      : mode_(mode), mix_(mix), targets_(targets) {}
  // Reads the shards (oldest first) and keeps the decisions of the newest `max_games` games that
  // were not void. Throws ShardError on a bad shard, or on a decision without the search target
  // the window needs.
  void load(const std::vector<std::string>& shards, int max_games);
  // Adds one game (its placement decisions) at the new end of the window. Throws ShardError as
  // load() does.
  void add(const GameRow& game, const std::vector<DecisionRow>& decisions);
  size_t decisions() const { return decisions_.size(); }
  size_t games() const { return games_.size(); }
  // Uniform sample with replacement.
  // site: the positions encoded with the site's features (a site-format network).
  // children (a window with search targets): also the positions after each evaluated drop, for
  // the trainer to recompute the targets with its own network (TrainOptions::reanalyse).
  // q_children: also one child a sample with its measured value (TrainBatch::q_children).
  TrainBatch sample(int batch_size, Rng& rng, bool site = false, bool children = false,
                    bool q_children = false) const;
  // The decision's position (the game replayed to its ply).
  Position position(const WindowDecision& d) const;
  const std::vector<WindowDecision>& all() const { return decisions_; }
  // The decision's search target (empty without targets).
  std::span<const PolicyTarget> target(const WindowDecision& d) const {
    return {target_pool_.data() + d.target_first, d.target_count};
  }

 private:
  bool usable(const GameRow& game) const;
  void add_q_child(const WindowDecision& d, const Position& pos, Rng& rng, TrainBatch& b) const;
  RewardMode mode_;
  double mix_;
  bool targets_;
  std::vector<PolicyTarget> target_pool_;
  std::vector<WindowGame> games_;
  std::vector<WindowDecision> decisions_;
};

// The reward of a decision from the deciding player's side. In Balance Shogi the kings (plies
// 1-2) are the placer's decisions, whichever side they are dropped for.
float decision_reward(const GameRow& game, const DecisionRow& d,
                      RewardMode mode = RewardMode::Result, double mix = 0.5);

}  // namespace fuseki
