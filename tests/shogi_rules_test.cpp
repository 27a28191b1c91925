// Ordinary shogi from move 41: promotion, forced promotion, dead drops, nifu, pawn-drop mate,
// captures to hand, and make/undo with incremental keys.
#include <gtest/gtest.h>

#include "rules/record.h"
#include "rules/rng.h"
#include "tests/test_util.h"

using namespace fuseki;
using fuseki::testing::at;
using fuseki::testing::legal_moves;

TEST(Promotion, ForcedWhereThePieceCouldNeverMoveAgain) {
  auto moves = legal_moves(at(RuleSet::Shogi, "4k4/7P1/9/6N2/L8/9/9/9/4K4 b - 1"));
  EXPECT_TRUE(moves.count("2b2a+"));
  EXPECT_FALSE(moves.count("2b2a"));
  EXPECT_TRUE(moves.count("3d4b+"));
  EXPECT_FALSE(moves.count("3d4b"));
  EXPECT_TRUE(moves.count("9e9c+"));
  EXPECT_TRUE(moves.count("9e9c"));  // optional on rank c
  EXPECT_TRUE(moves.count("9e9a+"));
  EXPECT_FALSE(moves.count("9e9a"));
  EXPECT_FALSE(moves.count("9e9d+"));  // outside the zone
}

TEST(Promotion, OptionalIntoWithinAndOutOfTheZone) {
  auto moves = legal_moves(at(RuleSet::Shogi, "4k4/9/2S6/9/9/9/9/9/4K4 b - 1"));
  EXPECT_TRUE(moves.count("7c6d+"));  // out of the zone
  EXPECT_TRUE(moves.count("7c6d"));
  EXPECT_TRUE(moves.count("7c7b+"));  // within
  EXPECT_TRUE(moves.count("7c7b"));
}

TEST(Drops, NoDeadDrops) {
  auto moves = legal_moves(at(RuleSet::Shogi, "4k4/9/9/9/9/9/9/9/4K4 b PLN 1"));
  EXPECT_FALSE(moves.count("P*1a"));
  EXPECT_FALSE(moves.count("L*1a"));
  EXPECT_FALSE(moves.count("N*1a"));
  EXPECT_FALSE(moves.count("N*1b"));
  EXPECT_TRUE(moves.count("N*1c"));
  EXPECT_TRUE(moves.count("P*1b"));
  EXPECT_TRUE(moves.count("L*1b"));
}

TEST(Drops, NifuButATokinDoesNotCount) {
  auto moves = legal_moves(at(RuleSet::Shogi, "4k4/9/9/9/9/9/4P4/9/3K5 b P 1"));
  EXPECT_FALSE(moves.count("P*5e"));
  EXPECT_TRUE(moves.count("P*4e"));
  auto tokin = legal_moves(at(RuleSet::Shogi, "4k4/9/9/9/9/9/4+P4/9/3K5 b P 1"));
  EXPECT_TRUE(tokin.count("P*5e"));
}

TEST(Drops, NoKingInHandAfterPlacement) {
  EXPECT_THROW(at(RuleSet::Shogi, "4k4/9/9/9/9/9/9/9/4K4 b K 1"), RulesError);
}

TEST(PawnDropMate, DropMateIllegalPushMateLegal) {
  auto drop = legal_moves(at(RuleSet::Shogi, "8k/6S2/7G1/9/9/9/9/9/K8 b P 1"));
  EXPECT_FALSE(drop.count("P*1b"));
  EXPECT_TRUE(drop.count("P*1c"));
  auto push = legal_moves(at(RuleSet::Shogi, "8k/6S2/7GP/9/9/9/9/9/K8 b - 1"));
  EXPECT_TRUE(push.count("1c1b"));
  Position pos = at(RuleSet::Shogi, "8k/6S2/7GP/9/9/9/9/9/K8 b - 1");
  play_record(pos, "1c1b");
  EXPECT_EQ(count_legal(pos), 0);  // mate by a pushed pawn
}

