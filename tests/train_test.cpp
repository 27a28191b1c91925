// Training learns: with a play-out that rewards one placement, the trained policy's measured
// score rises clearly over the untrained one's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "net/evaluator.h"
#include "rules/movegen.h"
#include "rules/record.h"
#include "selfplay/generator.h"
#include "selfplay/search_target.h"
#include "tests/test_util.h"
#include "train/trainer.h"

using namespace fuseki;

namespace {

// Sente wins exactly when its rook stands on files 1-3; Gote's drops cannot change that.
Winner rook_on_the_right(const Position& placed) {
  Bitboard right = 0;
  for (int f = 0; f < 3; ++f) right |= placed.variant().file_bb[f];
  return (placed.pieces(BLACK, ROOK) & right) ? Winner::Sente : Winner::Gote;
}

SelfPlayOptions options(uint64_t seed) {
  SelfPlayOptions o;
  o.rules = RuleSet::Balance;
  o.seed = seed;
  o.batch = 64;
  o.temperature = 1.0;
  o.judge = rook_on_the_right;
  return o;
}

// Sente's score over `games` games played by the evaluator's policy.
double sente_score(net::Evaluator& eval, uint64_t seed, int games,
                   const decltype(SelfPlayOptions::judge)& judge = rook_on_the_right) {
  SelfPlayOptions o = options(seed);
  o.judge = judge;
  SelfPlayGenerator gen(eval, o);
  int wins = 0, n = 0;
  gen.play(0, uint64_t(games), [&](PlayedGame&& g) {
    wins += g.row.winner == Winner::Sente;
    ++n;
  });
  return double(wins) / n;
}

// Sixteen games of Gumbel self-play (k 8) by the trainer's own network, into `window`.
void gumbel_games(Trainer& trainer, TrainingWindow& window) {
  net::Evaluator eval(trainer.network(), {"cpu", 1});
  SelfPlayOptions so = options(9);
  so.search = GumbelOptions{8, 50, 1};
  SelfPlayGenerator gen(eval, so);
  gen.play(0, 16, [&](PlayedGame&& g) { window.add(g.row, g.decisions); });
}

}  // namespace

// How a test trains on the rook rule: the forward passes (training and self-play) in
// `precision`; with `search`, games placed by the Gumbel placer and the policy trained toward
// its improved policy, twice the steps (the search's own games are won within 5 iterations;
// distilling that into the policy is the slower part).
// frozen: self-play keeps the untrained network throughout (as behind a gate that accepts
// nothing); the searching trainer then learns only through reanalysis.
// mirror: each training sample mirrored left to right half the time (TrainOptions::mirror).
struct Learning {
  std::string precision = "fp32";
  bool search = false;
  std::string format = "native";
  bool frozen = false;
  bool reanalyse = false;
  bool mirror = false;
};

TrainOptions train_options(const Learning& l) {
  TrainOptions o;
  o.batch_size = 256;
  o.learning_rate = 3e-3;
  o.entropy_weight = 0.0;
  o.threads = 1;
  o.precision = l.precision;
  o.target = l.search ? TrainTarget::Search : TrainTarget::PolicyGradient;
  o.reanalyse = l.reanalyse;
  o.mirror = l.mirror;
  return o;
}

// Twelve iterations of 64 self-play games under `judge` and training on them; the evaluator
// holds the trained network at the end.
void train_on(Trainer& trainer, net::Evaluator& eval, const Learning& l,
              const decltype(SelfPlayOptions::judge)& judge) {
  if (l.frozen && l.search && l.reanalyse) {  // as the pipeline does: self-play's prior
    std::string path = ::testing::TempDir() + "frozen_behaviour.ckpt";
    trainer.save(path, 0);
    trainer.set_behaviour(path);
  }
  TrainingWindow window(RewardMode::Result, 0.5, l.search);
  for (int iteration = 0; iteration < 12; ++iteration) {
    if (!l.frozen) eval.set_weights(trainer.network());
    SelfPlayOptions so = options(uint64_t(iteration + 1));
    so.judge = judge;
    if (l.search) so.search = GumbelOptions{8, 50, 1};
    SelfPlayGenerator gen(eval, so);
    gen.play(0, 64, [&](PlayedGame&& g) { window.add(g.row, g.decisions); });
    for (int s = 0; s < (l.search ? 30 : 15); ++s) trainer.step(window);
  }
  eval.set_weights(trainer.network());
}

