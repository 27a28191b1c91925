// Scoring king pairs by evaluation (eval table --score eval|both): the calibration's standard
// errors cover the truth, each pair's estimate from its evaluated samples, the calibration data
// matched to games by pair and index, a band given by a rule gets games only where it is short of
// the precision, and the agreement of evaluation and games.
#include "eval/eval_scores.h"

#include <gtest/gtest.h>

#include <cmath>

#include "eval/calibration.h"
#include "eval/simulate.h"
#include "eval/stats.h"
#include "eval/table_builder.h"
#include "rules/rng.h"

using namespace fuseki;

namespace {

PairResult evaluated(int pair, int index, float p, Reason reason = Reason::None,
                     Winner winner = Winner::None) {
  return {pair, index, TableBuilder::game_seed(1, pair, index), winner, reason, 0, p};
}

double logit600(double p) { return std::log(p / (1 - p)) * kEvalPassScale; }

}  // namespace

// Over 200 fits of 1,500 simulated games each, bias +- 1.96 se and scale +- 1.96 se hold the
// truth about 95 % of the time.
TEST(Calibration, StandardErrorsCoverTheTruth) {
  const EvalCalibration truth{800, 0.15};
  int bias_in = 0, scale_in = 0;
  const int fits = 200;
  for (int f = 0; f < fits; ++f) {
    Rng rng(uint64_t(1000 + f));
    std::vector<std::pair<double, double>> games;
    for (int i = 0; i < 1500; ++i) {
      const double cp = (rng.uniform() - 0.5) * 2400;
      games.push_back({cp, rng.uniform() < win_probability(truth, cp) ? 1.0 : 0.0});
    }
    const EvalCalibration fit = fit_calibration(games);
    ASSERT_GT(fit.bias_se, 0);
    ASSERT_GT(fit.scale_se, 0);
    bias_in += std::abs(fit.bias - truth.bias) <= 1.96 * fit.bias_se;
    scale_in += std::abs(fit.scale - truth.scale) <= 1.96 * fit.scale_se;
  }
  std::printf("[ calib    ] 95 %% intervals held the truth: bias %d/%d, scale %d/%d\n", bias_in,
              fits, scale_in, fits);
  EXPECT_GE(bias_in, 178);  // 89 %: a binomial(200, 0.95) is below this with p < 0.1 %
  EXPECT_LE(bias_in, 199);
  EXPECT_GE(scale_in, 178);
  EXPECT_LE(scale_in, 199);
}

TEST(EvalScores, EachPairsEstimateFromItsSamples) {
  EvalScores s;
  s.add(evaluated(7, 0, 0.6f));
  s.add(evaluated(7, 1, 0.3f));
  s.add(evaluated(7, 1, 0.9f));  // the same sample again (a journal read twice): kept once
  s.add(evaluated(7, 2, 1.0f, Reason::Ruling41, Winner::Sente));  // decided at move 41
  s.add(evaluated(7, 3, -1.0f));                                  // the engine gave none
  EXPECT_EQ(s.evaluations(), 3);
  EXPECT_TRUE(s.sample(7, 2).decided);
  EXPECT_FALSE(s.sample(7, 3).present);
  EXPECT_FALSE(s.sample(8, 0).present);
  EXPECT_NEAR(s.sample(7, 0).cp, logit600(0.6), 1e-3);
  // Under another calibration the undecided samples move, the decided one does not.
  const EvalCalibration c{1200, -0.2};
  const double p0 = win_probability(c, logit600(0.6)), p1 = win_probability(c, logit600(0.3));
  const PairEvalEstimate e = s.estimate(7, c);
  EXPECT_EQ(e.samples, 3);
  EXPECT_NEAR(e.v, (p0 + p1 + 1.0) / 3, 1e-6);
  const double mean = (p0 + p1 + 1.0) / 3;
  const double var =
      ((p0 - mean) * (p0 - mean) + (p1 - mean) * (p1 - mean) + (1 - mean) * (1 - mean)) / 2;
  EXPECT_NEAR(e.sampling_se, std::sqrt(var / 3), 1e-6);
  EXPECT_NEAR(e.se, e.sampling_se, 1e-12);  // a calibration without errors adds nothing
  EvalCalibration uncertain = c;
  uncertain.bias_se = 0.1;
  EXPECT_GT(s.estimate(7, uncertain).se, e.sampling_se);
  EXPECT_EQ(s.estimate(8, c).samples, 0);
}

