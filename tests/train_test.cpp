// Training learns: with a play-out that rewards one placement, the trained policy's measured
// score rises clearly over the untrained one's.
#include <gtest/gtest.h>

#include "net/evaluator.h"
#include "rules/record.h"
#include "selfplay/generator.h"
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
double sente_score(net::Evaluator& eval, uint64_t seed, int games) {
  SelfPlayGenerator gen(eval, options(seed));
  int wins = 0, n = 0;
  gen.play(0, uint64_t(games), [&](PlayedGame&& g) {
    wins += g.row.winner == Winner::Sente;
    ++n;
  });
  return double(wins) / n;
}

}  // namespace

// Trains with the forward passes (training and self-play) in `precision`.
void policy_learns(const std::string& precision) {
  TrainOptions o;
  o.batch_size = 256;
  o.learning_rate = 3e-3;
  o.entropy_weight = 0.0;
  o.threads = 1;
  o.precision = precision;
  Trainer trainer({16, 1}, o, 7);
  net::Evaluator eval(trainer.network(), {"cpu", 1, 64, precision});
  double before = sente_score(eval, 1000, 256);

  TrainingWindow window;
  for (int iteration = 0; iteration < 12; ++iteration) {
    eval.set_weights(trainer.network());
    SelfPlayGenerator gen(eval, options(uint64_t(iteration + 1)));
    gen.play(0, 64, [&](PlayedGame&& g) { window.add(g.row, g.decisions); });
    for (int s = 0; s < 15; ++s) trainer.step(window);
  }
  eval.set_weights(trainer.network());
  double after = sente_score(eval, 1000, 256);
  std::printf("[ learn    ] %s: Sente score with the rook rule: untrained %.3f, trained %.3f\n",
              precision.c_str(), before, after);
  EXPECT_LT(before, 0.5);
  EXPECT_GT(after, before + 0.25);
}

TEST(Training, PolicyLearnsAPlacementThatWins) { policy_learns("fp32"); }

// Mixed precision (bf16 autocast in training, bf16 inference) learns the same rule.
TEST(Training, PolicyLearnsInBfloat16) { policy_learns("bf16"); }

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