TEST(PawnDropMate, NotMateWhenThePawnCanBeTaken) {
  // Gote's gold on 2b takes the pawn: the drop is legal.
  auto moves = legal_moves(at(RuleSet::Shogi, "8k/6Sg1/7G1/9/9/9/9/9/K8 b P 1"));
  EXPECT_TRUE(moves.count("P*1b"));
}

TEST(PawnDropMate, APinnedDefenderCannotTake) {
  // Gote's gold on 2a could take on 1b but is pinned along rank a by the rook: the drop is mate.
  auto moves = legal_moves(at(RuleSet::Shogi, "4R2gk/9/7G1/9/9/9/9/9/K8 b P 1"));
  EXPECT_FALSE(moves.count("P*1b"));
}

TEST(Captures, GoToHandDemoted) {
  Position pos = at(RuleSet::Shogi, "4k4/9/9/9/9/9/9/4+p4/4K4 b - 1");
  play_record(pos, "5i5h");
  EXPECT_EQ(pos.hand(BLACK, PAWN), 1);
  EXPECT_EQ(pos.sfen(), "4k4/9/9/9/9/9/9/4K4/9 w P 2");
}

TEST(Check, DoubleCheckAllowsOnlyKingMoves) {
  auto moves = legal_moves(at(RuleSet::Shogi, "4k4/9/9/9/4r4/9/2b6/9/4K3R b G 1"));
  for (const auto& m : moves) EXPECT_EQ(m.substr(0, 2), "5i") << m;
}

TEST(Check, PinnedPieceMovesOnlyAlongThePin) {
  auto moves = legal_moves(at(RuleSet::Shogi, "4k4/9/9/9/4r4/9/4G4/9/4K4 b - 1"));
  for (const auto& m : moves) {
    if (m.substr(0, 2) == "5g") {
      EXPECT_EQ(m[2], '5') << m;
    }
  }
  EXPECT_TRUE(moves.count("5g5f"));
  EXPECT_FALSE(moves.count("5g4f"));
}

namespace {
// Random legal games: keys and SFENs must survive every make/undo and a round trip.
void random_walk(RuleSet r, uint64_t seed, int max_plies) {
  Rng rng(seed);
  Position pos = Position::start(r);
  std::vector<Move> played;
  std::vector<std::string> sfens;
  for (int i = 0; i < max_plies; ++i) {
    MoveList list;
    generate_legal(pos, list);
    if (!list.size) break;
    sfens.push_back(pos.sfen());
    Position copy = Position::from_sfen(pos.sfen(), r);
    ASSERT_EQ(copy.key(), pos.key()) << pos.sfen();
    ASSERT_EQ(copy.sfen(), pos.sfen());
    Move m = list.moves[rng.below(uint32_t(list.size))];
    pos.do_move(m);
    played.push_back(m);
  }
  for (size_t i = played.size(); i-- > 0;) {
    pos.undo_move(played[i]);
    ASSERT_EQ(pos.sfen(), sfens[i]);
  }
}
}  // namespace

TEST(MakeUndo, RandomGamesKeepKeysAndSfenConsistent) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    random_walk(RuleSet::Shogi, seed, 200);
    random_walk(RuleSet::Balance, seed, 160);
    random_walk(RuleSet::Fuseki, seed, 120);
  }
}

TEST(Keys, SideHandsAndBoardAllCount) {
  Position a = at(RuleSet::Shogi, "4k4/9/9/9/9/9/9/9/4K4 b P 1");
  Position b = at(RuleSet::Shogi, "4k4/9/9/9/9/9/9/9/4K4 w P 1");
  Position c = at(RuleSet::Shogi, "4k4/9/9/9/9/9/9/9/4K4 b p 1");
  Position d = at(RuleSet::Shogi, "4k4/9/9/9/9/9/9/9/4K4 b 2P 1");
  EXPECT_NE(a.key(), b.key());
  EXPECT_NE(a.key(), c.key());
  EXPECT_NE(a.key(), d.key());
}
