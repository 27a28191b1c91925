// King-pair table statistics on simulated games with known true rates: interval coverage, the
// fitted model, the band found, adaptive against uniform allocation, and resuming a run.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "eval/calibration.h"
#include "eval/placement_maps.h"
#include "eval/simulate.h"
#include "eval/stats.h"
#include "eval/table_builder.h"
#include "rules/rng.h"

using namespace fuseki;

namespace {
std::vector<double> true_rates(uint64_t seed, double interaction = 0.1) {
  return simulated_rates(seed, interaction);
}
using Simulated = SimulatedGames;
}  // namespace

TEST(KingPairs, IndexingAndMirror) {
  std::set<std::string> keys;
  for (int p = 0; p < KING_PAIRS; ++p) {
    EXPECT_EQ(pair_index(pair_sente(p), pair_gote(p)), p);
    EXPECT_EQ(mirror_pair(mirror_pair(p)), p);
    keys.insert(pair_key(p));
  }
  EXPECT_EQ(keys.size(), size_t(KING_PAIRS));
  EXPECT_EQ(pair_key(mirror_pair(pair_index(sente_king_square(0), gote_king_square(0)))), "9f,9d");
}

// The move-41 scale fitted to results recovers the scale and bias the games were drawn from.
TEST(Calibration, FitRecoversTheScaleAndBiasOfSimulatedGames) {
  for (auto [scale, bias] : {std::pair{400.0, 0.2}, std::pair{900.0, -0.3}}) {
    Rng rng{static_cast<uint64_t>(scale)};
    EvalCalibration truth{scale, bias};
    std::vector<std::pair<double, double>> games;
    for (int i = 0; i < 20000; ++i) {
      double cp = (rng.uniform() - 0.5) * 3000;
      games.push_back({cp, rng.uniform() < win_probability(truth, cp) ? 1.0 : 0.0});
    }
    EvalCalibration fit = fit_calibration(games);  // from the default 600, 0
    std::printf("[ calib    ] truth scale %.0f bias %+.2f: fitted %.0f %+.3f (%d games)\n", scale,
                bias, fit.scale, fit.bias, fit.games);
    EXPECT_NEAR(fit.scale, scale, scale * 0.06);
    EXPECT_NEAR(fit.bias, bias, 0.06);
    EXPECT_EQ(fit.games, 20000);
    // recalibrate maps a probability made with the default to the fitted one.
    EvalCalibration start;
    EXPECT_NEAR(recalibrate(win_probability(start, 300), start, fit), win_probability(fit, 300),
                1e-9);
  }
  // A draw counts half a win: all draws at every cp is log-odds 0 and no slope (the bound).
  std::vector<std::pair<double, double>> draws;
  for (int i = 0; i < 500; ++i) draws.push_back({double(i - 250), 0.5});
  EvalCalibration even = fit_calibration(draws);
  EXPECT_NEAR(even.bias, 0, 1e-6);
  EXPECT_EQ(even.scale, 100000);
  // Too few games, or no spread: the start, unchanged.
  EXPECT_EQ(fit_calibration({{100, 1}, {-100, 0}}).games, 0);
  std::vector<std::pair<double, double>> flat(500, {0.0, 1.0});
  EXPECT_EQ(fit_calibration(flat).scale, 600);
  // Separable results: the scale stays within its bounds.
  std::vector<std::pair<double, double>> separable;
  for (int i = 0; i < 500; ++i) separable.push_back({i % 2 ? 100.0 : -100.0, i % 2 ? 1.0 : 0.0});
  EXPECT_GE(fit_calibration(separable).scale, 20);
}

