// The Gumbel placer: legal drops, its targets, two forward passes per call, the drop the value
// head favours, determinism per seed, the deciding player's view of a child's value; self-play
// rows with targets, through the journal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "rules/movegen.h"
#include "rules/record.h"
#include "selfplay/generator.h"
#include "selfplay/gumbel_placer.h"
#include "tests/placing_util.h"
#include "tests/test_util.h"
#include "train/trainer.h"

using namespace fuseki;
using fuseki::testing::Requests;

namespace {

Position placed(int plies, uint64_t seed) { return fuseki::testing::uniformly_placed(plies, seed); }

std::vector<Position> some_positions() {
  std::vector<Position> out;
  for (int i = 0; i < 6; ++i) out.push_back(placed(2 + 5 * i, uint64_t(i) + 1));
  return out;
}

}  // namespace

TEST(Gumbel, LegalDropsTargetsAndTwoPassesPerCall) {
  net::Evaluator eval(net::NetConfig{8, 1}, {"cpu", 1});
  GumbelPlacer placer(eval, {8, 50, 1});
  std::vector<Position> positions = some_positions();
  positions.push_back(placed(38, 99));  // two legal drops at most: fewer than k
  Requests b(positions, 3);
  placer.place(b.list);
  uint64_t children = 0;
  for (const PlacementRequest& r : b.list) {
    MoveList legal;
    generate_legal(*r.position, legal);
    ASSERT_TRUE(legal.contains(r.move));
    ASSERT_TRUE(r.decision);
    const PlacementDecision& d = *r.decision;
    EXPECT_EQ(d.legal, legal.size);
    EXPECT_EQ(d.action, net::policy_index(*r.position, r.move));
    ASSERT_EQ(d.target.size(), size_t(std::min(8, legal.size)));
    children += d.target.size();
    std::set<int> actions;
    double sum = 0;
    bool chosen_evaluated = false;
    for (const PolicyTarget& t : d.target) {
      EXPECT_TRUE(legal.contains(net::policy_move(*r.position, t.action)));
      EXPECT_GE(t.prob, 0.0f);
      actions.insert(t.action);
      sum += t.prob;
      chosen_evaluated |= t.action == d.action;
    }
    EXPECT_EQ(actions.size(), d.target.size()) << "a drop evaluated twice";
    EXPECT_TRUE(chosen_evaluated) << "the drop played is not among the evaluated";
    EXPECT_LE(sum, 1.0 + 1e-5);
    if (int(d.target.size()) == legal.size) {
      EXPECT_NEAR(sum, 1.0, 1e-5);
    }
  }
  EXPECT_EQ(placer.passes().passes, 2u);
  EXPECT_EQ(placer.passes().positions, positions.size() + children);
}

// A strong sigma makes the value head decide: with every drop evaluated, the placer plays the
// one whose child is best for the mover (computed here from each child's value alone; equal up
// to the last bits a batch of another size may change), and its improved policy leaves the
// clearly worse drops nothing.
TEST(Gumbel, PicksTheDropTheValueHeadFavours) {
  Trainer seeded({8, 1}, TrainOptions{}, 3);  // the same network whatever ran before
  net::Evaluator eval(seeded.network(), {"cpu", 1});
  GumbelPlacer placer(eval, {net::kPolicySize, 50, 1e6});
  std::vector<Position> positions = some_positions();
  Requests b(positions, 5);
  placer.place(b.list);
  for (const PlacementRequest& r : b.list) {
    const Position& pos = *r.position;
    MoveList legal;
    generate_legal(pos, legal);
    std::map<int, float> q;
    float best = -2, worst = 2;
    for (Move m : legal) {
      Position child = pos;
      child.do_move(m);
      float v = q[net::policy_index(pos, m)] = drop_value(pos, child, eval.evaluate(child).value);
      best = std::max(best, v);
      worst = std::min(worst, v);
    }
    EXPECT_GT(best - worst, 2e-4f) << "the value head does not tell the drops apart: ply "
                                   << pos.ply() << ", " << legal.size << " drops, best " << best;
    EXPECT_GE(q.at(net::policy_index(pos, r.move)), best - 1e-5f) << "ply " << pos.ply();
    double clearly_worse = 0;
    for (const PolicyTarget& t : r.decision->target)
      if (q.at(t.action) < best - 1e-4f) clearly_worse += t.prob;
    EXPECT_LT(clearly_worse, 1e-3) << "ply " << pos.ply();
  }
}

