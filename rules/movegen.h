// Legal move generation for both phases: placement drops (plies 1-40 of Fuseki/Balance, with
// nifu, the file-fill ban, Nihikyo and the move-40 restriction) and ordinary shogi.
#pragma once

#include <cstdint>

#include "rules/position.h"

namespace fuseki {

struct MoveList {
  Move moves[MAX_MOVES];
  int size = 0;
  void add(Move m) { moves[size++] = m; }
  const Move* begin() const { return moves; }
  const Move* end() const { return moves + size; }
  bool contains(Move m) const {
    for (int i = 0; i < size; ++i)
      if (moves[i] == m) return true;
    return false;
  }
};

// Every legal move; none when the game is over (no legal move, or the move-41 ruling).
void generate_legal(const Position& pos, MoveList& list);
// The number of legal moves, without making them (placement counts squares per piece type).
int count_legal(const Position& pos);

// Placement: the squares each piece type in hand may be dropped on, all bans applied.
// Returns false when the position is not in the placement phase.
bool placement_targets(const Position& pos, Bitboard targets[PIECE_TYPE_NB]);

// Whether dropping a pawn on `s` by the side to move would be pawn-drop mate.
bool is_pawn_drop_mate(const Position& pos, Square s);

}  // namespace fuseki
