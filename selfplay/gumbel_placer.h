// A placer that searches with the value head before each drop: Gumbel top-k over the candidate
// drops (Danihelka et al., "Policy improvement by planning with Gumbel", ICLR 2022), evaluated
// one ply deep. Each call makes two forward passes whatever the number of games: the parents,
// then every candidate child of every game.
//
// With one evaluation per candidate, sequential halving has a single round: every candidate is
// visited once and the choice is argmax g(a) + log pi(a) + sigma(q(a)). Its training target is
// the improved policy pi' = softmax(log pi + sigma(completed q)), unvisited drops completed
// with the parent's value.
#pragma once

#include <string>

#include "engine/placer.h"
#include "net/evaluator.h"
#include "selfplay/search_target.h"  // drop_value

namespace fuseki {

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

 private:
  net::Evaluator& network_;
  GumbelOptions options_;
  PassCount count_;
};

}  // namespace fuseki