// The score is the policy's own (sampled drops, no search).
void policy_learns(const Learning& l) {
  // The site's format has no all-ones plane: two blocks give its trunk the receptive field to
  // tell the files apart from the board's edge.
  Trainer trainer(net::with_format({16, l.format == "site" ? 2 : 1}, l.format), train_options(l),
                  7);
  net::Evaluator eval(trainer.network(), {"cpu", 1, 64, l.precision});
  double before = sente_score(eval, 1000, 256);
  train_on(trainer, eval, l, rook_on_the_right);
  double after = sente_score(eval, 1000, 256);
  std::printf(
      "[ learn    ] %s, %s%s%s, %s format: Sente score with the rook rule: untrained %.3f, "
      "trained %.3f\n",
      l.precision.c_str(), l.search ? "search" : "policy gradient",
      l.search && l.reanalyse ? ", reanalysed" : "", l.frozen ? ", self-play frozen" : "",
      l.format.c_str(), before, after);
  EXPECT_LT(before, 0.5);
  EXPECT_GT(after, before + 0.25);
}

TEST(Training, PolicyLearnsAPlacementThatWins) { policy_learns({}); }

// Mixed precision (bf16 autocast in training, bf16 inference) learns the same rule.
TEST(Training, PolicyLearnsInBfloat16) { policy_learns({"bf16"}); }

// The searching trainer (Gumbel self-play, cross-entropy toward the improved policy) learns it.
TEST(Training, SearchLearnsAPlacementThatWins) { policy_learns({"fp32", true}); }

// Each decision of the window reads back the search target its game stored (bench/distill
// measures a network's fit to them), in the order the games were added.
TEST(Training, TheWindowGivesEachDecisionItsStoredTarget) {
  TrainOptions o;
  o.target = TrainTarget::Search;
  o.threads = 1;
  Trainer trainer({16, 1}, o, 5);
  TrainingWindow window(RewardMode::Result, 0.5, true);
  net::Evaluator eval(trainer.network(), {"cpu", 1});
  SelfPlayOptions so = options(9);
  so.search = GumbelOptions{8, 50, 1};
  std::vector<DecisionRow> stored;
  SelfPlayGenerator(eval, so).play(0, 4, [&](PlayedGame&& g) {
    window.add(g.row, g.decisions);
    stored.insert(stored.end(), g.decisions.begin(), g.decisions.end());
  });
  ASSERT_EQ(window.decisions(), stored.size());
  ASSERT_GT(stored.size(), 0u);
  for (size_t i = 0; i < stored.size(); ++i) {
    auto target = window.target(window.all()[i]);
    ASSERT_EQ(target.size(), stored[i].target.size()) << "decision " << i;
    ASSERT_GT(target.size(), 0u);
    for (size_t j = 0; j < target.size(); ++j) {
      EXPECT_EQ(target[j].action, stored[i].target[j].action);
      EXPECT_EQ(target[j].prob, stored[i].target[j].prob);
    }
  }
}

// Self-play held on the untrained network (its value head knows nothing, so the targets it
// stores carry nothing to learn): reanalysis remakes them with the trained network's values.
TEST(Training, ReanalysisLearnsWhileSelfPlayStaysOnTheUntrainedNetwork) {
  policy_learns({"fp32", true, "native", true, true});
}

// With the trainer's network the same as self-play's, reanalysis remakes the targets self-play
// stored: the same improved policy and the same mass left to the drops not evaluated.
TEST(Training, ReanalysisRemakesTheStoredTargetsWithTheSameNetwork) {
  TrainOptions o;
  o.target = TrainTarget::Search;
  o.threads = 1;
  Trainer trainer({16, 1}, o, 5);
  TrainingWindow window(RewardMode::Result, 0.5, true);
  gumbel_games(trainer, window);
  Rng rng(3);
  TrainBatch b = window.sample(256, rng, false, true);
  ASSERT_EQ(b.positions.size(), 256u);
  ASSERT_EQ(b.children.size(), int(b.child_sample.size()));
  TrainBatch stored = b;
  trainer.reanalyse(b);
  double worst = 0;
  for (size_t i = 0; i < b.targets.size(); ++i)
    worst = std::max(worst, double(std::fabs(b.targets[i] - stored.targets[i])));
  for (size_t i = 0; i < b.rest.size(); ++i)
    worst = std::max(worst, double(std::fabs(b.rest[i] - stored.rest[i])));
  std::printf("[ reanalyse] largest difference from the stored targets: %.2e\n", worst);
  EXPECT_LT(worst, 1e-3);
  // A batch without its children is refused.
  TrainBatch plain = window.sample(4, rng);
  EXPECT_THROW(trainer.reanalyse(plain), std::runtime_error);
}

