// What the placement policy learned, as pictures: for each side and piece type, how often each
// square received that piece in a generation's self-play (board heat maps). No LibTorch.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "selfplay/shard.h"

namespace fuseki {

// Drops of the placement phase counted by side (0 Sente, 1 Gote), piece kind (kPlacementKinds
// order) and square (file 1..9 right to left, rank a..i top to bottom: index (rank) * 9 + (9 -
// file)).
struct PlacementCounts {
  static constexpr const char* kKinds = "KRBGSNLP";
  int games = 0;
  std::array<std::array<std::array<int, 81>, 8>, 2> counts{};
};

// Counts the drops of each game's record (tokens "X*fr"; the side is the one whose camp the
// square is in). Tokens that are not drops are skipped.
PlacementCounts count_placements(const std::vector<GameRow>& games);

// One SVG: a row of boards per side, one board per piece kind, each square shaded by the share
// of games that dropped that kind there.
std::string placement_heatmaps_svg(const PlacementCounts& counts, const std::string& title);

}  // namespace fuseki