TEST(PlacementMaps, CountsEachSidesDropsBySquareAndKind) {
  GameRow a, b;
  a.record = "K*5i K*5a choose:sente G*4i R*2b P*1f 7g7f";  // 7g7f: a move, not a drop
  b.record = "K*5i K*4a choose:gote G*4i";
  PlacementCounts c = count_placements({a, b});
  EXPECT_EQ(c.games, 2);
  auto at = [&](int side, char kind, int file, char rank) {
    size_t k = size_t(std::string(PlacementCounts::kKinds).find(kind));
    return c.counts[size_t(side)][k][size_t((rank - 'a') * 9 + 9 - file)];
  };
  EXPECT_EQ(at(0, 'K', 5, 'i'), 2);
  EXPECT_EQ(at(1, 'K', 5, 'a'), 1);
  EXPECT_EQ(at(1, 'K', 4, 'a'), 1);
  EXPECT_EQ(at(0, 'G', 4, 'i'), 2);
  EXPECT_EQ(at(1, 'R', 2, 'b'), 1);
  EXPECT_EQ(at(0, 'P', 1, 'f'), 1);
  int total = 0;
  for (auto& side : c.counts)
    for (auto& kind : side)
      for (int n : kind) total += n;
  EXPECT_EQ(total, 8);
  std::string svg = placement_heatmaps_svg(c, "gen-0000");
  EXPECT_NE(svg.find("<title>5i: 100 %</title>"), std::string::npos);
  EXPECT_NE(svg.find("(2 games;"), std::string::npos);
}

TEST(Strength, EloAndScoreAreInverses) {
  EXPECT_DOUBLE_EQ(elo_of_score(0.5), 0.0);
  EXPECT_NEAR(elo_of_score(0.75), 190.85, 0.01);
  EXPECT_NEAR(elo_of_score(0.25), -190.85, 0.01);
  for (double e : {-400.0, -35.0, 0.0, 120.0, 800.0})
    EXPECT_NEAR(elo_of_score(score_of_elo(e)), e, 1e-9);
  EXPECT_NEAR(elo_of_score(1.0), 1199.8, 0.1);  // clamped, finite
  Score s;
  for (int i = 0; i < 80; ++i) s.add(1);
  for (int i = 0; i < 20; ++i) s.add(0);
  StrengthEstimate e = strength_estimate(s);
  EXPECT_EQ(e.games, 100);
  EXPECT_DOUBLE_EQ(e.score, 0.8);
  EXPECT_LT(e.low, 0.8);
  EXPECT_GT(e.high, 0.8);
  EXPECT_NEAR(e.elo_low, elo_of_score(e.low), 1e-12);
  EXPECT_LT(e.elo_low, e.elo);
  EXPECT_GT(e.elo_high, e.elo);
}

// The SPRT's stated error rates hold on simulated games: with no real difference it accepts H1
// (a better candidate) in at most about alpha of the runs; with a real one it accepts H1.
TEST(Strength, SprtKeepsItsErrorRates) {
  Sprt test;  // H0: 0 Elo, H1: 30 Elo, alpha = beta = 0.05
  auto run = [&](double true_elo, uint64_t seed) {
    Rng rng(seed);
    // Draws 20 %, the rest split to give the true expected score.
    double p_draw = 0.2, p_win = score_of_elo(true_elo) - p_draw / 2;
    Score s;
    for (int n = 0; n < 20000; ++n) {
      double u = rng.uniform();
      s.add(u < p_win ? 1.0 : u < p_win + p_draw ? 0.5 : 0.0);
      Sprt::Decision d = test.decide(s);
      if (d != Sprt::Decision::Continue) return d;
    }
    return Sprt::Decision::Continue;
  };
  int false_accepts = 0, true_accepts = 0, runs = 400;
  for (int i = 0; i < runs; ++i) {
    false_accepts += run(0, 1000 + uint64_t(i)) == Sprt::Decision::H1;
    true_accepts += run(60, 5000 + uint64_t(i)) == Sprt::Decision::H1;
  }
  std::printf("[ strength ] SPRT(0, 30): H1 accepted at 0 Elo %d/%d, at 60 Elo %d/%d\n",
              false_accepts, runs, true_accepts, runs);
  EXPECT_LE(false_accepts, runs * 0.08);
  EXPECT_GE(true_accepts, runs * 0.95);
  EXPECT_EQ(std::string(sprt_decision_name(Sprt::Decision::H1)), "H1");
}

