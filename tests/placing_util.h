// Helpers of the placer tests: positions placed uniformly, and requests for a placer.
#pragma once

#include <vector>

#include "engine/placer.h"
#include "rules/movegen.h"

namespace fuseki::testing {

// A Balance position after `plies` uniform drops.
inline Position uniformly_placed(int plies, uint64_t seed) {
  Position pos = Position::start(RuleSet::Balance);
  Rng rng(seed);
  for (int i = 0; i < plies; ++i) {
    MoveList legal;
    generate_legal(pos, legal);
    pos.do_move(legal.moves[rng.below(uint32_t(legal.size))]);
  }
  return pos;
}

// One request a position, each with its own stream derived from `seed`.
struct Requests {
  std::vector<Position> positions;
  std::vector<Rng> rngs;
  std::vector<PlacementRequest> list;
  Requests(std::vector<Position> p, uint64_t seed) : positions(std::move(p)) {
    for (size_t i = 0; i < positions.size(); ++i) rngs.emplace_back(Rng::derive(seed, i));
    for (size_t i = 0; i < positions.size(); ++i)
      list.push_back({&positions[i], &rngs[i], MOVE_NONE, {}});
  }
};

}  // namespace fuseki::testing