TEST(Gumbel, DeterministicPerSeed) {
  net::Evaluator eval(net::NetConfig{8, 1}, {"cpu", 1});
  GumbelPlacer placer(eval, {4, 50, 1});
  std::vector<Position> positions = some_positions();
  auto run = [&](uint64_t seed) {
    Requests b(positions, seed);
    placer.place(b.list);
    std::vector<std::pair<Move, std::vector<int>>> out;
    for (const PlacementRequest& r : b.list) {
      std::vector<int> evaluated;
      for (const PolicyTarget& t : r.decision->target) evaluated.push_back(t.action);
      out.push_back({r.move, evaluated});
    }
    return out;
  };
  EXPECT_EQ(run(11), run(11));
  EXPECT_NE(run(11), run(12));  // the Gumbel noise draws other candidates
}

// The drop chosen for a game is that game's next parent: its evaluation is kept from the child
// pass instead of made again. Games played drop by drop with one placer (keeping) and with a new
// placer for every drop (never keeping) go the same way, the keeping one with n parents fewer
// per call; new weights drop what was kept.
TEST(Gumbel, TheChosenChildIsTheNextParentsEvaluation) {
  Trainer seeded({8, 1}, TrainOptions{}, 5);
  net::Evaluator eval(seeded.network(), {"cpu", 1});
  const GumbelOptions options{6, 50, 1};
  GumbelPlacer keeping(eval, options);
  std::vector<Position> kept, fresh;
  for (int i = 0; i < 5; ++i) kept.push_back(placed(2, uint64_t(i) + 40));
  fresh = kept;
  std::vector<Rng> kept_rng, fresh_rng;
  for (size_t i = 0; i < kept.size(); ++i) {
    kept_rng.emplace_back(Rng::derive(8, i));
    fresh_rng.emplace_back(Rng::derive(8, i));
  }
  const int calls = 12;
  uint64_t fresh_positions = 0;
  for (int call = 0; call < calls; ++call) {
    std::vector<PlacementRequest> a, b;
    for (size_t i = 0; i < kept.size(); ++i) {
      a.push_back({&kept[i], &kept_rng[i], MOVE_NONE, {}});
      b.push_back({&fresh[i], &fresh_rng[i], MOVE_NONE, {}});
    }
    keeping.place(a);
    GumbelPlacer once(eval, options);
    once.place(b);
    fresh_positions += once.passes().positions;
    for (size_t i = 0; i < kept.size(); ++i) {
      ASSERT_EQ(a[i].move, b[i].move) << "call " << call << ", game " << i;
      EXPECT_NEAR(a[i].decision->prob, b[i].decision->prob, 1e-5);
      EXPECT_NEAR(a[i].decision->value, b[i].decision->value, 1e-5);
      ASSERT_EQ(a[i].decision->target.size(), b[i].decision->target.size());
      for (size_t t = 0; t < a[i].decision->target.size(); ++t)
        EXPECT_NEAR(a[i].decision->target[t].prob, b[i].decision->target[t].prob, 1e-4);
      kept[i].do_move(a[i].move);
      fresh[i].do_move(b[i].move);
    }
  }
  EXPECT_EQ(keeping.reused(), uint64_t(calls - 1) * kept.size());
  EXPECT_EQ(keeping.passes().positions, fresh_positions - keeping.reused());

  Trainer other({8, 1}, TrainOptions{}, 6);
  eval.set_weights(other.network());
  std::vector<PlacementRequest> a;
  for (size_t i = 0; i < kept.size(); ++i) a.push_back({&kept[i], &kept_rng[i], MOVE_NONE, {}});
  keeping.place(a);
  EXPECT_EQ(keeping.reused(), uint64_t(calls - 1) * kept.size()) << "kept across new weights";
}

TEST(Gumbel, DropValueIsTheDecidingPlayers) {
  Position start = Position::start(RuleSet::Balance);
  MoveList legal;
  generate_legal(start, legal);
  Position first = start;
  first.do_move(legal.moves[0]);
  // The placer drops both kings: after the first it still decides.
  EXPECT_FLOAT_EQ(drop_value(start, first, 0.4f), 0.4f);
  generate_legal(first, legal);
  Position second = first;
  second.do_move(legal.moves[0]);
  // After the second the chooser takes the better side: the placer keeps the worse.
  EXPECT_FLOAT_EQ(drop_value(first, second, 0.4f), -0.4f);
  EXPECT_FLOAT_EQ(drop_value(first, second, -0.4f), -0.4f);
  // Ordinary drops: the child's value is the opponent's.
  generate_legal(second, legal);
  Position third = second;
  third.do_move(legal.moves[0]);
  ASSERT_NE(third.side_to_move(), second.side_to_move());
  EXPECT_FLOAT_EQ(drop_value(second, third, 0.4f), -0.4f);
}

