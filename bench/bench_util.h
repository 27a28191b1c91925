// What the network benchmarks share: a wall clock and a fixed set of placement positions.
#pragma once

#include <chrono>
#include <vector>

#include "rules/movegen.h"
#include "rules/position.h"
#include "rules/rng.h"

namespace fuseki::bench {

inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Placement positions at every ply of random games under the three placement rule sets.
inline std::vector<Position> positions(int n) {
  const RuleSet rules[] = {RuleSet::Fuseki, RuleSet::BalanceV1, RuleSet::Balance};
  Rng rng(2026);
  std::vector<Position> out;
  for (int game = 0; int(out.size()) < n; ++game) {
    Position pos = Position::start(rules[game % 3]);
    while (pos.in_placement() && int(out.size()) < n) {
      out.push_back(pos);
      MoveList list;
      generate_legal(pos, list);
      pos.do_move(list.moves[rng.below(uint32_t(list.size))]);
    }
  }
  return out;
}

}  // namespace fuseki::bench
