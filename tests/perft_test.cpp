#include "rules/perft.h"

#include <gtest/gtest.h>

#include "rules/position.h"

using namespace fuseki;

TEST(Perft, StartPositionShallow) {
  Position pos = Position::start(RuleSet::Shogi);
  EXPECT_EQ(perft(pos, 1), 30u);
  EXPECT_EQ(perft(pos, 2), 900u);
  EXPECT_EQ(perft(pos, 3), 25470u);
}
