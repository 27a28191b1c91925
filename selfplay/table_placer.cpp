#include "selfplay/table_placer.h"

#include <stdexcept>

#include "rules/notation.h"

namespace fuseki {

TableKingPlacer::TableKingPlacer(const KingPairTable& table, int band)
    : band_(table.closest_to_even(band)) {}

void TableKingPlacer::place(std::span<PlacementRequest> requests) {
  for (PlacementRequest& r : requests) {
    const Position& pos = *r.position;
    if (pos.ply() == 0) {
      r.move = make_drop(KING, band_[r.rng->below(uint32_t(band_.size()))].sente);
      continue;
    }
    if (pos.ply() != 1) throw std::logic_error("the king-pair table places kings only");
    Square sente = pos.king_square(BLACK);
    std::vector<Square> gote;
    for (const KingPairEntry& e : band_)
      if (e.sente == sente) gote.push_back(e.gote);
    if (gote.empty()) {
      std::string why = "no pair of the king-pair table's band has Sente's king on ";
      why += square_name(sente);
      throw TableError(why);
    }
    r.move = make_drop(KING, gote[r.rng->below(uint32_t(gote.size()))]);
  }
}

void TableChooser::choose(std::span<ChoiceRequest> requests) {
  for (ChoiceRequest& r : requests) {
    Square sente = r.position->king_square(BLACK), gote = r.position->king_square(WHITE);
    const KingPairEntry* e = table_.find(sente, gote);
    if (!e) {
      std::string why = table_.source();
      why += ": the king-pair table has no value for ";
      why += KingPairTable::key(sente, gote);
      throw TableError(why);
    }
    r.takes = e->v > 0.5 ? BLACK : WHITE;
  }
}

}  // namespace fuseki