// Samples from reanalyse_before_ply on keep the targets self-play stored (the rollout placer's
// look-ahead), the earlier ones are remade: stored targets overwritten by a mark stay marked only
// from that ply on.
TEST(Training, ReanalysisKeepsTheTargetsFromItsPly) {
  TrainOptions o;
  o.target = TrainTarget::Search;
  o.threads = 1;
  o.reanalyse_before_ply = 20;
  Trainer trainer({16, 1}, o, 5);
  TrainingWindow window(RewardMode::Result, 0.5, true);
  gumbel_games(trainer, window);
  Rng rng(4);
  TrainBatch b = window.sample(256, rng, false, true);
  for (float& t : b.targets) t = 0.25f;
  for (float& r : b.rest) r = 0.5f;
  trainer.reanalyse(b);
  int kept = 0, remade = 0;
  for (size_t i = 0; i < b.positions.size(); ++i) {
    bool marked = b.rest[i] == 0.5f;
    for (size_t a = 0; a < size_t(net::kPolicySize); ++a)
      if (b.visited[i * net::kPolicySize + a])
        marked = marked && b.targets[i * net::kPolicySize + a] == 0.25f;
    if (b.positions[i].ply() >= 20) {
      EXPECT_TRUE(marked) << "ply " << b.positions[i].ply() << ": its stored target remade";
      ++kept;
    } else {
      EXPECT_FALSE(marked) << "ply " << b.positions[i].ply() << ": its target not remade";
      ++remade;
    }
  }
  EXPECT_GT(kept, 50);
  EXPECT_GT(remade, 50);
}

// A network in the site's format (its features and 648 labels) learns the same rule.
TEST(Training, SiteFormatLearnsAPlacementThatWins) { policy_learns({"fp32", false, "site"}); }

// A sample's mirror is the mirrored position's sample: its planes and legal drops are those of
// the position with its files mirrored, its drop and search target the mirrored drops'; about
// half of a batch is mirrored, the rest left as it was.
TEST(Training, MirroredSamplesAreTheMirroredPositions) {
  net::Evaluator eval(net::NetConfig{8, 1}, {"cpu", 1});
  TrainingWindow window(RewardMode::Result, 0.5, true);
  SelfPlayOptions so = options(4);
  so.search = GumbelOptions{8, 50, 1};
  SelfPlayGenerator gen(eval, so);
  gen.play(0, 16, [&](PlayedGame&& g) { window.add(g.row, g.decisions); });
  for (bool site : {false, true}) {
    Rng rng(12);
    const TrainBatch stored = window.sample(256, rng, site, true);
    TrainBatch b = stored;
    mirror_samples(b, rng);
    const size_t stride = size_t(b.inputs.input_planes()) * net::kPlaneSize;
    auto row = [&](const auto& v, size_t i, size_t size) {
      return std::vector<double>(v.begin() + long(i * size), v.begin() + long((i + 1) * size));
    };
    int mirrored = 0;
    for (size_t i = 0; i < 256; ++i) {
      ASSERT_EQ(b.rewards[i], stored.rewards[i]);
      ASSERT_EQ(b.rest[i], stored.rest[i]);
      if (row(b.inputs.planes, i, stride) == row(stored.inputs.planes, i, stride) &&
          b.actions[i] == stored.actions[i]) {
        ASSERT_EQ(row(b.targets, i, net::kPolicySize), row(stored.targets, i, net::kPolicySize));
        continue;
      }
      ++mirrored;
      net::EncodedBatch e;
      e.site = site;
      e.add(fuseki::testing::files_mirrored(stored.positions[i]));
      ASSERT_EQ(row(b.inputs.planes, i, stride), row(e.planes, 0, stride)) << i;
      ASSERT_EQ(row(b.inputs.masks, i, net::kPolicySize), row(e.masks, 0, net::kPolicySize));
      ASSERT_EQ(b.actions[i], net::mirror_policy_index(int(stored.actions[i])));
      for (int a = 0; a < net::kPolicySize; ++a) {
        const size_t at = i * net::kPolicySize, m = at + size_t(net::mirror_policy_index(a));
        ASSERT_EQ(b.targets[m], stored.targets[at + size_t(a)]);
        ASSERT_EQ(b.visited[m], stored.visited[at + size_t(a)]);
      }
    }
    std::printf("[ mirror   ] %s planes: %d of 256 samples mirrored\n", site ? "site" : "native",
                mirrored);
    EXPECT_GT(mirrored, 90);
    EXPECT_LT(mirrored, 166);
  }
}

