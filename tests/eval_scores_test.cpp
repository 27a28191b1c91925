// Scoring king pairs by evaluation (eval table --score eval|both): the calibration's standard
// errors cover the truth, each pair's estimate from its evaluated samples, the calibration data
// matched to games by pair and index, a prior from an evaluation saves games, and the agreement of
// evaluation and games.
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

// Scoring both: the fit made around an evaluation's prior. Where the pairs depart from the additive
// model (interaction), a prior that knows them settles the pairs far from even with few games,
// so the adaptive rounds find the band with fewer games; a flat prior (0.5 everywhere) is the
// additive model alone, the same allocation as no prior.
TEST(TableAllocation, APriorFromAnEvaluationSavesGames) {
  const std::vector<double> p = simulated_rates(8, 0.8);
  // The true band edge: how far from even the 48th closest pair truly is.
  std::vector<double> dist;
  for (double x : p) dist.push_back(std::abs(x - 0.5));
  std::sort(dist.begin(), dist.end());
  const double edge = dist[47];
  Rng noise(5);
  std::vector<double> good(KING_PAIRS), flat(KING_PAIRS, 0.5);
  for (int q = 0; q < KING_PAIRS; ++q) {  // the truth's logit plus noise of sd 0.1
    const double z = std::log(p[size_t(q)] / (1 - p[size_t(q)])) + (noise.uniform() - 0.5) * 0.35;
    good[size_t(q)] = 1 / (1 + std::exp(-z));
  }
  auto run = [&](const std::vector<double>* prior) {
    AllocationOptions o;
    o.first_pass = 1;
    o.round_games = 512;
    o.target_halfwidth = 0.05;
    o.max_games = 400000;
    TableBuilder b(o, 3);
    if (prior) b.set_prior([prior] { return *prior; });
    SimulatedGames sim(p);
    b.run(sim, nullptr, nullptr);
    EXPECT_TRUE(b.band_precise());
    double worst = 0;  // the band's pair truly farthest from even
    for (int q : b.band()) worst = std::max(worst, std::abs(p[size_t(q)] - 0.5));
    return std::pair{b.games_played(), worst};
  };
  const auto none = run(nullptr), with_good = run(&good), with_flat = run(&flat);
  std::printf(
      "[ prior    ] true band edge %.3f; games to a precise band and its truly farthest "
      "pair: no prior %ld (%.3f), a good prior %ld (%.3f), a flat one %ld (%.3f)\n",
      edge, none.first, none.second, with_good.first, with_good.second, with_flat.first,
      with_flat.second);
  EXPECT_LT(double(with_good.first), 0.8 * double(none.first));
  // Nearly the right band (each pair's own games are +-0.05), where the additive model alone
  // takes pairs far from even.
  EXPECT_LT(with_good.second, edge + 0.075);
  EXPECT_LT(with_good.second, none.second);
  EXPECT_EQ(with_flat, none);
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
