// The rollout placer (expert iteration): legal drops and Gumbel targets over its candidates, the
// drop whose completions the move-41 ruling wins, determinism per seed, its refusals; self-play
// rows with its targets.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "rules/movegen.h"
#include "rules/notation.h"
#include "selfplay/generator.h"
#include "selfplay/journal.h"
#include "selfplay/rollout_placer.h"
#include "tests/placing_util.h"
#include "tests/test_util.h"

using namespace fuseki;
using fuseki::testing::Requests;
using fuseki::testing::uniformly_placed;

namespace {

RolloutOptions small(int k, int rollouts) {
  RolloutOptions o;
  o.k = k;
  o.rollouts = rollouts;
  o.nodes = 40;
  return o;
}

}  // namespace

TEST(Rollout, LegalDropsAndTargetsOverItsCandidates) {
  net::Evaluator eval(net::NetConfig{8, 1}, {"cpu", 1});
  RolloutPlacer placer(eval, small(4, 2), RuleSet::Balance);
  std::vector<Position> positions;
  for (int i = 0; i < 5; ++i) positions.push_back(uniformly_placed(2 + 7 * i, uint64_t(i) + 1));
  positions.push_back(uniformly_placed(39, 7));  // Gote's last drop: its completion is move 41
  Requests r(positions, 3);
  placer.place(r.list);
  uint64_t candidates = 0;
  for (const PlacementRequest& q : r.list) {
    EXPECT_TRUE(fuseki::testing::legal_moves(*q.position)
                    .count(move_to_usi(q.move, q.position->variant())));
    ASSERT_TRUE(q.decision);
    MoveList legal;
    generate_legal(*q.position, legal);
    EXPECT_EQ(q.decision->legal, legal.size);
    EXPECT_EQ(q.decision->target.size(), size_t(std::min(4, legal.size)));
    double mass = 0;
    std::set<int> actions;
    for (const PolicyTarget& t : q.decision->target) {
      EXPECT_GE(t.prob, 0.0f);
      mass += t.prob;
      actions.insert(t.action);
    }
    EXPECT_LE(mass, 1.0 + 1e-5);
    EXPECT_EQ(actions.size(), q.decision->target.size()) << "a candidate tried twice";
    EXPECT_TRUE(actions.count(q.decision->action)) << "the drop is not among the candidates";
    candidates += q.decision->target.size();
  }
  EXPECT_EQ(placer.completions(), candidates * 2);
}

// Sente's last drop is a knight, Gote's king stands on 5d: a knight on 4f or 6f attacks it, no
// drop of Gote's can end a knight's attack, and the move-41 ruling gives Sente the game. Those
// two completions are worth 1 whatever the engine thinks; every other drop's are the engine's.
TEST(Rollout, FindsTheDropTheRulingWins) {
  const Position pos = fuseki::testing::at(
      RuleSet::Fuseki, "lnsb1gsnl/ppppppppp/r8/4k4/9/9/PPPPPPPPP/1B5R1/LNSGKGS1L b Ng 1");
  MoveList legal;
  generate_legal(pos, legal);
  ASSERT_EQ(legal.size, 17);  // 9 squares of rank f, 7 of rank h, 2i
  net::Evaluator eval(net::NetConfig{8, 1}, {"cpu", 1});
  RolloutOptions o = small(17, 2);
  o.noise = false;
  RolloutPlacer placer(eval, o, RuleSet::Fuseki);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    Requests r({pos}, seed);
    placer.place(r.list);
    std::string drop = move_to_usi(r.list[0].move, pos.variant());
    EXPECT_TRUE(drop == "N*4f" || drop == "N*6f") << drop;
    // The improved policy gives the two winning drops most of its mass.
    double winners = 0;
    for (const PolicyTarget& t : r.list[0].decision->target) {
      std::string a = move_to_usi(net::policy_move(pos, t.action), pos.variant());
      if (a == "N*4f" || a == "N*6f") {
        winners += t.prob;
        EXPECT_EQ(t.q, 1.0f) << a << ": both completions won by the ruling";
      }
    }
    EXPECT_GT(winners, 0.9);
  }
  EXPECT_EQ(placer.decided(), 3u * 2 * 2);  // the winners' completions, three calls
}

