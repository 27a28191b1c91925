// Perft: leaf count of the game tree to a depth, across placement into ordinary play.
// A finished position (no legal move, or the move-41 ruling) has no moves.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "rules/position.h"

namespace fuseki {

uint64_t perft(Position& pos, int depth);
// Per root move: (move in USI, leaf count).
std::vector<std::pair<std::string, uint64_t>> perft_divide(Position& pos, int depth);

}  // namespace fuseki
