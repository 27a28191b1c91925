// The site's input features and labels (net/site_features.h) on hand-built placement positions:
// every plane group checked against what the description says it holds, squares worked out by
// hand in the mover's frame.
#include "net/site_features.h"

#include <gtest/gtest.h>

#include <vector>

#include "net/encode.h"
#include "rules/record.h"

using namespace fuseki;
using namespace fuseki::net;

namespace {

Position after(RuleSet r, const char* moves) {
  Position pos = Position::start(r);
  play_record(pos, moves);
  return pos;
}

struct Features {
  std::vector<float> in1 = std::vector<float>(kSitePlanes1 * kPlaneSize),
                     in2 = std::vector<float>(kSitePlanes2 * kPlaneSize);
  explicit Features(const Position& pos) { encode_site(pos, in1.data(), in2.data()); }
  // input1 plane of `side` (0 mover, 1 opponent) at (file 1..9, rank 'a'..'i'), mover's frame.
  float at1(int side, int plane, int file, char rank) const {
    return in1[size_t((side * kSiteSidePlanes1 + plane) * kPlaneSize + (file - 1) * 9 +
                      (rank - 'a'))];
  }
  // The squares set in an input1 plane, as "5i" strings in the mover's frame.
  std::vector<std::string> set1(int side, int plane) const {
    std::vector<std::string> out;
    for (int sq = 0; sq < 81; ++sq)
      if (in1[size_t((side * kSiteSidePlanes1 + plane) * kPlaneSize + sq)] != 0)
        out.push_back(std::to_string(sq / 9 + 1) + char('a' + sq % 9));
    return out;
  }
  bool whole2(int plane, float value) const {
    for (int i = 0; i < kPlaneSize; ++i)
      if (in2[size_t(plane * kPlaneSize + i)] != value) return false;
    return true;
  }
};

Move drop(PieceType pt, int file, char rank) {
  return make_drop(pt, make_square(file - 1, rank - 'a'));
}

constexpr int kPawn = 0, kLance = 1, kBishop = 4, kRook = 5, kGold = 6, kKing = 7;

}  // namespace

TEST(SiteFeatures, OccupancyAndTheGoteTurn) {
  // Fuseki: Sente K*5i, then Gote to move sees it turned 180 degrees at 5a, as the opponent's.
  Position pos = after(RuleSet::Fuseki, "K*5i");
  Features f(pos);
  EXPECT_EQ(f.set1(1, kKing), std::vector<std::string>{"5a"});
  EXPECT_TRUE(f.set1(0, kKing).empty());
  // Gote K*2b is its own king at 8h in its frame; Sente to move sees Sente's at 5i, Gote's at 2b.
  pos = after(RuleSet::Fuseki, "K*5i K*2b");
  Features s(pos);
  EXPECT_EQ(s.set1(0, kKing), std::vector<std::string>{"5i"});
  EXPECT_EQ(s.set1(1, kKing), std::vector<std::string>{"2b"});
  pos = after(RuleSet::Fuseki, "K*5i K*2b G*4h");
  Features g(pos);
  EXPECT_EQ(g.set1(0, kKing), std::vector<std::string>{"8h"});
  EXPECT_EQ(g.set1(1, kKing), std::vector<std::string>{"5a"});
  EXPECT_EQ(g.set1(1, kGold), std::vector<std::string>{"6b"});
  // Nothing promoted stands in placement: planes 8-13 are empty for both sides.
  for (int side = 0; side < 2; ++side)
    for (int t = 8; t < 14; ++t) EXPECT_TRUE(g.set1(side, t).empty()) << side << " " << t;
}

