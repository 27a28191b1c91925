// Balance's kings and side choice from a king-pair table: the kings are a pair drawn uniformly
// from the band closest to even, and the chooser takes Sente when the pair's value is above 50 %.
#pragma once

#include <string>
#include <vector>

#include "engine/placer.h"
#include "selfplay/king_table.h"

namespace fuseki {

// Places plies 1-2 only. Stateless between the two plies: Sente's king is a band pair's, then
// Gote's is drawn among the band pairs with that Sente king. A Sente square of k band pairs is
// drawn with probability k/n and each of its pairs then with 1/k, so every band pair has 1/n,
// the same as drawing the pair at once, without the placer keeping a game's pair.
class TableKingPlacer : public Placer {
 public:
  TableKingPlacer(const KingPairTable& table, int band);
  std::string name() const override { return "table"; }
  // Throws TableError at ply 2 when Sente's king is on no band pair's square (kings not placed
  // by this placer), std::logic_error after the kings.
  void place(std::span<PlacementRequest> requests) override;

 private:
  std::vector<KingPairEntry> band_;
};

class TableChooser : public Chooser {
 public:
  explicit TableChooser(const KingPairTable& table) : table_(table) {}
  std::string name() const override { return "table"; }
  // Throws TableError for a pair the table has no value for.
  void choose(std::span<ChoiceRequest> requests) override;

 private:
  const KingPairTable& table_;
};

}  // namespace fuseki
