// Basic game types shared by every variant: colours, piece types, squares, moves.
#pragma once

#include <cstdint>

namespace fuseki {

enum Color : uint8_t { BLACK = 0, WHITE = 1 };  // BLACK = Sente (moves first), WHITE = Gote
constexpr Color operator~(Color c) { return Color(c ^ 1); }
constexpr int COLOR_NB = 2;

// Piece type ids are shared by all variants; a variant gives them their movement.
// 1..7 are the unpromoted kinds (droppable), 8 is the king, 9..15 are "promoted 1..7".
enum PieceType : uint8_t {
  NO_PIECE_TYPE = 0,
  PAWN = 1,
  LANCE = 2,
  KNIGHT = 3,
  SILVER = 4,
  BISHOP = 5,
  ROOK = 6,
  GOLD = 7,
  KING = 8,
  PRO_PAWN = 9,
  PRO_LANCE = 10,
  PRO_KNIGHT = 11,
  PRO_SILVER = 12,
  HORSE = 13,
  DRAGON = 14,
  PIECE_TYPE_NB = 16
};
constexpr PieceType promoted(PieceType pt) { return PieceType(pt + 8); }
constexpr PieceType unpromoted(PieceType pt) { return pt > KING ? PieceType(pt - 8) : pt; }
constexpr bool is_promoted(PieceType pt) { return pt > KING; }

// Piece = colour in bit 4, type in bits 0..3; 0 is an empty square.
enum Piece : uint8_t { NO_PIECE = 0 };
constexpr Piece make_piece(Color c, PieceType pt) { return Piece((c << 4) | pt); }
constexpr Color color_of(Piece p) { return Color(p >> 4); }
constexpr PieceType type_of(Piece p) { return PieceType(p & 15); }

// Squares: sq = file_index * 9 + rank_index; file_index 0 is file 1 (Sente's right),
// rank_index 0 is rank a (Gote's back rank). Files are contiguous runs of 9 bits.
using Square = int;
constexpr int RANK_NB = 9;
constexpr int MAX_FILES = 9;
constexpr int SQ_MAX = MAX_FILES * RANK_NB;  // 81
constexpr Square SQ_NONE = -1;
constexpr Square make_square(int file_index, int rank_index) {
  return file_index * RANK_NB + rank_index;
}
constexpr int file_of(Square s) { return s / RANK_NB; }
constexpr int rank_of(Square s) { return s % RANK_NB; }

// Move: 16 bits. to: 0..6, from (or dropped piece type for a drop): 7..13, drop: 14, promote: 15.
enum Move : uint16_t { MOVE_NONE = 0 };
constexpr uint16_t DROP_FLAG = 1 << 14;
constexpr uint16_t PROMOTE_FLAG = 1 << 15;
constexpr Move make_move(Square from, Square to, bool promote) {
  return Move(to | (from << 7) | (promote ? PROMOTE_FLAG : 0));
}
constexpr Move make_drop(PieceType pt, Square to) { return Move(to | (pt << 7) | DROP_FLAG); }
constexpr Square move_to(Move m) { return m & 127; }
constexpr Square move_from(Move m) { return (m >> 7) & 127; }
constexpr bool is_drop(Move m) { return m & DROP_FLAG; }
constexpr bool is_promotion(Move m) { return m & PROMOTE_FLAG; }
constexpr PieceType dropped_type(Move m) { return PieceType((m >> 7) & 127); }

constexpr int MAX_MOVES = 600;  // shogi's maximum is 593 legal moves

}  // namespace fuseki