TEST(SiteFeatures, AttacksStopAtTheFirstPieceAndAreCounted) {
  // Sente: rook 2h, pawn 2f (blocks the rook's file upward), gold 3h (blocks the rank leftward).
  Position pos = after(RuleSet::Fuseki, "R*2h P*1c P*2f P*9c G*3h P*8c");
  ASSERT_EQ(pos.side_to_move(), BLACK);
  Features f(pos);
  EXPECT_EQ(f.set1(0, kRook), std::vector<std::string>{"2h"});
  // The rook: 2g, 2f (the pawn, attacked), not 2e; 2i; 1h; 3h (the gold), not 4h.
  EXPECT_EQ(f.set1(0, 14 + kRook), (std::vector<std::string>{"1h", "2f", "2g", "2i", "3h"}));
  // The pawn attacks 2e; the gold (Sente's) 2g 3g 4g 2h 4h 3i.
  EXPECT_EQ(f.set1(0, 14 + kPawn), std::vector<std::string>{"2e"});
  EXPECT_EQ(f.set1(0, 14 + kGold), (std::vector<std::string>{"2g", "2h", "3g", "3i", "4g", "4h"}));
  // Counts: 2g by rook and gold (>= 2), 3h by the rook only, 2h by the gold only.
  EXPECT_EQ(f.at1(0, 28, 2, 'g'), 1.0f);
  EXPECT_EQ(f.at1(0, 29, 2, 'g'), 1.0f);
  EXPECT_EQ(f.at1(0, 30, 2, 'g'), 0.0f);
  EXPECT_EQ(f.at1(0, 28, 3, 'h'), 1.0f);
  EXPECT_EQ(f.at1(0, 29, 3, 'h'), 0.0f);
  EXPECT_EQ(f.at1(0, 28, 5, 'e'), 0.0f);
  // A silver at 3i attacks 2h 3h 4h: 2h (gold, silver) and 4h (gold, silver) reach two, 3h
  // (rook, silver) two, 2g stays at two (rook, gold).
  pos = after(RuleSet::Fuseki, "R*2h P*1c P*2f P*9c G*3h P*8c S*3i P*7c");
  Features t(pos);
  EXPECT_EQ(t.at1(0, 29, 2, 'h'), 1.0f);
  EXPECT_EQ(t.at1(0, 29, 4, 'h'), 1.0f);
  EXPECT_EQ(t.at1(0, 30, 3, 'h'), 0.0f);
  EXPECT_EQ(t.at1(0, 29, 2, 'g'), 1.0f);
  EXPECT_EQ(t.at1(0, 30, 2, 'g'), 0.0f);
  // A lance at 2i is stopped by the rook at once (it attacks 2h only): 2h has gold, silver and
  // lance, three.
  pos = after(RuleSet::Fuseki, "R*2h P*1c P*2f P*9c G*3h P*8c S*3i P*7c L*2i P*6c");
  Features u(pos);
  EXPECT_EQ(u.set1(0, 14 + kLance), std::vector<std::string>{"2h"});
  EXPECT_EQ(u.at1(0, 30, 2, 'h'), 1.0f);
  // The opponent's planes are its own: Gote's pawns at 1c 9c 8c 7c 6c attack (Gote moving down)
  // 1d 9d 8d 7d 6d, and no bishop stands anywhere.
  EXPECT_EQ(u.set1(1, 14 + kPawn), (std::vector<std::string>{"1d", "6d", "7d", "8d", "9d"}));
  EXPECT_TRUE(u.set1(1, kBishop).empty());
}

TEST(SiteFeatures, GoteSeesItsAttacksTurned) {
  // Gote to move, its lance at 1a: in its frame the lance stands at 9i and, file 1 being empty,
  // attacks the whole file up to 9a.
  Position pos = after(RuleSet::Fuseki, "P*5g L*1a P*4g");
  ASSERT_EQ(pos.side_to_move(), WHITE);
  Features f(pos);
  EXPECT_EQ(f.set1(0, kLance), std::vector<std::string>{"9i"});
  std::vector<std::string> file9;
  for (char r = 'a'; r <= 'h'; ++r) file9.push_back(std::string("9") + r);
  EXPECT_EQ(f.set1(0, 14 + kLance), file9);
  // Sente's pawns at 5g and 4g are the opponent's, at 5c and 6c, attacking 5d and 6d.
  EXPECT_EQ(f.set1(1, kPawn), (std::vector<std::string>{"5c", "6c"}));
  EXPECT_EQ(f.set1(1, 14 + kPawn), (std::vector<std::string>{"5d", "6d"}));
}