// The gate's verdict: the SPRT's decision where it made one; at the cap, undecided, the 95 %
// interval (gating.at_cap = interval) or nothing (reject); without the SPRT, the interval.
TEST(Strength, GateVerdictFallsBackToTheIntervalAtTheCap) {
  auto estimate = [](double wins, int games) {
    Score s;
    for (int i = 0; i < games; ++i) s.add(i < wins ? 1.0 : 0.0);
    return strength_estimate(s);
  };
  const StrengthEstimate above = estimate(850, 1600);  // 0.531 [0.507, 0.556]
  const StrengthEstimate level = estimate(820, 1600);  // 0.513: the interval holds 50 %
  const StrengthEstimate below = estimate(750, 1600);
  ASSERT_GT(above.low, 0.5);
  ASSERT_LT(level.low, 0.5);
  ASSERT_GT(level.high, 0.5);
  ASSERT_LT(below.high, 0.5);
  using D = Sprt::Decision;
  auto is = [](const GateVerdict& v, const char* verdict, const char* by) {
    return v.verdict == verdict && v.by == by;
  };
  EXPECT_TRUE(is(gate_verdict(true, D::H1, level, true), "better", "sprt"));
  EXPECT_TRUE(is(gate_verdict(true, D::H0, above, true), "not better", "sprt"));
  EXPECT_TRUE(is(gate_verdict(true, D::Continue, above, true), "better", "interval at the cap"));
  EXPECT_TRUE(is(gate_verdict(true, D::Continue, level, true), "undecided", "interval at the cap"));
  EXPECT_TRUE(is(gate_verdict(true, D::Continue, below, true), "worse", "interval at the cap"));
  EXPECT_TRUE(is(gate_verdict(true, D::Continue, above, false), "undecided", "the cap"));
  EXPECT_TRUE(is(gate_verdict(false, D::Continue, above, false), "better", "interval"));
  EXPECT_TRUE(is(gate_verdict(false, D::Continue, level, true), "undecided", "interval"));
}

// The error rate the gate states for the SPRT with the interval at its cap: with no real
// difference, a match of at most 1,600 games (the second stage's cap in cpu-hour.toml, looked at
// every 128 games) takes the candidate in at most alpha + 0.025 of the runs (the SPRT's alpha,
// and the one-sided 2.5 % of a final 95 % interval); with a real difference of 30 Elo, in
// nearly all.
TEST(Strength, SprtWithTheIntervalAtTheCapKeepsItsStatedErrorRate) {
  const Sprt test{0, 10, 0.05, 0.05};  // cpu-hour.toml's gate
  auto taken = [&](double true_elo, uint64_t seed, bool interval_at_cap = true) {
    Rng rng(seed);
    double p_draw = 0.02, p_win = score_of_elo(true_elo) - p_draw / 2;
    Score s;
    Sprt::Decision decision = Sprt::Decision::Continue;
    for (int looked = 0; looked < 1600 && decision == Sprt::Decision::Continue;) {
      for (int n = 0; n < 128; ++n, ++looked) {
        double u = rng.uniform();
        s.add(u < p_win ? 1.0 : u < p_win + p_draw ? 0.5 : 0.0);
      }
      decision = test.decide(s);
    }
    return gate_verdict(true, decision, strength_estimate(s), interval_at_cap).verdict == "better";
  };
  int false_takes = 0, true_takes = 0, sprt_only = 0, runs = 1000;
  for (int i = 0; i < runs; ++i) {
    false_takes += taken(0, 7000 + uint64_t(i));
    true_takes += taken(30, 9000 + uint64_t(i));
    sprt_only += taken(30, 9000 + uint64_t(i), false);
  }
  std::printf(
      "[ strength ] SPRT(0, 10) to 1,600 games, interval at the cap: taken at 0 Elo %d/%d, "
      "at 30 Elo %d/%d (rejecting at the cap: %d)\n",
      false_takes, runs, true_takes, runs, sprt_only);
  EXPECT_LE(false_takes, runs * 0.075);
  EXPECT_GE(true_takes, runs * 0.9);
  EXPECT_GE(true_takes, sprt_only);  // the interval only adds
}

