#include "selfplay/rollout_placer.h"

#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "engine/match.h"
#include "engine/outcome.h"
#include "io/stop.h"
#include "net/encode.h"
#include "net/sample.h"
#include "selfplay/gumbel_placer.h"

namespace fuseki {

RolloutPlacer::RolloutPlacer(net::Evaluator& network, RolloutOptions options, RuleSet rules,
                             Placer* early)
    : network_(network),
      options_(std::move(options)),
      early_(early),
      own_(network, options_.own_temperature),
      opponent_(network, options_.opponent_temperature) {
  if (options_.k < 1 || options_.rollouts < 1 || options_.nodes < 1 || options_.threads < 1 ||
      !(options_.scale > 0))
    throw std::invalid_argument(
        "rollout placer: k, rollouts, nodes, threads and scale must be > 0");
  if (options_.from_ply < 0 || (options_.from_ply > 0 && !early_))
    throw std::invalid_argument(
        "rollout placer: from_ply must be >= 0, and > 0 only with a placer for the earlier plies");
  std::string spec = options_.engine + ":nodes=" + std::to_string(options_.nodes);
  for (int t = 0; t < options_.threads; ++t) {
    judges_.push_back(make_player(spec, default_engines(), rules));
    judges_.back()->prepare();
  }
}

RolloutPlacer::~RolloutPlacer() = default;

PassCount RolloutPlacer::passes() const {
  PassCount own = own_.passes(), opp = opponent_.passes();
  PassCount early = early_ ? early_->passes() : PassCount{};
  return {count_.passes + own.passes + opp.passes + early.passes,
          count_.positions + own.positions + opp.positions + early.positions};
}

std::vector<double> RolloutPlacer::values(std::vector<Game>& completed,
                                          const std::vector<Color>& mover) {
  std::vector<double> value(completed.size(), 0.5);
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> decided{0};
  auto work = [&](size_t t) {
    Player& judge = *judges_[t];
    for (size_t g; !stop_requested() && (g = next++) < completed.size();) {
      const Game& game = completed[g];
      if (game.over()) {  // the move-41 ruling decided it
        value[g] = score_of(game.winner(), mover[g]);
        ++decided;
        continue;
      }
      judge.new_game(Rng::derive(g, 41));
      std::optional<int> cp = judge.evaluate(game);
      if (!cp) throw std::runtime_error("rollout placer: the engine gave no evaluation");
      double to_move = 1 / (1 + std::exp(-*cp / options_.scale));
      value[g] = game.position().side_to_move() == mover[g] ? to_move : 1 - to_move;
    }
  };
  std::exception_ptr failed;
  std::mutex failing;
  auto guarded = [&](size_t t) {
    try {
      work(t);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failing);
      if (!failed) failed = std::current_exception();
      next = completed.size();
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < judges_.size(); ++t) pool.emplace_back(guarded, t);
  guarded(0);
  for (auto& t : pool) t.join();
  if (failed) std::rethrow_exception(failed);
  throw_if_stopped();
  decided_ += decided;
  return value;
}

void RolloutPlacer::place(std::span<PlacementRequest> requests) {
  if (options_.from_ply <= 0) return look_ahead(requests);
  std::vector<PlacementRequest> part[2];  // before from_ply, from it on
  std::vector<size_t> index[2];
  for (size_t i = 0; i < requests.size(); ++i) {
    int late = requests[i].position->ply() >= options_.from_ply;
    part[late].push_back(requests[i]);
    index[late].push_back(i);
  }
  if (!part[0].empty()) early_->place(part[0]);
  if (!part[1].empty()) look_ahead(part[1]);
  for (int late = 0; late < 2; ++late)
    for (size_t j = 0; j < part[late].size(); ++j) requests[index[late][j]] = part[late][j];
}

void RolloutPlacer::look_ahead(std::span<PlacementRequest> requests) {
  if (requests.empty()) return;
  std::vector<const Position*> batch;
  for (const PlacementRequest& r : requests) {
    if (r.position->info().balance_kings && r.position->ply() < 2)
      throw std::logic_error("rollout placer: Balance's kings are not its to place");
    batch.push_back(r.position);
  }
  std::vector<net::Evaluation> prior = counted_pass(network_, batch, count_);

  // Each request's candidates, each followed by R completions; the j-th completion of every
  // candidate of a request draws from the same stream.
  std::vector<GumbelDraw> draws(requests.size());
  std::vector<size_t> first(requests.size());  // the request's first completion
  std::vector<Game> completed;
  std::vector<Rng> streams;
  std::vector<Color> mover;
  for (size_t i = 0; i < requests.size(); ++i) {
    const PlacementRequest& r = requests[i];
    draws[i] = gumbel_top_k(*r.position, prior[i].policy, *r.rng, options_.k, options_.noise);
    uint64_t base = r.rng->next();
    first[i] = completed.size();
    for (int j : draws[i].chosen) {
      Game after(*r.position);
      after.play(net::policy_move(*r.position, draws[i].legal[size_t(j)]));
      for (int c = 0; c < options_.rollouts; ++c) {
        completed.push_back(after);
        streams.emplace_back(Rng::derive(base, uint64_t(c)));
        mover.push_back(r.position->side_to_move());
      }
    }
  }
  Placer* opponent = options_.uniform_opponent ? static_cast<Placer*>(&uniform_) : &opponent_;
  const Placers black_moves{nullptr, nullptr, {&own_, opponent}};
  const Placers white_moves{nullptr, nullptr, {opponent, &own_}};
  std::vector<PlacingGame> placing;
  for (size_t g = 0; g < completed.size(); ++g)
    placing.push_back(
        {&completed[g], &streams[g], mover[g] == BLACK ? &black_moves : &white_moves});
  place_games(placing, black_moves);
  completions_ += completed.size();
  std::vector<double> value = values(completed, mover);

  for (size_t i = 0; i < requests.size(); ++i) {
    PlacementRequest& r = requests[i];
    const GumbelDraw& d = draws[i];
    std::vector<double> q(d.legal.size());
    size_t at = first[i];
    for (int j : d.chosen) {
      double sum = 0;
      for (int c = 0; c < options_.rollouts; ++c) sum += value[at++];
      q[size_t(j)] = 2 * sum / options_.rollouts - 1;  // the mover's, in [-1, 1]
    }
    // The drops not tried: v_mix, not the value head's value, which is on another scale than
    // the completions' (it gave them 30 % of the target at plies 32-35 in docs/benchmarks.md's
    // "Completing the look-ahead's targets").
    double untried =
        mixed_value(prior[i].value, d.logp.data(), q.data(), d.chosen.data(), d.chosen.size());
    std::vector<bool> tried(d.legal.size(), false);
    for (int j : d.chosen) tried[size_t(j)] = true;
    for (size_t j = 0; j < q.size(); ++j)
      if (!tried[j]) q[j] = untried;
    int best = -1;
    r.decision = gumbel_decision(d, q, prior[i], options_.c_visit, options_.c_scale, best);
    // Each candidate's own measured value beside its target (the candidates, in order): what the
    // value head can be trained toward (train.q_weight).
    for (size_t t = 0; t < d.chosen.size(); ++t)
      r.decision->target[t].q = float(q[size_t(d.chosen[t])]);
    if (!options_.play_policy) {
      r.move = net::policy_move(*r.position, r.decision->action);
      continue;
    }
    // The network's own drop; the target stays the look-ahead's.
    r.move =
        net::sample_drop(*r.position, prior[i].policy.data(), options_.own_temperature, *r.rng);
    int action = net::policy_index(*r.position, r.move);
    r.decision->action = int16_t(action);
    r.decision->prob = prior[i].policy[size_t(action)];
  }
}

}  // namespace fuseki