TEST(Gumbel, MixedValueIsThePriorWeightedMeanOfTheCandidatesMixedWithTheValue) {
  // Prior 0.5, 0.3, 0.2; the first two tried (q 0.2 and -0.4), value 0.9: the prior-weighted
  // mean of the tried is (0.5 * 0.2 - 0.3 * 0.4) / 0.8 = -0.025, v_mix (0.9 + 2 (-0.025)) / 3.
  const double logp[] = {std::log(0.5), std::log(0.3), std::log(0.2)};
  const double q[] = {0.2, -0.4, 123.0};  // the third is not read
  const int chosen[] = {0, 1};
  EXPECT_NEAR(mixed_value(0.9, logp, q, chosen, 2), 0.85 / 3, 1e-12);
  // The prior need not be normalised; one candidate: (v + q) / 2; none: the value.
  const double shifted[] = {std::log(5.0), std::log(3.0), 0};
  EXPECT_NEAR(mixed_value(0.9, shifted, q, chosen, 2), 0.85 / 3, 1e-12);
  EXPECT_NEAR(mixed_value(0.9, logp, q, chosen + 1, 1), 0.25, 1e-12);
  EXPECT_DOUBLE_EQ(mixed_value(0.9, logp, q, chosen, 0), 0.9);
}

TEST(Gumbel, TheRulingIsDecidedWhenGotesLastDropCannotCloseEveryLine) {
  // rules.md's move-40 vectors: one line that a gold can close; two lines that one cannot.
  EXPECT_FALSE(ruling41_decided(fuseki::testing::at(
      RuleSet::Fuseki, "lnsbpgsnl/ppppkpppp/r8/9/9/4R4/PPPPPPPPP/8B/LNSGKGSNL w g 1")));
  EXPECT_TRUE(ruling41_decided(fuseki::testing::at(
      RuleSet::Fuseki, "lnsbpgsnl/ppppkpppp/r8/9/9/4R3B/PPPPPPPPP/9/LNSGKGSNL w g 1")));
}

TEST(Gumbel, ACertainRulingOverridesTheValueHead) {
  Position kings = Position::start(RuleSet::Fuseki);
  play_record(kings, "K*5i K*5d");
  Position knight = kings;
  play_record(knight, "N*4f");  // attacks Gote's king: the move-41 ruling is certain
  EXPECT_FLOAT_EQ(drop_value(kings, knight, -0.7f), 1.0f);
  Position lance = kings;
  play_record(lance, "L*5f");  // attacks it too, but Gote may block: the head's value stands
  EXPECT_FLOAT_EQ(drop_value(kings, lance, -0.7f), 0.7f);
  // Gote dropping its king where a knight reaches it has lost.
  Position gote = Position::start(RuleSet::Fuseki);
  play_record(gote, "K*5i G*1a N*4f");
  Position king = gote;
  play_record(king, "K*5d");
  EXPECT_FLOAT_EQ(drop_value(gote, king, 0.9f), -1.0f);
}

TEST(Gumbel, SelfPlayRowsCarryTargetsThroughTheJournal) {
  net::Evaluator eval(net::NetConfig{8, 1}, {"cpu", 1});
  SelfPlayOptions o;
  o.rules = RuleSet::Balance;
  o.seed = 4;
  o.batch = 8;
  o.search = GumbelOptions{6, 50, 1};
  o.judge = [](const Position&) { return Winner::Draw; };
  SelfPlayGenerator gen(eval, o);
  int games = 0;
  gen.play(0, 8, [&](PlayedGame&& g) {
    ASSERT_EQ(g.decisions.size(), 38u);  // uniform kings
    for (const DecisionRow& d : g.decisions)
      EXPECT_EQ(d.target.size(), size_t(std::min(6, int(d.legal))));
    PlayedGame back;
    ASSERT_TRUE(parse_journal_line(journal_line(g), back));
    ASSERT_EQ(back.decisions.size(), g.decisions.size());
    for (size_t i = 0; i < g.decisions.size(); ++i) {
      ASSERT_EQ(back.decisions[i].target.size(), g.decisions[i].target.size());
      for (size_t k = 0; k < g.decisions[i].target.size(); ++k) {
        EXPECT_EQ(back.decisions[i].target[k].action, g.decisions[i].target[k].action);
        EXPECT_FLOAT_EQ(back.decisions[i].target[k].prob, g.decisions[i].target[k].prob);
        // The value head's values are not measured ones: no q.
        EXPECT_TRUE(std::isnan(back.decisions[i].target[k].q));
        EXPECT_TRUE(std::isnan(g.decisions[i].target[k].q));
      }
    }
    ++games;
  });
  EXPECT_EQ(games, 8);
  // Children per ply, parents only at the first (later parents are the chosen children).
  EXPECT_EQ(gen.stats().forward_passes, 38u + 1);
}
