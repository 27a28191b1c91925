// The placement phase (plies 1-40): drop zone, nifu, the file-fill ban, Balance kings, Nihikyo,
// the move-40 restriction and the move-41 ruling, with the vectors of rules.md.
#include <gtest/gtest.h>

#include "rules/record.h"
#include "rules/rng.h"
#include "tests/test_util.h"

using namespace fuseki;
using fuseki::testing::at;
using fuseki::testing::legal_moves;

namespace {
Position after(RuleSet r, const char* moves) {
  Position pos = Position::start(r);
  play_record(pos, moves);
  return pos;
}
}  // namespace

TEST(BalanceKings, Ply1IsSentesKingInSentesCamp) {
  auto moves = legal_moves(Position::start(RuleSet::Balance));
  ASSERT_EQ(moves.size(), 36u);
  for (const auto& m : moves) {
    EXPECT_EQ(m.substr(0, 2), "K*");
    EXPECT_GE(m[3], 'f');
  }
}

TEST(BalanceKings, Ply2IsGotesKingInGotesCamp) {
  auto moves = legal_moves(after(RuleSet::Balance, "K*5i"));
  ASSERT_EQ(moves.size(), 36u);
  for (const auto& m : moves) {
    EXPECT_EQ(m.substr(0, 2), "K*");
    EXPECT_LE(m[3], 'd');
  }
}

TEST(BalanceKings, NoKingDropAfterPly2AndRankENeverATarget) {
  auto moves = legal_moves(after(RuleSet::Balance, "K*5i K*5a"));
  EXPECT_EQ(moves.size(), 245u);  // 7 piece types x 35 empty camp squares
  for (const auto& m : moves) {
    EXPECT_NE(m[0], 'K');
    EXPECT_GE(m[3], 'f');
  }
}

TEST(FusekiDropZone, GoteDropsIntoRanksAToD) {
  auto moves = legal_moves(after(RuleSet::Fuseki, "P*7f"));
  EXPECT_EQ(moves.size(), 288u);
  for (const auto& m : moves) EXPECT_LE(m[3], 'd');
}

TEST(PlacementNifu, NoSecondOwnPawnOnAFileButTheOpponentsDoesNotCount) {
  Position pos = after(RuleSet::Balance, "K*5i K*5a choose:sente P*7g");
  EXPECT_TRUE(legal_moves(pos).count("P*7c"));  // Sente's pawn on file 7 does not bind Gote
  play_record(pos, "P*7c");
  auto moves = legal_moves(pos);
  EXPECT_FALSE(moves.count("P*7f"));
  EXPECT_FALSE(moves.count("P*7h"));
  EXPECT_TRUE(moves.count("P*6g"));
  EXPECT_TRUE(moves.count("G*7f"));
}

TEST(FileFillBan, FourthOwnNonPawnOnAFileIsIllegalAPawnIsNot) {
  // File 9 of Sente's camp holds K, L, S: the last square takes only a pawn.
  Position pos = after(RuleSet::Balance, "K*9i K*5a choose:sente L*9h P*1c S*9g P*2c");
  auto moves = legal_moves(pos);
  EXPECT_TRUE(moves.count("P*9f"));
  for (const char* m : {"G*9f", "N*9f", "B*9f", "R*9f", "S*9f", "L*9f"})
    EXPECT_FALSE(moves.count(m)) << m;
  EXPECT_TRUE(moves.count("G*8f"));
}

TEST(FileFillBan, KingIncludedInFuseki) {
  Position pos = after(RuleSet::Fuseki, "L*9i P*1c S*9h P*2c G*9g P*3c");
  auto moves = legal_moves(pos);
  EXPECT_FALSE(moves.count("K*9f"));
  EXPECT_TRUE(moves.count("K*8f"));
  EXPECT_TRUE(moves.count("P*9f"));
}

TEST(FileFillBan, GotesFilesToo) {
  Position pos = after(RuleSet::Balance, "K*5i K*9a choose:sente P*1g L*9b P*2g G*9c P*3g");
  auto moves = legal_moves(pos);
  EXPECT_FALSE(moves.count("S*9d"));
  EXPECT_TRUE(moves.count("P*9d"));
}