TEST(TableStatistics, WilsonIntervalsCoverNear95Percent) {
  std::vector<double> p = true_rates(1);
  AllocationOptions o;
  o.adaptive = false;
  o.first_pass = 30;
  TableBuilder b(o, 7);
  Simulated sim(p);
  b.run(sim, nullptr, nullptr);
  int covered = 0;
  for (int i = 0; i < KING_PAIRS; ++i) {
    const PairTally& t = b.tallies()[size_t(i)];
    double low, high;
    wilson_interval(t.points(), t.games, low, high);
    covered += low <= p[size_t(i)] && p[size_t(i)] <= high;
  }
  double coverage = double(covered) / KING_PAIRS;
  std::printf("[ table    ] Wilson 95 %% coverage over 1296 pairs x 30 games: %.3f\n", coverage);
  EXPECT_GT(coverage, 0.92);
  EXPECT_LT(coverage, 0.985);
}

TEST(TableStatistics, TheFitPoolsWhatAllPairsKnow) {
  std::vector<double> p = true_rates(2, 0.05);
  AllocationOptions o;
  o.adaptive = false;
  o.first_pass = 8;
  TableBuilder b(o, 9);
  Simulated sim(p);
  b.run(sim, nullptr, nullptr);
  TableFit f = b.fit();
  double raw = 0, shrunk = 0;
  for (int i = 0; i < KING_PAIRS; ++i) {
    raw += std::pow(f.pairs[size_t(i)].v_raw - p[size_t(i)], 2);
    shrunk += std::pow(f.pairs[size_t(i)].v - p[size_t(i)], 2);
  }
  std::printf("[ table    ] 8 games per pair: RMS error raw %.4f, shrunk %.4f\n",
              std::sqrt(raw / KING_PAIRS), std::sqrt(shrunk / KING_PAIRS));
  EXPECT_LT(shrunk, raw * 0.5);  // the model needs far fewer games for the same precision
}

TEST(TableAllocation, AdaptiveFindsTheBandCheaperThanUniform) {
  std::vector<double> p = true_rates(3);
  AllocationOptions o;
  o.first_pass = 4;
  o.band = 48;
  o.round_games = 1024;
  o.target_halfwidth = 0.03;
  o.max_games = 1000000;
  TableBuilder b(o, 11);
  Simulated sim(p);
  b.run(sim, nullptr, nullptr);
  std::vector<int> truth(KING_PAIRS);
  for (int i = 0; i < KING_PAIRS; ++i) truth[size_t(i)] = i;
  std::sort(truth.begin(), truth.end(), [&](int x, int y) {
    return std::abs(p[size_t(x)] - 0.5) < std::abs(p[size_t(y)] - 0.5);
  });
  // Pairs nearer to 50 % than the games can tell apart are interchangeable: the band is right
  // when it holds no pair clearly farther from even than the true band's edge.
  double edge = std::abs(p[size_t(truth[47])] - 0.5);
  std::set<int> true_band(truth.begin(), truth.begin() + 48);
  int exact = 0, near = 0;
  double worst = 0;
  for (int q : b.band()) {
    double d = std::abs(p[size_t(q)] - 0.5);
    exact += true_band.count(q);
    near += d <= edge + 0.03;  // the asked half-width
    worst = std::max(worst, d);
  }
  std::printf(
      "[ table    ] adaptive: %ld games in %d rounds; band: %d exact, %d within 3 points of the "
      "true edge "
      "(%.3f), worst %.3f; uniform to the same band precision: %ld games\n",
      b.games_played(), b.rounds(), exact, near, edge, worst, b.uniform_equivalent());
  EXPECT_TRUE(b.band_precise());
  EXPECT_GE(near, 44);
  EXPECT_LT(worst, edge + 0.06);
  EXPECT_LT(b.games_played() * 2, b.uniform_equivalent());
}

