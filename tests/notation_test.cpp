// SFEN and record input: round trips, and one clear error naming the bad token or field.
#include <gtest/gtest.h>

#include "rules/record.h"
#include "tests/test_util.h"

using namespace fuseki;

namespace {
// The SFEN is rejected and the message contains `what`.
void expect_bad_sfen(RuleSet r, const std::string& sfen, const std::string& what) {
  try {
    Position::from_sfen(sfen, r);
    ADD_FAILURE() << "accepted: " << sfen;
  } catch (const RulesError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos)
        << "message '" << e.what() << "' lacks '" << what << "'";
  }
}
void expect_bad_record(RuleSet r, const std::string& moves, const std::string& what) {
  Position pos = Position::start(r);
  try {
    play_record(pos, moves);
    ADD_FAILURE() << "accepted: " << moves;
  } catch (const RulesError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos)
        << "message '" << e.what() << "' lacks '" << what << "'";
  }
}
}  // namespace

TEST(Sfen, PlacementStartWritesKingsFirstInHand) {
  EXPECT_EQ(Position::start(RuleSet::Fuseki).sfen(),
            "9/9/9/9/9/9/9/9/9 b KRB2G2S2N2L9Pkrb2g2s2n2l9p 1");
}

TEST(Sfen, HandReadInAnyOrder) {
  Position a =
      Position::from_sfen("9/9/9/9/9/9/9/9/9 b 9P2L2N2SK2GBR9p2l2n2s2gbkr 1", RuleSet::Fuseki);
  EXPECT_EQ(a.sfen(), "9/9/9/9/9/9/9/9/9 b KRB2G2S2N2L9Pkrb2g2s2n2l9p 1");
}

TEST(Sfen, PlacementMoveNumberFollowsThePiecesPlaced) {
  Position pos = Position::from_sfen("lnsbpgsnl/ppppkpppp/r8/9/9/4R4/PPPPPPPPP/8B/LNSGKGSNL w g 1",
                                     RuleSet::Balance);
  EXPECT_EQ(pos.ply(), 39);
  EXPECT_EQ(pos.sfen(), "lnsbpgsnl/ppppkpppp/r8/9/9/4R4/PPPPPPPPP/8B/LNSGKGSNL w g 40");
}

TEST(Sfen, StandardAfterPly40) {
  Position pos = Position::from_sfen("lnsbpgsnl/ppppkpppp/r8/9/9/4R4/PPPPPPPPP/8B/LNSGKGSNL w g 1",
                                     RuleSet::Balance);
  play_record(pos, "G*5d");
  EXPECT_EQ(pos.sfen(), "lnsbpgsnl/ppppkpppp/r8/4g4/9/4R4/PPPPPPPPP/8B/LNSGKGSNL b - 41");
}

