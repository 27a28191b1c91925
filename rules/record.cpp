#include "rules/record.h"

#include "rules/notation.h"

namespace fuseki {

Record play_record(Position& pos, std::string_view text) {
  Record rec;
  size_t i = 0;
  int index = 0;
  const int first_ply = pos.ply();
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
      ++i;
      continue;
    }
    size_t end = text.find_first_of(" \t\r\n", i);
    std::string_view token = text.substr(i, end == std::string_view::npos ? end : end - i);
    i = end == std::string_view::npos ? text.size() : end;
    ++index;
    std::string where = "record token " + std::to_string(index) + " '" + std::string(token) + "': ";
    if (token.substr(0, 7) == "choose:") {
      if (!pos.info().balance_kings)
        throw RulesError(where + "a side choice exists only in Balance Shogi");
      if (pos.ply() != 2)
        throw RulesError(where + "the side choice comes right after the second drop");
      if (rec.chooser_takes) throw RulesError(where + "a second side choice");
      std::string_view side = token.substr(7);
      if (side == "sente")
        rec.chooser_takes = BLACK;
      else if (side == "gote")
        rec.chooser_takes = WHITE;
      else
        throw RulesError(where + "expected choose:sente or choose:gote");
      continue;
    }
    // Balance: the chooser picks a side right after the two kings, before any other drop.
    if (pos.info().balance_kings && pos.ply() == 2 && first_ply < 2 && !rec.chooser_takes)
      throw RulesError(where +
                       "in Balance Shogi the side choice (choose:sente or choose:gote) comes "
                       "right after the two kings, before any other drop");
    Move m;
    try {
      m = parse_move(pos, token);
    } catch (const RulesError& e) {
      throw RulesError("record token " + std::to_string(index) + ": " + e.what());
    }
    pos.do_move(m);
    rec.moves.push_back(m);
  }
  return rec;
}

std::string record_string(const Record& rec, const Variant& v, int first_ply) {
  std::string out;
  int ply = first_ply;
  for (Move m : rec.moves) {
    if (!out.empty()) out += ' ';
    out += move_to_usi(m, v);
    if (++ply == 2 && rec.chooser_takes)
      out += *rec.chooser_takes == BLACK ? " choose:sente" : " choose:gote";
  }
  return out;
}

}  // namespace fuseki