TEST(TableAllocation, AnInterruptedRunResumesToTheSameTable) {
  std::vector<double> p = true_rates(4);
  AllocationOptions o;
  o.first_pass = 2;
  o.round_games = 512;
  o.max_games = 12000;
  // Uninterrupted.
  TableBuilder full(o, 5);
  Simulated sim(p);
  full.run(sim, nullptr, nullptr);
  // Killed twice, each time resumed from the journal alone.
  std::vector<Schedule> schedules;
  std::vector<PairResult> results;
  for (long kill_at : {3000L, 5000L, -1L}) {
    TableBuilder b(o, 5);
    for (const Schedule& s : schedules) b.restore_schedule(s);
    for (const PairResult& r : results) b.restore_result(r);
    Simulated flaky(p, kill_at);
    try {
      b.run(
          flaky, [&](const Schedule& s) { schedules.push_back(s); },
          [&](const PairResult& r) { results.push_back(r); });
    } catch (const std::runtime_error&) {
      continue;
    }
    for (int i = 0; i < KING_PAIRS; ++i) {
      EXPECT_EQ(b.tallies()[size_t(i)].games, full.tallies()[size_t(i)].games) << pair_key(i);
      EXPECT_EQ(b.tallies()[size_t(i)].sente_wins, full.tallies()[size_t(i)].sente_wins)
          << pair_key(i);
    }
    EXPECT_EQ(b.games_played(), full.games_played());
  }
}

// The cluster's rounds (eval table --plan): a fresh builder per round, fed the schedules and the
// results of the rounds before, asks for the next schedule; each round's games are played by
// three "processes" (every third game), whose results come back slice by slice. The schedules,
// the tallies and the rounds are those of one uninterrupted run().
TEST(TableAllocation, RoundsPlannedOneAtATimeMatchOneRun) {
  std::vector<double> p = true_rates(6);
  AllocationOptions o;
  o.first_pass = 1;
  o.band = 24;
  o.round_games = 300;
  o.target_halfwidth = 0.1;
  o.max_games = 4000;  // the last round is cut to the budget
  TableBuilder full(o, 9);
  Simulated sim(p);
  std::vector<Schedule> full_schedules;
  full.run(
      sim, [&](const Schedule& s) { full_schedules.push_back(s); }, nullptr);

  std::vector<Schedule> schedules;
  std::vector<PairResult> results;
  for (int planned = 0;; ++planned) {
    ASSERT_LT(planned, 100);
    TableBuilder b(o, 9);
    for (const Schedule& s : schedules) b.restore_schedule(s);
    for (const PairResult& r : results) b.restore_result(r);
    Schedule next = b.next_schedule();
    if (next.games.empty()) {
      EXPECT_EQ(b.rounds(), full.rounds());
      EXPECT_EQ(b.games_played(), full.games_played());
      EXPECT_EQ(b.band(), full.band());
      EXPECT_EQ(b.band_precise(), full.band_precise());
      EXPECT_EQ(b.uniform_equivalent(), full.uniform_equivalent());
      for (int i = 0; i < KING_PAIRS; ++i) {
        const PairTally &x = b.tallies()[size_t(i)], &y = full.tallies()[size_t(i)];
        EXPECT_EQ(x.games, y.games) << pair_key(i);
        EXPECT_EQ(x.sente_wins, y.sente_wins) << pair_key(i);
        EXPECT_EQ(x.draws, y.draws) << pair_key(i);
      }
      break;
    }
    ASSERT_LT(size_t(planned), full_schedules.size());
    const Schedule& want = full_schedules[size_t(planned)];
    EXPECT_EQ(next.round, want.round);
    ASSERT_EQ(next.games.size(), want.games.size()) << "round " << next.round;
    for (size_t k = 0; k < want.games.size(); ++k) {
      EXPECT_EQ(next.games[k].pair, want.games[k].pair);
      EXPECT_EQ(next.games[k].index, want.games[k].index);
      EXPECT_EQ(next.games[k].seed, want.games[k].seed);
    }
    schedules.push_back(next);
    for (int slice = 2; slice >= 0; --slice) {  // the slices finish in any order
      std::vector<PairGame> mine;
      for (size_t k = size_t(slice); k < next.games.size(); k += 3) mine.push_back(next.games[k]);
      sim.play(mine, [&](const PairResult& r) { results.push_back(r); });
    }
  }
  EXPECT_GE(full.rounds(), 3);
  EXPECT_EQ(full.games_played(), o.max_games);
}