TEST(SfenErrors, Structure) {
  expect_bad_sfen(RuleSet::Shogi, "", "empty");
  expect_bad_sfen(RuleSet::Shogi, "9/9/9 b -", "3 ranks");
  expect_bad_sfen(RuleSet::Shogi, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL",
                  "fields");
  expect_bad_sfen(RuleSet::Shogi,
                  "lnsgkgsnl/1r5b1/pppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "rank c");
  expect_bad_sfen(RuleSet::Shogi, "lnsgkgsnl/1r5b1/pppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                  "rank c has 8");
  expect_bad_sfen(RuleSet::Shogi, "lnsgkgsnl/1r5b1/ppppxpppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                  "unknown piece 'x'");
  expect_bad_sfen(RuleSet::Shogi,
                  "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNS+GKGSNL b - 1",
                  "cannot promote");
  expect_bad_sfen(RuleSet::Shogi, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1",
                  "side to move 'x'");
  expect_bad_sfen(RuleSet::Shogi, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 2 1",
                  "ends with a count");
  expect_bad_sfen(RuleSet::Shogi, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b Q 1",
                  "unknown piece 'Q' in hand");
  expect_bad_sfen(RuleSet::Shogi, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 0",
                  "move number '0'");
  expect_bad_sfen(RuleSet::Shogi, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - x",
                  "move number 'x'");
}

TEST(SfenErrors, ImpossiblePositions) {
  expect_bad_sfen(RuleSet::Shogi, "4k4/9/9/9/9/9/9/9/9 b - 1", "Sente has no king");
  expect_bad_sfen(RuleSet::Shogi, "4k4/9/9/9/9/9/9/9/3KK4 b - 1", "two kings");
  expect_bad_sfen(RuleSet::Shogi, "4k4/9/9/9/9/4P4/4P4/9/4K4 b - 1", "nifu");
  expect_bad_sfen(RuleSet::Shogi, "P3k4/9/9/9/9/9/9/9/4K4 b - 1", "could never move");
  expect_bad_sfen(RuleSet::Shogi, "4k4/9/9/9/9/9/9/8n/4K4 b - 1", "could never move");
  expect_bad_sfen(RuleSet::Shogi, "4k4/4R4/9/9/9/9/9/9/4K4 b - 1",
                  "not to move (Gote) is in check");
}

TEST(SfenErrors, PlacementPositionsThatCannotArise) {
  // A Sente piece outside its camp during placement.
  expect_bad_sfen(RuleSet::Fuseki, "9/9/9/9/4P4/9/9/9/9 w KRB2G2S2N2L8Pkrb2g2s2n2l9p 1",
                  "outside its camp");
  // Pieces missing from board and hand.
  expect_bad_sfen(RuleSet::Fuseki, "9/9/9/9/9/9/9/9/9 b KRB2G2S2N2L8Pkrb2g2s2n2l9p 1",
                  "has 8 of 'P'");
  // Four Sente non-pawns on file 9 while a pawn is still in hand.
  expect_bad_sfen(RuleSet::Fuseki, "9/9/9/9/9/L8/S8/G8/K8 b RBGS2NL9Pkrb2g2s2n2l9p 1",
                  "file 9 holds four");
  // Sides take turns: two Sente pieces and no Gote piece cannot happen.
  expect_bad_sfen(RuleSet::Fuseki, "9/9/9/9/9/9/9/P8/PP7 b KRB2G2S2N2L6Pkrb2g2s2n2l9p 1", "nifu");
  expect_bad_sfen(RuleSet::Fuseki, "9/9/9/9/9/9/9/P8/1P7 b KRB2G2S2N2L7Pkrb2g2s2n2l9p 1",
                  "take turns");
  expect_bad_sfen(RuleSet::Fuseki, "9/9/9/9/9/9/9/9/P8 b KRB2G2S2N2L8Pkrb2g2s2n2l9p 1",
                  "Sente to move");
  // Balance: the first two plies are the kings.
  expect_bad_sfen(RuleSet::Balance, "9/9/9/9/9/9/9/9/P8 w KRB2G2S2N2L8Pkrb2g2s2n2l9p 1",
                  "kings are placed");
  expect_bad_sfen(RuleSet::Balance, "9/9/9/9/9/9/9/9/9 b - 41", "no king");
  expect_bad_sfen(RuleSet::Balance, "9/9/9/9/9/9/9/p8/9 w KRB2G2S2N2L9Pkrb2g2s2n2l8p 1",
                  "outside its camp");
}

TEST(RecordErrors, IllegalOrMalformedTokensAreNamed) {
  expect_bad_record(RuleSet::Balance, "P*7g", "record token 1: move 'P*7g'");
  expect_bad_record(RuleSet::Balance, "K*5i K*5e", "record token 2: move 'K*5e'");
  expect_bad_record(RuleSet::Balance, "K*5i K*5a choose:sente G*5a", "illegal");
  // The side choice comes right after the kings: a drop before it is refused, naming the token.
  expect_bad_record(RuleSet::Balance, "K*5i K*5a P*7g",
                    "token 3 'P*7g': in Balance Shogi the side choice");
  expect_bad_record(RuleSet::BalanceV1, "K*5i K*5a P*7g choose:sente", "token 3 'P*7g'");
  expect_bad_record(RuleSet::Balance, "K*5i K*5a choose:sente x7g", "not a move");
  expect_bad_record(RuleSet::Balance, "K*5i K*5a choose:sente p*7g", "unknown piece letter");
  expect_bad_record(RuleSet::Balance, "K*5i K*5a choose:sente P*0g", "bad square");
  expect_bad_record(RuleSet::Shogi, "7g7f 3c3d 8h2b 3a2b 2b2a", "illegal");
}

TEST(RecordErrors, SideChoice) {
  expect_bad_record(RuleSet::Fuseki, "K*5i K*5a choose:sente", "only in Balance");
  expect_bad_record(RuleSet::Balance, "K*5i choose:sente", "right after the second drop");
  expect_bad_record(RuleSet::Balance, "K*5i K*5a choose:black", "choose:sente or choose:gote");
  expect_bad_record(RuleSet::Balance, "K*5i K*5a choose:sente choose:gote", "second side choice");
}

TEST(Record, ChoiceIsKeptAndWrittenBack) {
  Position pos = Position::start(RuleSet::Balance);
  Record rec = play_record(pos, "K*5i K*5a choose:gote P*7g");
  ASSERT_TRUE(rec.chooser_takes.has_value());
  EXPECT_EQ(*rec.chooser_takes, WHITE);
  EXPECT_EQ(pos.ply(), 3);
  EXPECT_EQ(record_string(rec, pos.variant()), "K*5i K*5a choose:gote P*7g");
}
