#include "train/window.h"

#include <algorithm>
#include <cmath>
#include <deque>

#include "rules/record.h"
#include "selfplay/search_target.h"

namespace fuseki {

float decision_reward(const GameRow& game, const DecisionRow& d, RewardMode mode, double mix) {
  int side = d.mover;
  if (game.placer >= 0 && d.ply < 2) side = game.placer;
  // +1 for a win of the side that decided, 0 for a draw, -1 for a loss.
  double result = 2 * score_of(game.winner, side == 0 ? BLACK : WHITE) - 1;
  double p = side == 0 ? game.sente_eval : 1.0 - game.sente_eval;
  double eval = 2 * p - 1;
  switch (mode) {
    case RewardMode::Eval:
      return float(eval);
    case RewardMode::Mix:
      return float(mix * eval + (1 - mix) * result);
    case RewardMode::Result:
      break;
  }
  return float(result);
}

bool TrainingWindow::usable(const GameRow& game) const {
  bool has_result = scored(game.winner), has_eval = game.sente_eval >= 0;
  switch (mode_) {
    case RewardMode::Eval:
      return has_eval;
    case RewardMode::Mix:
      return has_result && has_eval;
    case RewardMode::Result:
      break;
  }
  return has_result;
}

void TrainingWindow::load(const std::vector<std::string>& shards, int max_games) {
  games_.clear();
  decisions_.clear();
  // Walk the shards from the newest, keeping whole games until the window is full.
  struct Kept {
    GameRow row;
    std::vector<DecisionRow> decisions;
  };
  std::deque<Kept> kept;
  for (auto it = shards.rbegin(); it != shards.rend() && int(kept.size()) < max_games; ++it) {
    Shard s = read_shard(*it);
    std::vector<std::vector<DecisionRow>> by_game(s.games.size());
    for (const DecisionRow& d : s.decisions) by_game[size_t(d.game)].push_back(d);
    for (size_t g = s.games.size(); g-- > 0 && int(kept.size()) < max_games;) {
      if (!usable(s.games[g])) continue;  // void, or missing what the reward needs
      kept.push_front({s.games[g], std::move(by_game[g])});
    }
  }
  for (Kept& k : kept) add(k.row, k.decisions);
}

void TrainingWindow::add(const GameRow& game, const std::vector<DecisionRow>& decisions) {
  if (!usable(game)) return;
  WindowGame wg;
  wg.rules = RuleSet(game.rules);
  Position pos = Position::start(wg.rules);
  Record rec;
  try {
    rec = play_record(pos, game.record);
  } catch (const RulesError& e) {
    throw ShardError(std::string("self-play record does not replay: ") + e.what());
  }
  for (Move m : rec.moves) {
    if (int(wg.moves.size()) >= PLACEMENT_PLIES) break;
    wg.moves.push_back(m);
  }
  for (const DecisionRow& d : decisions)
    if (targets_ && d.target.empty())
      throw ShardError("game seed " + std::to_string(game.seed) + ", ply " + std::to_string(d.ply) +
                       ": a decision without a search target (placed by the policy, not a "
                       "search): train.target = \"search\" needs selfplay.placer = \"gumbel\"");
    else
      for (const PolicyTarget& t : d.target)
        if (t.action < 0 || t.action >= net::kPolicySize)
          throw ShardError("game seed " + std::to_string(game.seed) + ": search target action " +
                           std::to_string(t.action) + " is no policy index");
  uint32_t gi = uint32_t(games_.size());
  games_.push_back(std::move(wg));
  for (const DecisionRow& d : decisions) {
    WindowDecision w{gi, d.ply, d.action, decision_reward(game, d, mode_, mix_)};
    if (targets_) {
      w.target_first = uint32_t(target_pool_.size());
      w.target_count = uint16_t(d.target.size());
      target_pool_.insert(target_pool_.end(), d.target.begin(), d.target.end());
    }
    decisions_.push_back(w);
  }
}

void TrainingWindow::add_q_child(const WindowDecision& d, const Position& pos, Rng& rng,
                                 TrainBatch& b) const {
  // Balance's kings: the second's value is the placer's -|v| (drop_value), which no target
  // inverts; a child the move-41 ruling decides is valued by the ruling, not the head.
  if (pos.info().balance_kings && pos.ply() < 2) return;
  std::vector<const PolicyTarget*> measured;
  for (uint32_t e = d.target_first; e < d.target_first + d.target_count; ++e)
    if (std::isfinite(target_pool_[e].q)) measured.push_back(&target_pool_[e]);
  if (measured.empty()) return;
  const PolicyTarget& t = *measured[rng.below(uint32_t(measured.size()))];
  Position child = pos;
  child.do_move(net::policy_move(pos, t.action));
  if (ruling41_decided(child)) return;
  b.q_children.add(child);
  b.q_targets.push_back(child.side_to_move() == pos.side_to_move() ? t.q : -t.q);
}

Position TrainingWindow::position(const WindowDecision& d) const {
  const WindowGame& g = games_[d.game];
  Position pos = Position::start(g.rules);
  for (int i = 0; i < d.ply; ++i) pos.do_move(g.moves[size_t(i)]);
  return pos;
}

TrainBatch TrainingWindow::sample(int batch_size, Rng& rng, bool site, bool children,
                                  bool q_children) const {
  TrainBatch b;
  b.inputs.site = site;
  b.inputs.reserve(batch_size);
  b.children.site = site;
  b.q_children.site = site;
  for (int i = 0; i < batch_size; ++i) {
    const WindowDecision& d = decisions_[rng.below(uint32_t(decisions_.size()))];
    Position pos = position(d);
    b.inputs.add(pos);
    b.actions.push_back(d.action);
    b.rewards.push_back(d.reward);
    if (!targets_) continue;
    size_t row = b.targets.size();
    b.targets.resize(row + net::kPolicySize, 0.0f);
    b.visited.resize(row + net::kPolicySize, 0);
    double sum = 0;
    for (uint32_t e = d.target_first; e < d.target_first + d.target_count; ++e) {
      const PolicyTarget& t = target_pool_[e];
      b.targets[row + size_t(t.action)] = t.prob;
      b.visited[row + size_t(t.action)] = 1;
      sum += t.prob;
      if (!children) continue;
      Position child = pos;
      child.do_move(net::policy_move(pos, t.action));
      b.children.add(child);
      b.child_positions.push_back(std::move(child));
      b.child_sample.push_back(uint32_t(i));
      b.child_action.push_back(t.action);
    }
    if (q_children) add_q_child(d, pos, rng, b);
    if (children) b.positions.push_back(std::move(pos));
    bool all = d.target_count >= b.inputs.legal_counts.back();
    b.rest.push_back(all ? 0.0f : float(std::max(0.0, 1.0 - sum)));
  }
  return b;
}

void mirror_samples(TrainBatch& b, Rng& rng) {
  const int n = b.inputs.size(), planes = b.inputs.input_planes();
  const bool targets = b.targets.size() == size_t(n) * net::kPolicySize;
  const size_t stride = size_t(planes) * net::kPlaneSize;
  auto permute = [](auto* row) {
    for (int a = 0; a < net::kPolicySize; ++a)
      if (const int m = net::mirror_policy_index(a); m > a) std::swap(row[a], row[m]);
  };
  for (int i = 0; i < n; ++i) {
    if (rng.below(2) == 0) continue;
    const size_t row = size_t(i) * net::kPolicySize;
    net::mirror_planes(b.inputs.planes.data() + size_t(i) * stride, planes, b.inputs.site);
    permute(b.inputs.masks.data() + row);
    b.actions[size_t(i)] = net::mirror_policy_index(int(b.actions[size_t(i)]));
    if (targets) {
      permute(b.targets.data() + row);
      permute(b.visited.data() + row);
    }
  }
}

}  // namespace fuseki