// rollout_play = policy (DAgger): the drop played is the network's (here its argmax, temperature
// 0), not the look-ahead's winning knight, while the training row keeps the look-ahead's target
// (the same one the search's choice has, the streams being the same) and the network's
// probability of the drop played.
TEST(Rollout, PlayPolicyPlaysTheNetworksDropWithTheLookAheadsTarget) {
  const Position pos = fuseki::testing::at(
      RuleSet::Fuseki, "lnsb1gsnl/ppppppppp/r8/4k4/9/9/PPPPPPPPP/1B5R1/LNSGKGS1L b Ng 1");
  torch::manual_seed(7);  // the network's argmax below is then always the same drop
  net::Evaluator eval(net::NetConfig{8, 1}, {"cpu", 1});
  const net::Evaluation prior = eval.evaluate(pos);
  MoveList legal;
  generate_legal(pos, legal);
  int argmax = -1;
  for (int i = 0; i < legal.size; ++i) {
    int a = net::policy_index(pos, legal.moves[i]);
    if (argmax < 0 || prior.policy[size_t(a)] > prior.policy[size_t(argmax)]) argmax = a;
  }
  const std::string networks = move_to_usi(net::policy_move(pos, argmax), pos.variant());
  ASSERT_NE(networks, "N*4f");  // else the test would not tell the two apart
  ASSERT_NE(networks, "N*6f");
  RolloutOptions o = small(17, 2);
  o.noise = false;
  o.own_temperature = 0;
  RolloutPlacer search(eval, o, RuleSet::Fuseki);
  o.play_policy = true;
  RolloutPlacer policy(eval, o, RuleSet::Fuseki);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    Requests a({pos}, seed), b({pos}, seed);
    search.place(a.list);
    policy.place(b.list);
    std::string drop = move_to_usi(b.list[0].move, pos.variant());
    EXPECT_EQ(drop, networks);
    ASSERT_TRUE(b.list[0].decision);
    EXPECT_EQ(b.list[0].decision->action, argmax);
    EXPECT_FLOAT_EQ(b.list[0].decision->prob, prior.policy[size_t(argmax)]);
    std::string searched = move_to_usi(a.list[0].move, pos.variant());
    EXPECT_TRUE(searched == "N*4f" || searched == "N*6f") << searched;
    ASSERT_EQ(a.list[0].decision->target.size(), b.list[0].decision->target.size());
    for (size_t i = 0; i < a.list[0].decision->target.size(); ++i) {
      EXPECT_EQ(a.list[0].decision->target[i].action, b.list[0].decision->target[i].action);
      EXPECT_EQ(a.list[0].decision->target[i].prob, b.list[0].decision->target[i].prob);
    }
  }
}

TEST(Rollout, DeterministicPerSeed) {
  net::Evaluator eval(net::NetConfig{8, 1}, {"cpu", 1});
  auto run = [&](uint64_t seed) {
    RolloutPlacer placer(eval, small(3, 2), RuleSet::Balance);
    std::vector<Position> positions;
    for (int i = 0; i < 4; ++i) positions.push_back(uniformly_placed(4 + 3 * i, uint64_t(i) + 20));
    std::vector<std::string> out;
    for (int call = 0; call < 3; ++call) {
      Requests r(positions, seed + uint64_t(call));
      placer.place(r.list);
      for (size_t i = 0; i < positions.size(); ++i) {
        out.push_back(move_to_usi(r.list[i].move, positions[i].variant()));
        for (const PolicyTarget& t : r.list[i].decision->target)
          out.push_back(std::to_string(t.action) + ":" + std::to_string(t.prob));
        positions[i].do_move(r.list[i].move);
      }
    }
    return out;
  };
  EXPECT_EQ(run(5), run(5));
  EXPECT_NE(run(5), run(6));
}

