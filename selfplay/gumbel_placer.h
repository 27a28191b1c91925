// A placer that searches with the value head before each drop: Gumbel top-k over the candidate
// drops (Danihelka et al., "Policy improvement by planning with Gumbel", ICLR 2022), evaluated
// one ply deep. Each call makes two forward passes whatever the number of games: the parents,
// then every candidate child of every game.
//
// With one evaluation per candidate, sequential halving has a single round: every candidate is
// visited once and the choice is argmax g(a) + log pi(a) + sigma(q(a)). Its training target is
// the improved policy pi' = softmax(log pi + sigma(completed q)), unvisited drops completed
// with the parent's value.
//
// The drop chosen for a game is the next call's parent of that game: its child evaluation is
// kept and used as that parent's, so from the second drop on the parents' pass holds only the
// positions not seen before (about one forward pass in 1 + k saved).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/placer.h"
#include "net/evaluator.h"
#include "selfplay/search_target.h"  // drop_value

namespace fuseki {

// One decision's Gumbel top-k: the legal drops, their log prior and noise, and the k drawn.
struct GumbelDraw {
  std::vector<int> legal;     // policy indices of the legal drops
  std::vector<double> logp;   // log prior, per legal drop (a float's logarithm)
  std::vector<double> noise;  // Gumbel(0, 1) per legal drop (zeros without noise)
  std::vector<int> chosen;    // positions in `legal` of the candidates
};

// The k largest g(a) + log pi(a) among the legal drops of `pos` (g = 0 when `noise` is false:
// the k most probable); the noise is drawn from `rng`, one number a legal drop.
GumbelDraw gumbel_top_k(const Position& pos, const std::vector<float>& policy, Rng& rng, int k,
                        bool noise = true);

// The search's decision from the values q of the legal drops (q[j] for draw.legal[j]: the
// candidates' own, the parent's value for the others, "completed q"): the candidate maximising
// g + log pi + sigma(q), whose position in draw.legal is written to `best`, and its training row
// with the improved policy pi' = softmax(log pi + sigma(q)) over the candidates.
PlacementDecision gumbel_decision(const GumbelDraw& draw, const std::vector<double>& q,
                                  const net::Evaluation& prior, double c_visit, double c_scale,
                                  int& best);

struct GumbelOptions {
  int k = 16;            // candidates per drop (capped by the legal drops)
  double c_visit = 50;   // sigma(q) = (c_visit + max visits) * c_scale * (q + 1) / 2, visits = 1
  double c_scale = 1.0;  // the paper's defaults: 50 and 1
};

class GumbelPlacer : public Placer {
 public:
  GumbelPlacer(net::Evaluator& network, GumbelOptions options)
      : network_(network), options_(options) {}
  std::string name() const override { return "gumbel"; }
  void place(std::span<PlacementRequest> requests) override;
  PassCount passes() const override { return count_; }
  // Parents whose evaluation came from the previous call's chosen child.
  uint64_t reused() const { return reused_; }

 private:
  net::Evaluator& network_;
  GumbelOptions options_;
  PassCount count_;
  std::unordered_map<uint64_t, net::Evaluation> chosen_;  // by position key, the last call's
  uint64_t chosen_weights_ = 0;                           // network_.weights_version() of those
  uint64_t reused_ = 0;
};

}  // namespace fuseki
