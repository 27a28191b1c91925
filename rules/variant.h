// A variant is data: board size, piece movements, promotion zones and drop rules.
// Move generation reads these tables; it has no per-variant branches.
#pragma once

#include <string>

#include "rules/bitboard.h"

namespace fuseki {

struct Variant {
  std::string name;
  int files = 9;  // ranks are always 9
  int squares = 81;
  Bitboard board = 0;  // every square of the board
  Bitboard file_bb[MAX_FILES] = {};
  Bitboard rank_bb[RANK_NB] = {};
  Bitboard promotion_zone[COLOR_NB] = {};
  Bitboard camp[COLOR_NB] = {};  // each side's own four ranks (the placement drop zone)

  bool exists[PIECE_TYPE_NB] = {};
  bool can_promote[PIECE_TYPE_NB] = {};
  char letter[PIECE_TYPE_NB] = {};   // upper case; promoted types print as '+' letter
  int value[PIECE_TYPE_NB] = {};     // rough material value (centipawns), for engines
  int per_side[PIECE_TYPE_NB] = {};  // pieces of each unpromoted type one side starts with
  PieceType board_types[PIECE_TYPE_NB] =
      {};  // every type that can stand on the board, king excluded
  int board_type_count = 0;
  PieceType hand_types[8] = {};  // types that can be held in hand in ordinary play, biggest first
  int hand_type_count = 0;
  // Roles for engine evaluation: long-range attackers (pressure on a king counts double) and
  // close guards of the king, by type; strong_types lists the former.
  bool strong[PIECE_TYPE_NB] = {};
  bool guard[PIECE_TYPE_NB] = {};
  PieceType strong_types[PIECE_TYPE_NB] = {};
  int strong_type_count = 0;

  // Movement from each colour's side. steps: squares reached in one step; slides: ray directions.
  Bitboard step[COLOR_NB][PIECE_TYPE_NB][SQ_MAX] = {};
  uint8_t slides[COLOR_NB][PIECE_TYPE_NB] = {};
  // Squares from which a piece of this type could never move again: no move, drop or stay there.
  Bitboard dead[COLOR_NB][PIECE_TYPE_NB] = {};

  // Types whose one-step moves are identical share a step class, so attack detection looks up
  // each distinct pattern once. -1: the type has no step moves.
  int step_class[PIECE_TYPE_NB] = {};
  PieceType step_class_type[PIECE_TYPE_NB] = {};
  int step_class_count = 0;

  Bitboard ray[DIR_NB][SQ_MAX] = {};      // squares along a direction, the origin excluded
  Bitboard between[SQ_MAX][SQ_MAX] = {};  // squares strictly between two aligned squares
  Bitboard line[SQ_MAX][SQ_MAX] = {};     // the whole line through two aligned squares

  bool pawn_drop_mate_illegal = true;
  int repetition_limit = 4;               // the occurrence of a position that ends the game
  bool entering_king_declaration = true;  // the CSA 27-point rule
  std::string start_sfen;

  Bitboard slide_attacks(uint8_t dirs, Square s, Bitboard occupied) const {
    Bitboard att = 0;
    while (dirs) {
      Direction d = Direction(__builtin_ctz(dirs));
      dirs &= dirs - 1;
      att |= ray_attacks(d, s, occupied);
    }
    return att;
  }
  Bitboard ray_attacks(Direction d, Square s, Bitboard occupied) const {
    Bitboard r = ray[d][s];
    Bitboard blockers = r & occupied;
    if (!blockers) return r;
    return r ^ ray[d][dir_ascending(d) ? lsb(blockers) : msb(blockers)];
  }
  Bitboard attacks(Color c, PieceType pt, Square s, Bitboard occupied) const {
    Bitboard att = step[c][pt][s];
    if (slides[c][pt]) att |= slide_attacks(slides[c][pt], s, occupied);
    return att;
  }
  bool on_board(int file_index, int rank_index) const {
    return file_index >= 0 && file_index < files && rank_index >= 0 && rank_index < RANK_NB;
  }
};

const Variant& shogi_variant();
const Variant& yari_variant();

}  // namespace fuseki