TEST(Nihikyo, NoRookOrLanceOnAFileWithOwnRookOrLance) {
  Position pos = after(RuleSet::Balance, "K*5i K*5a choose:sente L*9i L*1a");
  auto moves = legal_moves(pos);
  EXPECT_FALSE(moves.count("L*9h"));
  EXPECT_FALSE(moves.count("R*9h"));
  EXPECT_TRUE(moves.count("G*9h"));
  EXPECT_TRUE(moves.count("R*1i"));  // Gote's lance on file 1 does not count
  EXPECT_TRUE(moves.count("L*8h"));
}

TEST(Nihikyo, RookThenLance) {
  Position pos = after(RuleSet::Balance, "K*5i K*5a choose:sente R*8h P*1c");
  auto moves = legal_moves(pos);
  EXPECT_FALSE(moves.count("L*8g"));
  EXPECT_FALSE(moves.count("L*8i"));
  EXPECT_TRUE(moves.count("L*7i"));
}

TEST(Nihikyo, NotInBalanceV1OrFuseki) {
  EXPECT_TRUE(
      legal_moves(after(RuleSet::BalanceV1, "K*5i K*5a choose:sente L*9i L*1a")).count("L*9h"));
  EXPECT_TRUE(legal_moves(after(RuleSet::Fuseki, "L*9i L*1a")).count("L*9h"));
}

// rules.md vectors: Gote to make its 40th drop.
TEST(Move40Restriction, OnlyTheBlocksRemain) {
  for (RuleSet r : {RuleSet::Fuseki, RuleSet::BalanceV1, RuleSet::Balance}) {
    auto moves = legal_moves(at(r, "lnsbpgsnl/ppppkpppp/r8/9/9/4R4/PPPPPPPPP/8B/LNSGKGSNL w g 1"));
    EXPECT_EQ(moves, (std::set<std::string>{"G*5c", "G*5d"}));
  }
}

TEST(Move40Restriction, NoBlockLeftMeansEveryDropAndThenTheRuling) {
  Position pos = at(RuleSet::Fuseki, "lnsbpgsnl/ppppkpppp/r8/9/9/4R3B/PPPPPPPPP/9/LNSGKGSNL w g 1");
  MoveList list;
  generate_legal(pos, list);
  ASSERT_EQ(list.size, 17);
  for (Move m : list) {
    pos.do_move(m);
    EXPECT_TRUE(pos.ruling41());
    EXPECT_EQ(count_legal(pos), 0);
    pos.undo_move(m);
  }
}

TEST(Move40Restriction, NihikyoIsNeverLifted) {
  const char* sfen = "gnsbpgsn1/pppplpppp/r3k4/9/9/4R4/PPPPPPPPP/8B/LNSGKGSNL w l 1";
  auto balance = legal_moves(at(RuleSet::Balance, sfen));
  EXPECT_EQ(balance.size(), 15u);
  EXPECT_FALSE(balance.count("L*5d"));
  EXPECT_FALSE(balance.count("L*9d"));
  for (RuleSet r : {RuleSet::Fuseki, RuleSet::BalanceV1})
    EXPECT_EQ(legal_moves(at(r, sfen)), (std::set<std::string>{"L*5d"}));
  Position pos = at(RuleSet::Balance, sfen);
  play_record(pos, "L*4d");
  EXPECT_TRUE(pos.ruling41());
}

TEST(Move40Restriction, FusekiLastPieceIsTheKingOnAnUnattackedSquare) {
  auto moves = legal_moves(
      at(RuleSet::Fuseki, "lnsbpgsnl/ppppgpppp/r8/9/9/4R4/PPPPPPPPP/8B/LNSGKGSNL w k 1"));
  EXPECT_EQ(moves.size(), 15u);
  EXPECT_FALSE(moves.count("K*5c"));
  EXPECT_FALSE(moves.count("K*5d"));
  EXPECT_TRUE(moves.count("K*4c"));
}