// Sente wins when its rook stands on an edge file, 1 or 9 (a rule with the game's symmetry).
Winner rook_on_an_edge(const Position& placed) {
  const Bitboard* file = placed.variant().file_bb;
  return (placed.pieces(BLACK, ROOK) & (file[0] | file[8])) ? Winner::Sente : Winner::Gote;
}

// Trained on mirrored samples half the time, the policy learns a rule with the game's symmetry.
TEST(Training, MirroredTrainingLearnsASymmetricRule) {
  Learning l;
  l.mirror = true;
  Trainer trainer({16, 1}, train_options(l), 7);
  net::Evaluator eval(trainer.network(), {"cpu", 1, 64});
  double before = sente_score(eval, 1000, 256, rook_on_an_edge);
  train_on(trainer, eval, l, rook_on_an_edge);
  double after = sente_score(eval, 1000, 256, rook_on_an_edge);
  std::printf(
      "[ learn    ] mirrored samples: Sente score with the rook on an edge: untrained "
      "%.3f, trained %.3f\n",
      before, after);
  EXPECT_LT(before, 0.5);
  EXPECT_GT(after, before + 0.25);
}

// train.q_weight: the value head regressed on the measured values of the drops a search tried.
// Games placed by the untrained policy, every result a draw (the game's reward teaches the head
// nothing); each decision given eight of its legal drops as a search's tried drops, each with a
// rule's value of its child as its q: +1 for Sente when Sente has a piece on file 1 after the
// drop, else -1 (the mover's: negated for Gote). Trained with q_weight 1, the head's values of
// those drops (drop_value at each child, as the search reads them) follow the rule's; with
// q_weight 0 they do not. (On other games' drops a network this small fits them far less: with
// 64 games it tells the games apart by their kings before it learns the rule.)
TEST(Training, QWeightTeachesTheValueHeadTheMeasuredValues) {
  const Variant& v = Position::start(RuleSet::Balance).variant();
  auto rule_q = [&](const Position& parent, int action) {
    Position child = parent;
    child.do_move(net::policy_move(parent, action));
    const float sente = (child.pieces(BLACK) & v.file_bb[0]) ? 1.0f : -1.0f;
    return parent.side_to_move() == BLACK ? sente : -sente;
  };
  TrainingWindow window(RewardMode::Result, 0.5, true);
  {
    net::Evaluator eval(net::NetConfig{16, 1}, {"cpu", 1});
    SelfPlayOptions so = options(21);
    so.judge = [](const Position&) { return Winner::Draw; };
    Rng rng(21);
    SelfPlayGenerator(eval, so).play(0, 64, [&](PlayedGame&& g) {
      Position pos = Position::start(RuleSet::Balance);
      Record rec = play_record(pos, g.row.record);
      for (DecisionRow& d : g.decisions) {
        Position at = Position::start(RuleSet::Balance);
        for (int i = 0; i < d.ply; ++i) at.do_move(rec.moves[size_t(i)]);
        MoveList legal;
        generate_legal(at, legal);
        for (int k = 0; k < 8 && k < legal.size; ++k) {
          const int action = net::policy_index(at, legal.moves[rng.below(uint32_t(legal.size))]);
          d.target.push_back({int16_t(action), 1.0f / 8, rule_q(at, action)});
        }
      }
      window.add(g.row, g.decisions);
    });
  }
  // The head's drop values against the rule's over the window's tried drops: their correlation.
  auto agreement = [&](const Trainer& trainer) {
    net::Evaluator ev(trainer.network(), {"cpu", 1});
    std::vector<double> head, rule;
    for (const WindowDecision& d : window.all()) {
      Position pos = window.position(d);
      std::vector<Position> children;
      for (const PolicyTarget& t : window.target(d)) {
        children.push_back(pos);
        children.back().do_move(net::policy_move(pos, t.action));
        rule.push_back(t.q);
      }
      std::vector<const Position*> ptrs;
      for (const Position& c : children) ptrs.push_back(&c);
      std::vector<net::Evaluation> e = ev.evaluate(ptrs);
      for (size_t c = 0; c < children.size(); ++c)
        head.push_back(drop_value(pos, children[c], e[c].value));
    }
    double mh = 0, mr = 0, hh = 0, rr = 0, hr = 0;
    for (size_t i = 0; i < head.size(); ++i) mh += head[i], mr += rule[i];
    mh /= double(head.size()), mr /= double(head.size());
    for (size_t i = 0; i < head.size(); ++i) {
      hh += (head[i] - mh) * (head[i] - mh);
      rr += (rule[i] - mr) * (rule[i] - mr);
      hr += (head[i] - mh) * (rule[i] - mr);
    }
    return hh > 0 && rr > 0 ? hr / std::sqrt(hh * rr) : 0.0;
  };
  double corr[2];
  for (int with_q = 0; with_q < 2; ++with_q) {
    TrainOptions o = train_options({"fp32", true});
    o.q_weight = with_q;
    Trainer trainer({16, 1}, o, 7);
    StepMetrics m;
    for (int s = 0; s < 150; ++s) m = trainer.step(window);
    corr[with_q] = agreement(trainer);
    if (with_q) {
      EXPECT_GT(m.q_corr, 0.5);  // the last step's batch
    } else {
      EXPECT_TRUE(std::isnan(m.q_loss));
    }
  }
  std::printf(
      "[ learn    ] a rule's values of the tried drops: correlation %.3f trained with "
      "q_weight 1, %.3f without\n",
      corr[1], corr[0]);
  EXPECT_GT(corr[1], 0.6);
  EXPECT_LT(corr[0], 0.4);
}

