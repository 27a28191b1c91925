// Small helpers shared by the tests.
#pragma once

#include <cctype>
#include <set>
#include <string>
#include <vector>

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

// The position with its files mirrored (file f <-> 10 - f), from its SFEN: each rank's cells
// reversed.
inline Position files_mirrored(const Position& pos) {
  const std::string sfen = pos.sfen();
  const size_t space = sfen.find(' ');
  std::string board;
  std::vector<std::string> cells;
  auto flush = [&] {
    int empty = 0;
    for (auto it = cells.rbegin(); it != cells.rend(); ++it) {
      if (it->empty()) {
        ++empty;
        continue;
      }
      if (empty) board += std::to_string(empty);
      empty = 0;
      board += *it;
    }
    if (empty) board += std::to_string(empty);
    cells.clear();
  };
  for (size_t i = 0; i < space; ++i) {
    const char ch = sfen[i];
    if (ch == '/') {
      flush();
      board += '/';
    } else if (std::isdigit(static_cast<unsigned char>(ch))) {
      cells.insert(cells.end(), size_t(ch - '0'), std::string());
    } else if (ch == '+') {
      cells.push_back(sfen.substr(i, 2));
      ++i;
    } else {
      cells.push_back(std::string(1, ch));
    }
  }
  flush();
  return Position::from_sfen(board + sfen.substr(space), pos.rules());
}

}  // namespace fuseki::testing