TEST(Rollout, RefusesKingsAndABadEngine) {
  net::Evaluator eval(net::NetConfig{8, 1}, {"cpu", 1});
  RolloutPlacer placer(eval, small(2, 1), RuleSet::Balance);
  Requests r({Position::start(RuleSet::Balance)}, 1);
  EXPECT_THROW(placer.place(r.list), std::logic_error);
  RolloutOptions bad = small(2, 1);
  bad.engine = "nosuch";
  try {
    RolloutPlacer p(eval, bad, RuleSet::Balance);
    FAIL() << "an unknown engine was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("nosuch"), std::string::npos) << e.what();
  }
  SelfPlayOptions so;
  so.rollout = small(2, 1);
  so.kings = KingSource::Network;
  EXPECT_THROW(SelfPlayGenerator(eval, so), std::invalid_argument);
}

TEST(Rollout, SelfPlayRowsCarryItsTargets) {
  net::Evaluator eval(net::NetConfig{8, 1}, {"cpu", 1});
  SelfPlayOptions o;
  o.rules = RuleSet::Balance;
  o.seed = 4;
  o.batch = 3;
  o.rollout = small(3, 1);
  o.judge = [](const Position&) { return Winner::Draw; };
  SelfPlayGenerator gen(eval, o);
  int games = 0;
  gen.play(0, 3, [&](PlayedGame&& g) {
    ASSERT_EQ(g.decisions.size(), 38u);  // uniform kings
    for (const DecisionRow& d : g.decisions) {
      EXPECT_EQ(d.target.size(), size_t(std::min(3, int(d.legal))));
      for (const PolicyTarget& t : d.target) {  // each candidate's measured value
        EXPECT_GE(t.q, -1.0f);
        EXPECT_LE(t.q, 1.0f);
      }
    }
    // Through the journal, the values with the targets.
    PlayedGame back;
    ASSERT_TRUE(parse_journal_line(journal_line(g), back));
    ASSERT_EQ(back.decisions.size(), g.decisions.size());
    for (size_t i = 0; i < g.decisions.size(); ++i)
      for (size_t k = 0; k < g.decisions[i].target.size(); ++k)
        EXPECT_FLOAT_EQ(back.decisions[i].target[k].q, g.decisions[i].target[k].q);
    ++games;
  });
  EXPECT_EQ(games, 3);
}

// With from_ply, positions with fewer plies played go to the early placer (here one that
// records them and answers its own drops), the others look ahead; each answer lands on its own
// request whatever the order of the batch.
TEST(Rollout, EarlierPliesGoToTheEarlyPlacer) {
  struct Recording : Placer {
    std::vector<int> plies;
    std::string name() const override { return "recording"; }
    void place(std::span<PlacementRequest> requests) override {
      for (PlacementRequest& r : requests) {
        plies.push_back(r.position->ply());
        MoveList legal;
        generate_legal(*r.position, legal);
        r.move = legal.moves[legal.size - 1];  // the last legal drop: recognisable
      }
    }
  } early;
  net::Evaluator eval(net::NetConfig{8, 1}, {"cpu", 1});
  RolloutOptions o = small(3, 1);
  o.from_ply = 30;
  EXPECT_THROW(RolloutPlacer(eval, o, RuleSet::Balance), std::invalid_argument);
  RolloutPlacer placer(eval, o, RuleSet::Balance, &early);
  std::vector<int> plies{35, 4, 30, 29, 12, 38};
  std::vector<Position> positions;
  for (size_t i = 0; i < plies.size(); ++i)
    positions.push_back(uniformly_placed(plies[i], uint64_t(i) + 40));
  Requests r(positions, 9);
  placer.place(r.list);
  EXPECT_EQ(early.plies, (std::vector<int>{4, 29, 12}));
  uint64_t candidates = 0;  // plies 35, 30, 38: up to three candidates, one completion each
  for (size_t i = 0; i < plies.size(); ++i) {
    MoveList legal;
    generate_legal(positions[i], legal);
    bool looked_ahead = plies[i] >= 30;
    if (looked_ahead) candidates += uint64_t(std::min(3, legal.size));
    EXPECT_EQ(r.list[i].decision.has_value(), looked_ahead) << "ply " << plies[i];
    if (!looked_ahead) {
      EXPECT_EQ(r.list[i].move, legal.moves[legal.size - 1]);
    }
    EXPECT_TRUE(fuseki::testing::legal_moves(positions[i])
                    .count(move_to_usi(r.list[i].move, positions[i].variant())));
  }
  EXPECT_EQ(placer.completions(), candidates);
}
