// Game records: tokens separated by spaces, drops "P*7f", board moves in USI, and in Balance
// Shogi a "choose:sente" / "choose:gote" token right after the second drop (not a ply).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/position.h"

namespace fuseki {

struct Record {
  std::vector<Move> moves;
  std::optional<Color>
      chooser_takes;  // the side the chooser took (Balance); the placer has the other
};

// Plays the record's tokens on `pos`; throws RulesError naming the token and its number. In
// Balance Shogi a record that places the kings must give the side choice next.
Record play_record(Position& pos, std::string_view text);
// The record's text: moves, with the choice after the second ply where there is one.
std::string record_string(const Record& rec, const Variant& v, int first_ply = 0);

}  // namespace fuseki
