#include "net/site_features.h"

#include <algorithm>
#include <cstring>

namespace fuseki::net {
namespace {

// PieceType's order from PAWN to DRAGON is the site's occupancy order (P L N S B R G K, then the
// promoted types), so a type's plane is pt - 1.
static_assert(PAWN == 1 && BISHOP == 5 && GOLD == 7 && KING == 8 && DRAGON == 14);

void fill(float* plane, float value) { std::fill(plane, plane + kPlaneSize, value); }

// One side's 31 input1 planes, squares seen from `us`.
void side_planes(const Position& pos, Color side, Color us, float* out) {
  const Variant& v = pos.variant();
  const Bitboard occupied = pos.pieces();
  uint8_t count[SQ_MAX] = {};
  for (Bitboard b = pos.pieces(side); b;) {
    const Square sq = pop_lsb(b);
    const PieceType pt = type_of(pos.piece_on(sq));
    if (pt < PAWN || pt > DRAGON) continue;
    const int t = pt - 1;
    out[t * kPlaneSize + view_square(us, sq)] = 1.0f;
    for (Bitboard a = v.attacks(side, pt, sq, occupied); a;) {
      const Square to = pop_lsb(a);
      const Square view = view_square(us, to);
      out[(kSiteAttackPlanes + t) * kPlaneSize + view] = 1.0f;
      ++count[view];
    }
  }
  for (int sq = 0; sq < SQ_MAX; ++sq)
    for (int k = 0; k < kSiteMaxAttackCount && k < count[sq]; ++k)
      out[(kSiteCountPlanes + k) * kPlaneSize + sq] = 1.0f;
}

// One side's 28 hand thermometer planes.
void hand_planes(const Position& pos, Color side, float* out) {
  int plane = 0;
  for (int k = 0; k < kSiteHandKinds; ++k) {
    const int n = std::min(pos.hand(side, kSiteHandTypes[k]), kSiteHandCaps[k]);
    for (int i = 0; i < n; ++i) fill(out + (plane + i) * kPlaneSize, 1.0f);
    plane += kSiteHandCaps[k];
  }
}

}  // namespace

void encode_site(const Position& pos, float* input1, float* input2) {
  std::memset(input1, 0, sizeof(float) * kSitePlanes1 * kPlaneSize);
  std::memset(input2, 0, sizeof(float) * kSitePlanes2 * kPlaneSize);
  const Color us = pos.side_to_move(), them = ~us;
  side_planes(pos, us, us, input1);
  side_planes(pos, them, us, input1 + kSiteSidePlanes1 * kPlaneSize);
  hand_planes(pos, us, input2);
  hand_planes(pos, them, input2 + kSiteSideHandPlanes * kPlaneSize);
  if (!pos.in_placement() && pos.checkers()) fill(input2 + kSiteCheckPlane * kPlaneSize, 1.0f);
  if (pos.king_square(us) == SQ_NONE) fill(input2 + kSiteOwnKingInHandPlane * kPlaneSize, 1.0f);
  if (pos.king_square(them) == SQ_NONE) fill(input2 + kSiteOppKingInHandPlane * kPlaneSize, 1.0f);
}

int site_label(Color mover, Move m) {
  if (!is_drop(m)) return -1;
  const int kind = kind_index(dropped_type(m));
  const Square to = move_to(m);
  if (kind < 0 || is_promoted(dropped_type(m)) || to < 0 || to >= SQ_MAX) return -1;
  return kind * kPlaneSize + view_square(mover, to);
}

int site_label_of_index(int index) {
  if (index < 0 || index >= kPolicySize) return -1;
  const int kind = index / kCampSquares, camp = index % kCampSquares;
  const int view_rank = kFirstCampRank + camp / kBoardFiles, view_file = camp % kBoardFiles;
  return kind * kPlaneSize + make_square(view_file, view_rank);
}

int index_of_site_label(int label) {
  if (label < 0 || label >= kSitePolicySize) return -1;
  const int slot = label / kPlaneSize;
  const Square view = label % kPlaneSize;
  if (rank_of(view) < kFirstCampRank) return -1;
  return slot * kCampSquares + (rank_of(view) - kFirstCampRank) * kBoardFiles + file_of(view);
}

}  // namespace fuseki::net
