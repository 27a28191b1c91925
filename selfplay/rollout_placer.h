// A placer that searches with completed placements and an engine (expert iteration): before each
// drop, k candidate drops (Gumbel top-k over the policy, as GumbelPlacer draws them) are each
// followed by R completions of the placement to move 41 (the mover's later drops sampled from
// the network at `own_temperature`, the opponent's from the network at `opponent_temperature` or
// uniform), and each completed placement is valued by the move-41 ruling where it decides, else
// by an engine's evaluation at move 41 turned into a win probability (logistic, `scale` cp). A
// candidate's q is its completions' mean (2 p - 1, the mover's); the R completions of a request
// share their streams across its candidates (common random numbers), so the candidates differ by
// their drop more than by their luck.
//
// The choice and the training target are the Gumbel search's (selfplay/search_target.h): the
// drop maximising g(a) + log pi(a) + sigma(q(a)) (without the noise g when `noise` is false:
// the best prior plus value, for measurements), and pi' = softmax(log pi + sigma(completed q)),
// drops not tried completed with v_mix (selfplay/search_target.h: mostly the prior-weighted mean
// of the candidates' q, as the value head's value is on another scale than the completions').
//
// Where the value head looks one ply deep (GumbelPlacer), this looks to move 41 with the engine
// that makes training's reward: a better teacher at some 100 times the cost (k R completions of
// up to 38 drops, and k R engine evaluations, a drop). `eval strength --lookahead-k` measures
// it as a placer; docs/benchmarks.md ("Looking ahead with the evaluation").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/placer.h"
#include "engine/player.h"
#include "net/evaluator.h"
#include "selfplay/network_placer.h"

namespace fuseki {

struct RolloutOptions {
  int k = 8;                        // candidates per drop (capped by the legal drops)
  int rollouts = 8;                 // completions per candidate
  std::string engine = "builtin";   // the move-41 evaluation: an engine spec without a budget
  uint64_t nodes = 2000;            // its budget
  double scale = 600;               // cp to win probability, 1 / (1 + exp(-cp / scale))
  double own_temperature = 0.5;     // the mover's later drops in a completion
  double opponent_temperature = 1;  // the opponent's, when uniform_opponent is false
  bool uniform_opponent = false;    // the opponent's later drops uniform (a match's reference)
  int threads = 1;                  // engine threads valuing the completions
  bool noise = true;                // Gumbel noise in the choice (self-play's exploration)
  double c_visit = 50, c_scale = 1;
  int from_ply = 0;  // decisions at earlier plies (plies played) go to the `early` placer
  // The drop played: the look-ahead's choice (false), or one sampled from the network's policy
  // at `own_temperature` (true: the positions the network reaches itself, as in DAgger; the
  // training row keeps the look-ahead's improved policy as its target).
  bool play_policy = false;
};

class RolloutPlacer : public Placer {
 public:
  // Starts `options.threads` engines (a bad spec throws here). Balance's kings are not its to
  // place (a completion would need the side choice): such a request throws std::logic_error.
  // With `options.from_ply` > 0, the decisions of positions with fewer plies played are
  // `early`'s (e.g. the Gumbel search with the value head: the look-ahead kept for the last
  // drops, whose completions are short and whose tactics the value head sees least); `early`
  // must then be given and outlive this placer.
  RolloutPlacer(net::Evaluator& network, RolloutOptions options, RuleSet rules,
                Placer* early = nullptr);
  ~RolloutPlacer() override;
  std::string name() const override { return "rollout"; }
  void place(std::span<PlacementRequest> requests) override;
  PassCount passes() const override;
  // Completions made and those the move-41 ruling decided (the rest went to the engine).
  uint64_t completions() const { return completions_; }
  uint64_t decided() const { return decided_; }

 private:
  std::vector<double> values(std::vector<Game>& completed, const std::vector<Color>& mover);
  void look_ahead(std::span<PlacementRequest> requests);

  net::Evaluator& network_;
  RolloutOptions options_;
  Placer* early_;
  NetworkPlacer own_, opponent_;
  UniformPlacer uniform_;
  std::vector<std::unique_ptr<Player>> judges_;
  PassCount count_;
  uint64_t completions_ = 0, decided_ = 0;
};

}  // namespace fuseki