// Search targets come only from a searching placer: a policy placer's game is refused by name.
TEST(Training, SearchTargetsNeedASearchingPlacer) {
  net::Evaluator eval(net::NetConfig{8, 1}, {"cpu", 1});
  TrainingWindow window(RewardMode::Result, 0.5, true);
  SelfPlayGenerator gen(eval, options(3));
  int refused = 0;
  gen.play(0, 2, [&](PlayedGame&& g) {
    try {
      window.add(g.row, g.decisions);
    } catch (const ShardError& e) {
      EXPECT_NE(std::string(e.what()).find("without a search target"), std::string::npos)
          << e.what();
      ++refused;
    }
  });
  EXPECT_EQ(refused, 2);
  EXPECT_EQ(window.decisions(), 0u);
  // And a trainer asked for them without any refuses to step.
  TrainOptions o;
  o.target = TrainTarget::Search;
  o.threads = 1;
  Trainer trainer({8, 1}, o, 1);
  TrainingWindow plain;
  gen.play(2, 1, [&](PlayedGame&& g) { plain.add(g.row, g.decisions); });
  EXPECT_THROW(trainer.step(plain), std::runtime_error);
}

TEST(Training, UnknownPrecisionIsRefused) {
  TrainOptions o;
  o.precision = "fp16";
  try {
    Trainer trainer({8, 1}, o, 1);
    FAIL() << "fp16 training accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("fp16"), std::string::npos) << e.what();
  }
}

TEST(Training, ANetworkFromOldRulesPlaysOnlyLegalDropsUnderNihikyo) {
  // Train a little under balance-v1, where stacking rook and lances is allowed...
  TrainOptions o;
  o.threads = 1;
  o.learning_rate = 3e-3;
  Trainer trainer({16, 1}, o, 11);
  net::Evaluator eval(trainer.network(), {"cpu", 1});
  TrainingWindow window;
  SelfPlayOptions old_rules = options(5);
  old_rules.rules = RuleSet::BalanceV1;
  SelfPlayGenerator gen(eval, old_rules);
  gen.play(0, 64, [&](PlayedGame&& g) { window.add(g.row, g.decisions); });
  for (int s = 0; s < 10; ++s) trainer.step(window);
  std::string path = ::testing::TempDir() + "old_rules.ckpt";
  trainer.save(path, 1);

  // ...then play Balance (with Nihikyo) from the checkpoint: every record must replay legally.
  net::Evaluator loaded = net::Evaluator::from_checkpoint(path, {"cpu", 1});
  SelfPlayGenerator now(loaded, options(6));
  int games = 0;
  now.play(0, 64, [&](PlayedGame&& g) {
    Position pos = Position::start(RuleSet::Balance);
    EXPECT_NO_THROW(play_record(pos, g.row.record)) << g.row.record;
    EXPECT_EQ(g.row.shapes, 0) << "a rook and two lances on one file under Nihikyo: "
                               << g.row.record;
    ++games;
  });
  EXPECT_EQ(games, 64);
}
