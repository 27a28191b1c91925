// The mover's-view encoding of a placement position: input planes, the legal-drop mask and the
// dense policy index of a drop. No LibTorch: self-play and tests use it without the network.
//
// The board is seen from the side to move: for Gote it is turned 180 degrees (sq' = 80 - sq), so
// the mover's camp is always view ranks 5..8 and the opponent's always 0..3.
#pragma once

#include <cstdint>
#include <vector>

#include "rules/position.h"

namespace fuseki::net {

constexpr int kBoardFiles = 9;
constexpr int kBoardRanks = 9;
constexpr int kPlaneSize = kBoardFiles * kBoardRanks;  // 81 floats, [view_rank][view_file]

// Piece kinds in network order (not PieceType order): P L N S G B R K.
constexpr int kKinds = 8;
constexpr PieceType kKindTypes[kKinds] = {PAWN, LANCE, KNIGHT, SILVER, GOLD, BISHOP, ROOK, KING};
// A side's pieces at the start of placement, per kind: the hand planes divide by these.
constexpr int kInitialHand[kKinds] = {9, 2, 2, 2, 2, 1, 1, 1};

// Input planes, each kPlaneSize floats laid out [view_rank][view_file].
constexpr int kOwnPiecePlanes = 0;      // 8: 1 where an own piece of that kind stands
constexpr int kOppPiecePlanes = 8;      // 8: the same for the opponent's pieces
constexpr int kOwnHandPlanes = 16;      // 8: constant, own hand count / initial count
constexpr int kOppHandPlanes = 24;      // 8: constant, opponent's hand count / initial count
constexpr int kPlyPlane = 32;           // constant, plies played / 40
constexpr int kBalanceKingsPlane = 33;  // constant 1 under balance-v1 and balance
constexpr int kNihikyoPlane = 34;       // constant 1 under balance (Nihikyo)
constexpr int kOnesPlane = 35;          // all ones: lets convolutions see the board's edge
constexpr int kInputPlanes = 36;
constexpr int kInputSize = kInputPlanes * kPlaneSize;  // floats per position

// Policy: kind_index * 36 + camp_index, camp_index = (view_rank - 5) * 9 + view_file.
constexpr int kCampRanks = 4;
constexpr int kFirstCampRank = kBoardRanks - kCampRanks;  // view rank 5 (rank f for Sente)
constexpr int kCampSquares = kCampRanks * kBoardFiles;    // 36
constexpr int kPolicySize = kKinds * kCampSquares;        // 288

// The network kind of a piece type (promoted types count as their base kind); -1 for none.
int kind_index(PieceType pt);
// The square as the mover sees it: Sente's squares unchanged, Gote's turned 180 degrees.
constexpr Square view_square(Color mover, Square sq) {
  return mover == BLACK ? sq : SQ_MAX - 1 - sq;
}

// Writes kInputSize floats for the side to move. Meant for placement positions; a position
// in ordinary play is encoded the same way (promoted pieces as their base kind).
void encode(const Position& pos, float* planes);

// Writes kPolicySize bytes: 1 for each legal drop, 0 elsewhere. Returns the number of legal
// drops; 0 (and an all-zero mask) when the position is not in the placement phase.
int legal_mask(const Position& pos, uint8_t* mask);

// The policy index of a drop by `mover` into its camp; -1 for a board move, a promoted or
// unknown type, or a square outside the mover's camp.
int policy_index(Color mover, Move m);
int policy_index(const Position& pos, Move m);  // for the side to move

// The drop a policy index stands for (the inverse of policy_index); MOVE_NONE when the index
// is out of range. The drop is not checked for legality: use legal_mask for that.
Move policy_move(Color mover, int index);
Move policy_move(const Position& pos, int index);  // for the side to move

// The left-right mirror (file f <-> file 10 - f), a symmetry of every placement rule (the
// pieces' moves, the camps, the move-40 restriction, the ruling, Nihikyo's files): the policy
// index of the mirrored drop, and a position's planes mirrored in place (`count` planes of
// kPlaneSize floats; native planes are [rank][file], the site's [file][rank]). Training on
// both halves teaches the network the symmetry (TrainOptions::mirror).
constexpr int mirror_policy_index(int index) {
  return index - index % kBoardFiles + (kBoardFiles - 1 - index % kBoardFiles);
}
void mirror_planes(float* planes, int count, bool site);

// Positions encoded for one forward pass: planes (n * kInputSize) and masks (n * kPolicySize),
// both contiguous, in the order added.
// Placement positions along random placements of each rule set in turn (Fuseki, Balance v1,
// Balance), each ply kept with probability 1/2; the same seed gives the same positions.
std::vector<Position> random_placement_positions(int count, uint64_t seed);

struct EncodedBatch {
  bool site = false;  // the site's features (net/site_features.h), kSiteInputPlanes a position
  std::vector<float> planes;
  std::vector<uint8_t> masks;
  std::vector<int> legal_counts;
  int size() const { return int(legal_counts.size()); }
  int input_planes() const;  // per position: kInputPlanes, or the site's 121
  void clear();
  void reserve(int n);
  void add(const Position& pos);
};

}  // namespace fuseki::net
