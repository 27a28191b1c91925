#include "rules/perft.h"

#include "rules/movegen.h"
#include "rules/notation.h"

namespace fuseki {

uint64_t perft(Position& pos, int depth) {
  if (depth == 0) return 1;
  if (depth == 1) return uint64_t(count_legal(pos));  // the last ply is counted, not made
  MoveList list;
  generate_legal(pos, list);
  uint64_t nodes = 0;
  for (Move m : list) {
    pos.do_move(m);
    nodes += perft(pos, depth - 1);
    pos.undo_move(m);
  }
  return nodes;
}

std::vector<std::pair<std::string, uint64_t>> perft_divide(Position& pos, int depth) {
  std::vector<std::pair<std::string, uint64_t>> out;
  if (depth < 1) return out;
  MoveList list;
  generate_legal(pos, list);
  for (Move m : list) {
    pos.do_move(m);
    out.emplace_back(move_to_usi(m, pos.variant()), perft(pos, depth - 1));
    pos.undo_move(m);
  }
  return out;
}

}  // namespace fuseki
