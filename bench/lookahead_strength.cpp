// What a placer that looks ahead scores against uniform placement: the rollout placer of
// self-play's expert iteration (selfplay/rollout_placer.h) without its exploration noise, its
// completions' opponent uniform (the reference it is measured against): before each of its
// drops, the network's top-k drops are each followed by R completions of the placement, each
// completed placement scored by the move-41 ruling or the built-in engine's evaluation at move 41
// turned into a win probability, and the drop with the best log pi + sigma(mean) is played. Then
// the referee plays the game out, as in eval strength. A ceiling experiment (#13): how far above
// the network's own policy can placement against uniform go, by the signal training uses?
// FROM_PLY > 0: only the drops from that ply on (plies played) look ahead, the earlier ones are
// the policy's at temperature 0.5 (which of the drops carry the gain); with K = 1, R = 1 the
// later drops are the policy's argmax (the control).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/match.h"
#include "eval/placer_match.h"
#include "eval/stats.h"
#include "selfplay/rollout_placer.h"

using namespace fuseki;

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
    std::fprintf(stderr,
                 "usage: lookahead_strength CKPT [GAMES SEED K ROLLOUTS NODES SCALE THREADS "
                 "REFEREE FROM_PLY]\n  defaults: 100 11 8 8 2000 1000 1 builtin:nodes=2000 0\n"
                 "  K: the network's top drops tried; ROLLOUTS: completions of each; NODES, "
                 "SCALE:\n  the move-41 evaluation and its logistic scale (cp); FROM_PLY: "
                 "drops before\n  this ply (plies played) by the policy at temperature 0.5\n");
    return 2;
  }
  try {
    std::string ckpt = argv[1];
    int games = argc > 2 ? int(number_arg("GAMES", argv[2])) : 100;
    uint64_t seed = argc > 3 ? number_arg("SEED", argv[3]) : 11;
    RolloutOptions o;
    o.uniform_opponent = true;
    o.noise = false;
    o.scale = 1000;
    if (argc > 4) o.k = int(number_arg("K", argv[4]));
    if (argc > 5) o.rollouts = int(number_arg("ROLLOUTS", argv[5]));
    if (argc > 6) o.nodes = number_arg("NODES", argv[6]);
    if (argc > 7) o.scale = double(number_arg("SCALE", argv[7]));
    if (argc > 8) o.threads = int(number_arg("THREADS", argv[8]));
    std::string referee = argc > 9 ? argv[9] : "builtin:nodes=2000";
    if (argc > 10) o.from_ply = int(number_arg("FROM_PLY", argv[10]));
    if (games < 2 || o.k < 1 || o.rollouts < 1 || o.nodes < 1 || o.scale <= 0 || o.threads < 1) {
      std::fprintf(stderr,
                   "lookahead_strength: GAMES at least 2; K, ROLLOUTS, NODES, SCALE, THREADS at "
                   "least 1\n");
      return 2;
    }
    net::Evaluator network = net::Evaluator::from_file(ckpt, {});
    NetworkPlacer policy(network, 0.5);
    RolloutPlacer look(network, o, RuleSet::Balance, &policy);
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
        "lookahead k=%d R=%d nodes=%llu from ply %d vs uniform: %.3f [%.3f, %.3f] over %d games; "
        "as Sente "
        "%.3f, as Gote %.3f; won by the ruling %d, lost by it %d\n",
        o.k, o.rollouts, (unsigned long long)o.nodes, o.from_ply, e.score, e.low, e.high, e.games,
        tally.by_colour[BLACK].mean(), tally.by_colour[WHITE].mean(), tally.ruling41_won,
        tally.ruling41_lost);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lookahead_strength: %s\n", e.what());
    return 1;
  }
}
