// Square and move notation: squares "7f" (file digit, rank letter), USI moves "7g7f", "8h2b+",
// drops "P*7f" with an upper-case letter for either side.
#pragma once

#include <string>
#include <string_view>

#include "rules/position.h"

namespace fuseki {

std::string square_name(Square s);
// SQ_NONE when the text is not a square of this variant's board.
Square parse_square(std::string_view text, const Variant& v);
std::string move_to_usi(Move m, const Variant& v);
// The legal move of `pos` that `token` names; throws RulesError naming the token otherwise.
Move parse_move(const Position& pos, std::string_view token);

}  // namespace fuseki