TEST(Move41Ruling, DecidedBeforeAnyOtherCheck) {
  Position pos =
      at(RuleSet::Balance, "lnsbpgsnl/ppppkpppp/r8/9/9/4R4/PPPPPPPPP/8B/LNSGKGSNL w g 1");
  play_record(pos, "G*5c");
  EXPECT_FALSE(pos.ruling41());
  EXPECT_FALSE(pos.in_placement());
  EXPECT_EQ(pos.ply(), 40);
  EXPECT_GT(count_legal(pos), 0);
}

TEST(Move41Ruling, CertainOnceASenteKnightAttacksGotesKing) {
  for (RuleSet r : {RuleSet::Fuseki, RuleSet::BalanceV1, RuleSet::Balance}) {
    Position pos = after(r, "K*5i K*5d");
    EXPECT_FALSE(pos.ruling41_certain());
    Position lance = pos;
    play_record(lance, "L*5f");  // attacks the king through rank e, but Gote may still block
    EXPECT_TRUE(lance.king_attacked(WHITE));
    EXPECT_FALSE(lance.ruling41_certain());
    play_record(pos, "N*4f");  // 4f steps to 5d and 3d
    EXPECT_TRUE(pos.ruling41_certain());
    // Whatever both sides drop after it, the move-41 ruling decides the game.
    for (uint64_t seed = 1; seed <= 100; ++seed) {
      Rng rng(seed);
      Position p = pos;
      while (p.in_placement()) {
        EXPECT_TRUE(p.ruling41_certain());
        MoveList list;
        generate_legal(p, list);
        ASSERT_GT(list.size, 0) << p.sfen();
        p.do_move(list.moves[rng.below(uint32_t(list.size))]);
      }
      EXPECT_TRUE(p.ruling41()) << p.sfen();
      EXPECT_TRUE(p.ruling41_certain());
    }
  }
  // Gote's king dropped into a knight's reach (Fuseki: kings whenever) is as lost.
  EXPECT_TRUE(after(RuleSet::Fuseki, "N*4f K*5d").ruling41_certain());
  EXPECT_FALSE(after(RuleSet::Fuseki, "N*4f K*6d").ruling41_certain());
  // After move 41 nothing is certain any more: the ruling belongs to ply 40.
  EXPECT_FALSE(
      at(RuleSet::Balance, "lnsgkgsnl/4p2b1/pppp1pppp/4r4/9/4K4/PPPPPPPPP/1B5R1/LNSG1GSNL b - 41")
          .ruling41_certain());
}

TEST(AfterPly40, SentesKingAttackedIsOrdinaryCheck) {
  Position pos =
      at(RuleSet::Balance, "lnsgkgsnl/4p2b1/pppp1pppp/4r4/9/4K4/PPPPPPPPP/1B5R1/LNSG1GSNL b - 41");
  EXPECT_FALSE(pos.ruling41());
  EXPECT_TRUE(pos.checkers());
  auto moves = legal_moves(pos);
  EXPECT_EQ(moves, (std::set<std::string>{"5f4e", "5f6e", "5f4f", "5f6f"}));
}

TEST(AfterPly40, NoLegalMoveAtMove41) {
  EXPECT_EQ(count_legal(at(RuleSet::Balance,
                           "kpppppppp/plssrl2b/ggn3n2/9/9/3GKG3/3SPS3/LNB3RNL/PPPP1PPPP b - 41")),
            0);
}

TEST(Placement, RandomGamesAlwaysKeepALegalDrop) {
  for (RuleSet r : {RuleSet::Fuseki, RuleSet::BalanceV1, RuleSet::Balance})
    for (uint64_t seed = 1; seed <= 300; ++seed) {
      Rng rng(seed);
      Position pos = Position::start(r);
      while (pos.in_placement()) {
        MoveList list;
        generate_legal(pos, list);
        ASSERT_GT(list.size, 0) << pos.sfen();
        ASSERT_EQ(list.size, count_legal(pos));
        pos.do_move(list.moves[rng.below(uint32_t(list.size))]);
      }
      EXPECT_EQ(pos.ply(), 40);
      EXPECT_TRUE(pos.hand_empty(BLACK) && pos.hand_empty(WHITE));
    }
}