TEST(SiteFeatures, HandThermometersAndKingsInHand) {
  // At the start each side holds P9 L2 N2 S2 G2 B1 R1 K1: pawns capped at 8 planes.
  Position pos = Position::start(RuleSet::Fuseki);
  Features f(pos);
  const int expected[28] = {1, 1, 1, 1, 1, 1, 1, 1,  // P: 8 of 8
                            1, 1, 0, 0,              // L: 2 of 4
                            1, 1, 0, 0,              // N
                            1, 1, 0, 0,              // S
                            1, 1, 0, 0,              // G
                            1, 0,                    // B: 1 of 2
                            1, 0};                   // R
  for (int side = 0; side < 2; ++side)
    for (int p = 0; p < 28; ++p)
      EXPECT_TRUE(f.whole2(side * 28 + p, float(expected[p]))) << side << " " << p;
  EXPECT_TRUE(f.whole2(kSiteCheckPlane, 0.0f));
  EXPECT_TRUE(f.whole2(kSiteOwnKingInHandPlane, 1.0f));
  EXPECT_TRUE(f.whole2(kSiteOppKingInHandPlane, 1.0f));
  // Sente drops a pawn and its king: Gote to move; Sente (the opponent) holds 8 pawns, no king.
  pos = after(RuleSet::Fuseki, "P*1g P*1c K*5i");
  Features g(pos);
  ASSERT_EQ(pos.side_to_move(), WHITE);
  for (int p = 0; p < 8; ++p) EXPECT_TRUE(g.whole2(p, 1.0f)) << p;       // Gote: 8 pawns left
  for (int p = 0; p < 8; ++p) EXPECT_TRUE(g.whole2(28 + p, 1.0f)) << p;  // Sente: 8 left
  pos = after(RuleSet::Fuseki, "P*1g P*1c P*2g P*2c");
  Features h(pos);  // 7 pawns each: the 8th plane is 0
  EXPECT_TRUE(h.whole2(6, 1.0f));
  EXPECT_TRUE(h.whole2(7, 0.0f));
  EXPECT_TRUE(h.whole2(28 + 7, 0.0f));
  Features k(after(RuleSet::Fuseki, "K*5i P*1c"));  // Sente to move, its king on the board
  EXPECT_TRUE(k.whole2(kSiteOwnKingInHandPlane, 0.0f));
  EXPECT_TRUE(k.whole2(kSiteOppKingInHandPlane, 1.0f));
}

TEST(SiteFeatures, LabelsAndTheNativeIndexAgree) {
  // The description's example: Sente K*5i and Gote K*5a are both label 611.
  EXPECT_EQ(site_label(BLACK, drop(KING, 5, 'i')), 611);
  EXPECT_EQ(site_label(WHITE, drop(KING, 5, 'a')), 611);
  EXPECT_EQ(site_label(BLACK, drop(PAWN, 1, 'f')), 0 * 81 + 5);
  EXPECT_EQ(site_label(WHITE, drop(ROOK, 9, 'd')), 6 * 81 + 80 - (8 * 9 + 3));
  // Every native index maps to a label in the mover's camp and back, and a drop's label is its
  // native index's label for both movers.
  std::vector<bool> seen(kSitePolicySize);
  for (int i = 0; i < kPolicySize; ++i) {
    int label = site_label_of_index(i);
    ASSERT_GE(label, 0);
    EXPECT_GE(label % 81 % 9, 5) << i;  // rank f..i in the mover's frame
    EXPECT_FALSE(seen[size_t(label)]);
    seen[size_t(label)] = true;
    EXPECT_EQ(index_of_site_label(label), i);
    for (Color c : {BLACK, WHITE}) EXPECT_EQ(site_label(c, policy_move(c, i)), label) << i;
  }
  EXPECT_EQ(index_of_site_label(7 * 81 + 36), -1);  // 5a: outside the mover's camp
}
