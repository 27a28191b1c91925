// The fusekishogi.com front end's network format (../shared/docs/site-format.md), written from
// its description: the dlshogi-style input features and the 648-way drop label space. No
// LibTorch: self-play, tests and the ONNX tools use it without the network.
//
// Frame: the side to move. For Gote the colours are swapped and every square turned 180 degrees
// (sq' = 80 - sq), so the mover's camp is always rank index 5..8. A plane is 81 floats indexed
// by the square, sq = (file - 1) * 9 + (rank - 1): tensor dimension 2 is the file (1..9),
// dimension 3 the rank (a..i) -- the transpose of the native planes' [rank][file].
#pragma once

#include <cstdint>

#include "net/encode.h"
#include "rules/position.h"

namespace fuseki::net {

// input1: per side (mover first, then opponent) 31 planes: occupancy by type (kSiteTypes
// order), the squares each type attacks (sliders stop at the first piece, which they attack),
// and the squares attacked by at least 1, 2 and 3 of the side's pieces.
constexpr int kSiteTypeCount = 14;
constexpr PieceType kSiteTypes[kSiteTypeCount] = {
    PAWN, LANCE,    KNIGHT,    SILVER,     BISHOP,     ROOK,  GOLD,
    KING, PRO_PAWN, PRO_LANCE, PRO_KNIGHT, PRO_SILVER, HORSE, DRAGON};
constexpr int kSiteAttackPlanes = kSiteTypeCount;     // offset of the attack planes in a side
constexpr int kSiteCountPlanes = 2 * kSiteTypeCount;  // offset of the >= 1, 2, 3 planes
constexpr int kSiteMaxAttackCount = 3;
constexpr int kSiteSidePlanes1 = 2 * kSiteTypeCount + kSiteMaxAttackCount;  // 31
constexpr int kSitePlanes1 = 2 * kSiteSidePlanes1;                          // 62

// input2, whole planes: per side (mover first) its pieces not yet dropped as thermometers, P L N
// S G B R with 8 4 4 4 4 2 2 planes (a count n sets the first min(n, cap) planes to 1); then
// "in check" (0 during placement); then the mover's and the opponent's king still in hand.
constexpr int kSiteHandKinds = 7;
constexpr PieceType kSiteHandTypes[kSiteHandKinds] = {PAWN, LANCE,  KNIGHT, SILVER,
                                                      GOLD, BISHOP, ROOK};
constexpr int kSiteHandCaps[kSiteHandKinds] = {8, 4, 4, 4, 4, 2, 2};
constexpr int kSiteSideHandPlanes = 28;
constexpr int kSiteCheckPlane = 2 * kSiteSideHandPlanes;  // 56
constexpr int kSiteOwnKingInHandPlane = kSiteCheckPlane + 1;
constexpr int kSiteOppKingInHandPlane = kSiteCheckPlane + 2;
constexpr int kSitePlanes2 = kSiteCheckPlane + 3;  // 59

constexpr int kSiteInputPlanes = kSitePlanes1 + kSitePlanes2;  // 121: input1 then input2
constexpr int kSiteInputSize = kSiteInputPlanes * kPlaneSize;

// Labels: slot * 81 + sq' (mover's frame), slots P L N S G B R K -- the native kinds' order.
constexpr int kSiteSlots = 8;
constexpr int kSitePolicySize = kSiteSlots * kPlaneSize;  // 648

// Writes kSitePlanes1 planes to input1 and kSitePlanes2 to input2 (each plane 81 floats).
void encode_site(const Position& pos, float* input1, float* input2);
// The same, input1 and input2 one after the other (kSiteInputSize floats).
inline void encode_site(const Position& pos, float* planes) {
  encode_site(pos, planes, planes + kSitePlanes1 * kPlaneSize);
}

// The site label of a drop by `mover`; -1 for a board move or a promoted or unknown type.
int site_label(Color mover, Move m);
// The site label of a native policy index (net/encode.h: kind * 36 + camp square), and back
// (-1 for a label outside the mover's camp: never a legal drop in placement).
int site_label_of_index(int index);
int index_of_site_label(int label);

}  // namespace fuseki::net
