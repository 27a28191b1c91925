#include "rules/notation.h"

#include "rules/movegen.h"

namespace fuseki {

std::string square_name(Square s) {
  return std::string{char('1' + file_of(s)), char('a' + rank_of(s))};
}

Square parse_square(std::string_view text, const Variant& v) {
  if (text.size() != 2) return SQ_NONE;
  int f = text[0] - '1', r = text[1] - 'a';
  return v.on_board(f, r) ? make_square(f, r) : SQ_NONE;
}

std::string move_to_usi(Move m, const Variant& v) {
  if (is_drop(m)) return std::string{v.letter[dropped_type(m)], '*'} + square_name(move_to(m));
  return square_name(move_from(m)) + square_name(move_to(m)) + (is_promotion(m) ? "+" : "");
}

Move parse_move(const Position& pos, std::string_view token) {
  const Variant& v = pos.variant();
  auto bad = [&](const std::string& why) {
    return RulesError("move '" + std::string(token) + "': " + why);
  };
  Move m = MOVE_NONE;
  if (token.size() == 4 && token[1] == '*') {
    PieceType pt = NO_PIECE_TYPE;
    for (int t = PAWN; t <= KING; ++t)
      if (v.exists[t] && v.letter[t] == token[0]) pt = PieceType(t);
    Square to = parse_square(token.substr(2), v);
    if (pt == NO_PIECE_TYPE) throw bad("unknown piece letter (drops use upper case: P*7f)");
    if (to == SQ_NONE) throw bad("bad square");
    m = make_drop(pt, to);
  } else if (token.size() == 4 || (token.size() == 5 && token[4] == '+')) {
    Square from = parse_square(token.substr(0, 2), v), to = parse_square(token.substr(2, 2), v);
    if (from == SQ_NONE || to == SQ_NONE) throw bad("bad square");
    m = make_move(from, to, token.size() == 5);
  } else {
    throw bad("not a move (expected USI such as 7g7f, 8h2b+ or P*7f)");
  }
  MoveList legal;
  generate_legal(pos, legal);
  if (!legal.contains(m)) {
    if (legal.size == 0) throw bad("the game is already over");
    throw bad("illegal in " + pos.sfen());
  }
  return m;
}

}  // namespace fuseki
