// Yari Shogi as variant data: perft from the start position (the seed's figures), piece moves,
// promotions, drops, and its own game-end rules (3-fold repetition, perpetual check loses, no
// entering-king declaration, pawn-drop mate allowed).
#include <gtest/gtest.h>

#include "rules/perft.h"
#include "rules/record.h"
#include "tests/test_util.h"

using namespace fuseki;
using fuseki::testing::at;
using fuseki::testing::legal_moves;

TEST(Yari, PerftFromTheStartPosition) {
  Position pos = Position::start(RuleSet::Yari);
  EXPECT_EQ(pos.sfen(), "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b - 1");
  const uint64_t expected[] = {20, 400, 7960, 158404};
  for (int d = 1; d <= 4; ++d) EXPECT_EQ(perft(pos, d), expected[d - 1]) << "depth " << d;
}

// Fairy-Stockfish's FEN (the seed's startFen; ffish writes the same form) reads as our SFEN:
// "w" is the first player, the hand is in brackets, the move number counts full moves.
TEST(Yari, FairyStockfishFen) {
  const std::string seed_start = "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR[-] w 0 1";
  EXPECT_EQ(Position::from_sfen(seed_start, RuleSet::Yari).sfen(),
            Position::start(RuleSet::Yari).sfen());
  Position p = Position::from_sfen(
      "b6/Pr1bk2/2n4/2p1ppr/2Pb1PP/1P2P2/+p+nBNR2/4+p1p/1RK2N1[Pp] b - - 0 41", RuleSet::Yari);
  EXPECT_EQ(p.sfen(), "b6/Pr1bk2/2n4/2p1ppr/2Pb1PP/1P2P2/+p+nBNR2/4+p1p/1RK2N1 w Pp 82");
  EXPECT_EQ(
      Position::from_sfen("rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR[] w - - 0 1", RuleSet::Yari)
          .sfen(),
      Position::start(RuleSet::Yari).sfen());
  for (const char* bad : {"rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR[- w 0 1",
                          "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR[-] x 0 1",
                          "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR[-] w KQ - 0 1",
                          "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR[-] w 0 0"}) {
    try {
      Position::from_sfen(bad, RuleSet::Yari);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const RulesError& e) {
      EXPECT_NE(std::string(e.what()).find("bad FEN"), std::string::npos) << e.what();
    }
  }
}

TEST(YariDeep, PerftDepth5) {
  Position pos = Position::start(RuleSet::Yari);
  EXPECT_EQ(perft(pos, 5), 3174917u);
}

TEST(Yari, SevenFilesOnly) {
  EXPECT_THROW(at(RuleSet::Yari, "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR2 b - 1"), RulesError);
  Position pos = Position::start(RuleSet::Yari);
  EXPECT_THROW(play_record(pos, "8g8f"), RulesError);
}

TEST(Yari, PieceMoves) {
  // Yari rook: forward, left, right rays, never backwards.
  auto rook = legal_moves(at(RuleSet::Yari, "6k/7/7/7/3R3/7/7/7/K6 b - 1"));
  EXPECT_TRUE(rook.count("4e4a"));
  EXPECT_TRUE(rook.count("4e1e"));
  EXPECT_TRUE(rook.count("4e7e"));
  EXPECT_FALSE(rook.count("4e4f"));
  // Yari knight: forward ray and the two forward knight jumps.
  auto knight = legal_moves(at(RuleSet::Yari, "6k/7/7/7/3N3/7/7/7/K6 b - 1"));
  EXPECT_TRUE(knight.count("4e4d"));
  EXPECT_TRUE(knight.count("4e3c"));
  EXPECT_TRUE(knight.count("4e5c"));
  EXPECT_FALSE(knight.count("4e3d"));
  // Yari bishop: forward diagonal steps and the forward ray.
  auto bishop = legal_moves(at(RuleSet::Yari, "6k/7/7/7/3B3/7/7/7/K6 b - 1"));
  EXPECT_TRUE(bishop.count("4e3d"));
  EXPECT_TRUE(bishop.count("4e5d"));
  EXPECT_TRUE(bishop.count("4e4c"));
  EXPECT_FALSE(bishop.count("4e3c"));
  EXPECT_FALSE(bishop.count("4e3f"));
}

TEST(Yari, PromotionsAndDrops) {
  // A yari knight still slides forward from rank b, so promotion there is optional; on rank a it
  // could never move again, so it must promote. The promoted knight is a gold that also slides
  // backwards.
  auto moves = legal_moves(at(RuleSet::Yari, "k6/7/7/3N3/7/7/7/7/6K b NP 1"));
  EXPECT_TRUE(moves.count("4d3b+"));
  EXPECT_TRUE(moves.count("4d3b"));
  EXPECT_TRUE(moves.count("4d4a+"));
  EXPECT_FALSE(moves.count("4d4a"));
  EXPECT_FALSE(moves.count("N*1a"));  // dead drops are illegal
  EXPECT_FALSE(moves.count("P*1a"));
  EXPECT_TRUE(moves.count("N*1b"));
  Position gold = at(RuleSet::Yari, "k6/7/7/7/3+N3/7/7/7/6K b - 1");
  auto g = legal_moves(gold);
  EXPECT_TRUE(g.count("4e4i"));  // backward ray
  EXPECT_TRUE(g.count("4e3e"));
  EXPECT_FALSE(g.count("4e3f"));  // no backward diagonal
}

TEST(Yari, PawnDropMateIsAllowed) {
  // Gote's king on 1a, boxed in; a pawn dropped on 1b, guarded by the silver, mates.
  auto moves = legal_moves(at(RuleSet::Yari, "5pk/7/5+P1/7/7/7/7/7/K6 b P 1"));
  EXPECT_TRUE(moves.count("P*1b"));
}
