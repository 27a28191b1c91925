#include "net/encode.h"

#include <algorithm>
#include <cstring>

#include "net/site_features.h"
#include "rules/movegen.h"
#include "rules/rng.h"

namespace fuseki::net {
namespace {

constexpr int kKindOfType[PIECE_TYPE_NB] = {
    -1,  // NO_PIECE_TYPE
    0,   // PAWN
    1,   // LANCE
    2,   // KNIGHT
    3,   // SILVER
    5,   // BISHOP
    6,   // ROOK
    4,   // GOLD
    7,   // KING
    0,   // PRO_PAWN
    1,   // PRO_LANCE
    2,   // PRO_KNIGHT
    3,   // PRO_SILVER
    5,   // HORSE
    6,   // DRAGON
    -1,
};

// Offset of a view square inside a plane laid out [view_rank][view_file].
constexpr int plane_offset(Square view_sq) {
  return rank_of(view_sq) * kBoardFiles + file_of(view_sq);
}

void fill_plane(float* plane, float value) { std::fill(plane, plane + kPlaneSize, value); }

}  // namespace

int kind_index(PieceType pt) { return pt < PIECE_TYPE_NB ? kKindOfType[pt] : -1; }

void encode(const Position& pos, float* planes) {
  std::memset(planes, 0, sizeof(float) * kInputSize);
  const Color us = pos.side_to_move();
  for (int c = 0; c < COLOR_NB; ++c) {
    const Color side = Color(c);
    float* base = planes + (side == us ? kOwnPiecePlanes : kOppPiecePlanes) * kPlaneSize;
    for (Bitboard b = pos.pieces(side); b;) {
      Square sq = pop_lsb(b);
      int kind = kind_index(type_of(pos.piece_on(sq)));
      if (kind >= 0) base[kind * kPlaneSize + plane_offset(view_square(us, sq))] = 1.0f;
    }
    float* hand = planes + (side == us ? kOwnHandPlanes : kOppHandPlanes) * kPlaneSize;
    for (int k = 0; k < kKinds; ++k) {
      int n = pos.hand(side, kKindTypes[k]);
      if (n) fill_plane(hand + k * kPlaneSize, float(n) / float(kInitialHand[k]));
    }
  }
  fill_plane(planes + kPlyPlane * kPlaneSize, float(pos.ply()) / float(PLACEMENT_PLIES));
  if (pos.info().balance_kings) fill_plane(planes + kBalanceKingsPlane * kPlaneSize, 1.0f);
  if (pos.info().nihikyo) fill_plane(planes + kNihikyoPlane * kPlaneSize, 1.0f);
  fill_plane(planes + kOnesPlane * kPlaneSize, 1.0f);
}

int legal_mask(const Position& pos, uint8_t* mask) {
  std::memset(mask, 0, kPolicySize);
  Bitboard targets[PIECE_TYPE_NB];
  if (!placement_targets(pos, targets)) return 0;
  const Color us = pos.side_to_move();
  int count = 0;
  for (int k = 0; k < kKinds; ++k) {
    for (Bitboard b = targets[kKindTypes[k]]; b;) {
      Square view_sq = view_square(us, pop_lsb(b));
      mask[k * kCampSquares + plane_offset(view_sq) - kFirstCampRank * kBoardFiles] = 1;
      ++count;
    }
  }
  return count;
}

int policy_index(Color mover, Move m) {
  if (!is_drop(m)) return -1;
  const PieceType pt = dropped_type(m);
  if (pt == NO_PIECE_TYPE || pt > KING) return -1;
  const Square to = move_to(m);
  if (to < 0 || to >= SQ_MAX) return -1;
  const Square view_sq = view_square(mover, to);
  if (rank_of(view_sq) < kFirstCampRank) return -1;
  return kind_index(pt) * kCampSquares + plane_offset(view_sq) - kFirstCampRank * kBoardFiles;
}

int policy_index(const Position& pos, Move m) { return policy_index(pos.side_to_move(), m); }

Move policy_move(Color mover, int index) {
  if (index < 0 || index >= kPolicySize) return MOVE_NONE;
  const int kind = index / kCampSquares, camp = index % kCampSquares;
  const int view_rank = kFirstCampRank + camp / kBoardFiles, view_file = camp % kBoardFiles;
  const Square sq = view_square(mover, make_square(view_file, view_rank));
  return make_drop(kKindTypes[kind], sq);
}

Move policy_move(const Position& pos, int index) { return policy_move(pos.side_to_move(), index); }

void mirror_planes(float* planes, int count, bool site) {
  for (int c = 0; c < count; ++c) {
    float* plane = planes + size_t(c) * kPlaneSize;
    if (site) {  // [file][rank]: swap whole files
      for (int f = 0; f < kBoardFiles / 2; ++f)
        std::swap_ranges(plane + f * kBoardRanks, plane + (f + 1) * kBoardRanks,
                         plane + (kBoardFiles - 1 - f) * kBoardRanks);
    } else {  // [rank][file]: reverse each rank
      for (int r = 0; r < kBoardRanks; ++r)
        std::reverse(plane + r * kBoardFiles, plane + (r + 1) * kBoardFiles);
    }
  }
}

void EncodedBatch::clear() {
  planes.clear();
  masks.clear();
  legal_counts.clear();
}

int EncodedBatch::input_planes() const { return site ? kSiteInputPlanes : kInputPlanes; }

void EncodedBatch::reserve(int n) {
  planes.reserve(size_t(n) * size_t(input_planes() * kPlaneSize));
  masks.reserve(size_t(n) * kPolicySize);
  legal_counts.reserve(size_t(n));
}

void EncodedBatch::add(const Position& pos) {
  const size_t i = legal_counts.size();
  const size_t stride = size_t(input_planes() * kPlaneSize);
  planes.resize((i + 1) * stride);
  masks.resize((i + 1) * kPolicySize);
  if (site)
    encode_site(pos, planes.data() + i * stride);
  else
    encode(pos, planes.data() + i * stride);
  legal_counts.push_back(legal_mask(pos, masks.data() + i * kPolicySize));
}

std::vector<Position> random_placement_positions(int count, uint64_t seed) {
  const RuleSet rules[] = {RuleSet::Fuseki, RuleSet::BalanceV1, RuleSet::Balance};
  Rng rng(seed);
  std::vector<Position> out;
  uint8_t mask[kPolicySize];
  for (int game = 0; int(out.size()) < count; ++game) {
    Position pos = Position::start(rules[game % 3]);
    while (pos.in_placement() && int(out.size()) < count) {
      if (legal_mask(pos, mask) > 0 && rng.below(2) == 0) out.push_back(pos);
      MoveList list;
      generate_legal(pos, list);
      if (list.size == 0) break;
      pos.do_move(list.moves[rng.below(uint32_t(list.size))]);
    }
  }
  return out;
}

}  // namespace fuseki::net
