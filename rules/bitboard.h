// 128-bit bitboards: one bit per square, sq = file_index * 9 + rank_index (up to 81 squares).
#pragma once

#include <cstdint>

#include "rules/types.h"

namespace fuseki {

__extension__ typedef unsigned __int128 Bitboard;

constexpr Bitboard square_bb(Square s) { return Bitboard(1) << s; }
inline uint64_t lo64(Bitboard b) { return uint64_t(b); }
inline uint64_t hi64(Bitboard b) { return uint64_t(b >> 64); }

inline int popcount(Bitboard b) {
  return __builtin_popcountll(lo64(b)) + __builtin_popcountll(hi64(b));
}
// Least / most significant set bit; b must be non-zero.
inline Square lsb(Bitboard b) {
  uint64_t lo = lo64(b);
  return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll(hi64(b));
}
inline Square msb(Bitboard b) {
  uint64_t hi = hi64(b);
  return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll(lo64(b));
}
inline Square pop_lsb(Bitboard& b) {
  Square s = lsb(b);
  b &= b - 1;
  return s;
}
inline bool more_than_one(Bitboard b) { return b & (b - 1); }
inline bool test(Bitboard b, Square s) { return (b >> s) & 1; }

// The eight ray directions, as board deltas in the sq = file*9 + rank layout.
// N = towards rank a (Sente's forward), E = towards file 1.
// Opposite directions differ in bit 0.
enum Direction : uint8_t { DIR_N, DIR_S, DIR_E, DIR_W, DIR_NE, DIR_SW, DIR_NW, DIR_SE, DIR_NB };
constexpr int DIR_DF[DIR_NB] = {0, 0, -1, 1, -1, 1, 1, -1};  // file_index delta
constexpr int DIR_DR[DIR_NB] = {-1, 1, 0, 0, -1, 1, -1, 1};  // rank_index delta
constexpr Direction opposite(Direction d) { return Direction(d ^ 1); }
// A direction whose square index grows along the ray finds its nearest square with lsb.
constexpr bool dir_ascending(Direction d) { return DIR_DF[d] * RANK_NB + DIR_DR[d] > 0; }

}  // namespace fuseki
