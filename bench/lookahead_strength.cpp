// What a placer that looks ahead scores against uniform placement: before each of its drops, the
// network's top-k drops are each followed by R completions of the placement (its own later drops
// by the network, the opponent's uniform: the reference it is measured against), and each
// completed placement is scored by the move-41 ruling or the built-in engine's evaluation at
// move 41 turned into a win probability; the drop with the best mean is played. Then the
// referee plays the game out, as in eval strength. A ceiling experiment (#13): how far above the
// network's own policy can placement against uniform go, by the signal training uses?
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "engine/match.h"
#include "engine/outcome.h"
#include "engine/player.h"
#include "eval/placer_match.h"
#include "eval/stats.h"
#include "net/encode.h"
#include "rules/movegen.h"
#include "selfplay/network_placer.h"

using namespace fuseki;

namespace {

struct LookaheadOptions {
  int k = 8;
  int rollouts = 8;
  uint64_t nodes = 2000;
  double scale = 1000;
  double temperature = 0.5;  // of the network's later drops in a completion
  int threads = 1;
  int full_from = 41;  // plies >= this: every legal drop is a candidate
};

class LookaheadPlacer : public Placer {
 public:
  LookaheadPlacer(net::Evaluator& network, LookaheadOptions o)
      : network_(network), o_(o), own_(network, o.temperature) {
    for (int t = 0; t < o_.threads; ++t) {
      judges_.push_back(std::make_unique<BuiltinPlayer>(SearchLimits{o_.nodes, 0, 0}, 0));
    }
  }
  std::string name() const override { return "lookahead"; }
  void place(std::span<PlacementRequest> requests) override {
    if (requests.empty()) return;
    std::vector<const Position*> batch;
    for (auto& r : requests) batch.push_back(r.position);
    std::vector<net::Evaluation> evals = counted_pass(network_, batch, count_);
    // Candidates of every request.
    struct Rollout {
      size_t request, candidate;
    };
    std::vector<std::vector<Move>> candidates(requests.size());
    std::vector<Game> games;
    std::vector<Rng> rngs;
    std::vector<Rollout> owner;
    for (size_t i = 0; i < requests.size(); ++i) {
      const Position& pos = *requests[i].position;
      MoveList legal;
      generate_legal(pos, legal);
      std::vector<std::pair<float, Move>> ranked;
      for (int m = 0; m < legal.size; ++m) {
        int a = net::policy_index(pos, legal.moves[m]);
        ranked.emplace_back(a >= 0 ? evals[i].policy[size_t(a)] : 0.0f, legal.moves[m]);
      }
      std::stable_sort(ranked.begin(), ranked.end(),
                       [](const auto& x, const auto& y) { return x.first > y.first; });
      size_t k =
          pos.ply() + 1 >= o_.full_from ? ranked.size() : std::min(ranked.size(), size_t(o_.k));
      uint64_t base = requests[i].rng->next();
      for (size_t c = 0; c < k; ++c) {
        candidates[i].push_back(ranked[c].second);
        for (int j = 0; j < o_.rollouts; ++j) {
          Game g(pos);
          g.play(ranked[c].second);
          games.push_back(std::move(g));
          rngs.emplace_back(Rng::derive(base, uint64_t(j)));  // common to the candidates
          owner.push_back({i, c});
        }
      }
    }
    UniformPlacer uniform;
    Placers own_black{nullptr, nullptr, {&own_, &uniform}};
    Placers own_white{nullptr, nullptr, {&uniform, &own_}};
    std::vector<PlacingGame> placing;
    for (size_t g = 0; g < games.size(); ++g) {
      Color me = requests[owner[g].request].position->side_to_move();
      placing.push_back({&games[g], &rngs[g], me == BLACK ? &own_black : &own_white});
    }
    place_games(placing, own_black);
    // Each completion's value for the placer.
    std::vector<double> value(games.size());
    std::atomic<size_t> next{0};
    auto work = [&](int t) {
      for (size_t g; (g = next++) < games.size();) {
        Color me = requests[owner[g].request].position->side_to_move();
        if (games[g].over()) {  // decided by the move-41 ruling
          value[g] = score_of(games[g].winner(), me);
          continue;
        }
        judges_[size_t(t)]->new_game(Rng::derive(g, 41));
        std::optional<int> cp = judges_[size_t(t)]->evaluate(games[g]);
        double mover = 1 / (1 + std::exp(-(cp ? *cp : 0) / o_.scale));  // the side to move's
        value[g] = games[g].position().side_to_move() == me ? mover : 1 - mover;
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < o_.threads; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& t : pool) t.join();
    std::vector<std::vector<double>> sum(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) sum[i].assign(candidates[i].size(), 0);
    for (size_t g = 0; g < games.size(); ++g) sum[owner[g].request][owner[g].candidate] += value[g];
    for (size_t i = 0; i < requests.size(); ++i) {
      size_t best = size_t(std::max_element(sum[i].begin(), sum[i].end()) - sum[i].begin());
      requests[i].move = candidates[i][best];
    }
  }
  PassCount passes() const override { return count_; }

 private:
  net::Evaluator& network_;
  LookaheadOptions o_;
  NetworkPlacer own_;
  std::vector<std::unique_ptr<BuiltinPlayer>> judges_;
  PassCount count_;
};

}  // namespace

// A whole non-negative number argument, or a clear error.
uint64_t number_arg(const char* what, const char* text) {
  char* end = nullptr;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (!*text || *end || text[0] == '-') {
    std::fprintf(stderr, "lookahead_strength: %s: '%s' is not a whole number\n", what, text);
    std::exit(2);
  }
  return v;
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 11) {
    std::fprintf(
        stderr,
        "usage: lookahead_strength CKPT [GAMES SEED K ROLLOUTS NODES SCALE THREADS "
        "FULL_FROM REFEREE]\n  defaults: 100 11 8 8 2000 1000 1 41 builtin:nodes=2000\n"
        "  K: the network's top drops tried; ROLLOUTS: completions of each; NODES, SCALE:\n"
        "  the move-41 evaluation and its logistic scale (cp); FULL_FROM: plies from which\n"
        "  every legal drop is tried\n");
    return 2;
  }
  try {
    std::string ckpt = argv[1];
    int games = argc > 2 ? int(number_arg("GAMES", argv[2])) : 100;
    uint64_t seed = argc > 3 ? number_arg("SEED", argv[3]) : 11;
    LookaheadOptions o;
    if (argc > 4) o.k = int(number_arg("K", argv[4]));
    if (argc > 5) o.rollouts = int(number_arg("ROLLOUTS", argv[5]));
    if (argc > 6) o.nodes = number_arg("NODES", argv[6]);
    if (argc > 7) o.scale = double(number_arg("SCALE", argv[7]));
    if (argc > 8) o.threads = int(number_arg("THREADS", argv[8]));
    if (argc > 9) o.full_from = int(number_arg("FULL_FROM", argv[9]));
    std::string referee = argc > 10 ? argv[10] : "builtin:nodes=2000";
    if (games < 2 || o.k < 1 || o.rollouts < 1 || o.nodes < 1 || o.scale <= 0 || o.threads < 1) {
      std::fprintf(stderr,
                   "lookahead_strength: GAMES at least 2; K, ROLLOUTS, NODES, SCALE, THREADS at "
                   "least 1\n");
      return 2;
    }
    net::Evaluator network = net::Evaluator::from_file(ckpt, {});
    LookaheadPlacer look(network, o);
    UniformPlacer uniform;
    SelfPlayOptions so;
    so.rules = RuleSet::Balance;
    so.seed = seed;
    so.batch = 16;
    so.kings = KingSource::Uniform;
    so.playout = referee;
    so.playout_threads = o.threads;
    PlacerMatch match(look, uniform, so);
    MatchTally tally;
    for (int done = 0; done < games / 2; done += so.batch) {
      int chunk = std::min(so.batch, games / 2 - done);
      match.play(uint64_t(done), uint64_t(chunk), tally);
      StrengthEstimate e = strength_estimate(tally.score);
      std::fprintf(stderr, "%d games: %.3f [%.3f, %.3f] sente %.3f gote %.3f ruling %d/%d\n",
                   2 * (done + chunk), e.score, e.low, e.high, tally.by_colour[BLACK].mean(),
                   tally.by_colour[WHITE].mean(), tally.ruling41_won, tally.ruling41_lost);
    }
    StrengthEstimate e = strength_estimate(tally.score);
    std::printf(
        "lookahead k=%d R=%d nodes=%llu vs uniform: %.3f [%.3f, %.3f] over %d games; as Sente "
        "%.3f, as Gote %.3f; won by the ruling %d, lost by it %d\n",
        o.k, o.rollouts, (unsigned long long)o.nodes, e.score, e.low, e.high, e.games,
        tally.by_colour[BLACK].mean(), tally.by_colour[WHITE].mean(), tally.ruling41_won,
        tally.ruling41_lost);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lookahead_strength: %s\n", e.what());
    return 1;
  }
}
