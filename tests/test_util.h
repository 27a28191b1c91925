// Small helpers shared by the rules tests.
#pragma once

#include <set>
#include <string>

#include "rules/movegen.h"
#include "rules/notation.h"
#include "rules/position.h"

namespace fuseki::testing {

inline std::set<std::string> legal_moves(const Position& pos) {
  MoveList list;
  generate_legal(pos, list);
  std::set<std::string> out;
  for (Move m : list) out.insert(move_to_usi(m, pos.variant()));
  return out;
}

inline Position at(RuleSet r, const std::string& sfen) { return Position::from_sfen(sfen, r); }

}  // namespace fuseki::testing