// A game pairs with the evaluation of the same pair and index; decided, void and unevaluated
// games give no data.
TEST(EvalScores, CalibrationDataMatchesGamesToTheirEvaluations) {
  EvalScores s;
  s.add(evaluated(1, 0, 0.7f));
  s.add(evaluated(1, 1, 0.4f));
  s.add(evaluated(2, 0, 0.0f, Reason::Ruling41, Winner::Gote));
  std::vector<PairResult> games = {
      {1, 0, 0, Winner::Sente, Reason::Mate, 80, -1},
      {1, 1, 0, Winner::Draw, Reason::Sennichite, 90, -1},
      {1, 2, 0, Winner::Gote, Reason::Mate, 70, -1},     // no evaluation of index 2
      {2, 0, 0, Winner::Gote, Reason::Ruling41, 0, -1},  // decided at move 41
      {1, 0, 0, Winner::None, Reason::MaxMoves, 320, -1}};
  const auto data = s.calibration_data(games);
  ASSERT_EQ(data.size(), 2u);
  EXPECT_NEAR(data[0].first, logit600(0.7), 1e-3);
  EXPECT_EQ(data[0].second, 1.0);
  EXPECT_NEAR(data[1].first, logit600(0.4), 1e-3);
  EXPECT_EQ(data[1].second, 0.5);
}

// With a band rule (scoring both), the rounds send games only to the rule's pairs, until each is
// as precise as asked; every other pair keeps its first-pass game.
TEST(TableAllocation, AGivenBandGetsGamesOnlyWhereImprecise) {
  const std::vector<double> p = simulated_rates(8);
  AllocationOptions o;
  o.first_pass = 1;
  o.band = 5;
  o.round_games = 256;
  o.target_halfwidth = 0.08;
  TableBuilder b(o, 3);
  const std::vector<int> band = {3, 77, 400, 901, 1295};
  b.set_band_rule([&] { return band; });
  SimulatedGames sim(p);
  b.run(sim, nullptr, nullptr);
  EXPECT_TRUE(b.band_precise());
  EXPECT_EQ(b.band(), band);
  long band_games = 0;
  for (int q = 0; q < KING_PAIRS; ++q) {
    const bool in = std::find(band.begin(), band.end(), q) != band.end();
    if (in) {
      const PairTally& t = b.tallies()[size_t(q)];
      band_games += t.games;
      double low, high;
      wilson_interval(t.points(), t.games, low, high);
      EXPECT_LE((high - low) / 2, o.target_halfwidth) << pair_key(q);
      EXPECT_GT(t.games, 20) << pair_key(q);
    } else {
      EXPECT_LE(b.tallies()[size_t(q)].games, 1) << pair_key(q);  // a draw-free first pass
    }
  }
  // No pair is measured far beyond the precision: at most one round's share too many.
  EXPECT_LE(band_games, 5 * (150 + 256 / 5) + 5);
}

TEST(EvalScores, AgreementOfEvaluationAndGames) {
  std::vector<PairEvalEstimate> eval(KING_PAIRS);
  std::vector<PairTally> games(KING_PAIRS);
  eval[10] = {0.55, 0.01, 0.01, 64};
  games[10].games = 100;
  games[10].sente_wins = 50;  // 0.50: eval 0.05 above
  eval[20] = {0.40, 0.01, 0.01, 64};
  games[20].games = 100;
  games[20].sente_wins = 50;         // eval 0.10 below
  eval[30] = {0.5, 0.01, 0.01, 64};  // no games: left out
  const EvalAgreement a = eval_agreement({10, 20, 30}, eval, games);
  EXPECT_EQ(a.pairs, 2);
  EXPECT_NEAR(a.mean_abs, 0.075, 1e-12);
  EXPECT_NEAR(a.mean_signed, -0.025, 1e-12);
  EXPECT_LT(a.low, a.mean_abs);
  EXPECT_GT(a.high, a.mean_abs);
  // The noise floor: sqrt(2 / pi) * sqrt(0.25 / 100 + 0.01^2) for each pair.
  EXPECT_NEAR(a.noise_floor, std::sqrt(2 / M_PI) * std::sqrt(0.0025 + 0.0001), 1e-9);
}
