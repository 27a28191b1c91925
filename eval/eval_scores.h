// Scoring king pairs by evaluation (eval table --score eval|both): each pair's sampled placements
// are played to move 41 and scored by an engine search, and the scores are turned into Sente's
// win probability by a logistic scale fitted to real game results of the same placements (a game
// and an evaluation with the same seed place the same pieces). No LibTorch.
#pragma once

#include <vector>

#include "eval/calibration.h"
#include "eval/table_builder.h"

namespace fuseki {

// The evaluation of one sampled placement.
struct EvalSample {
  bool present = false;
  bool decided = false;  // the move-41 ruling decided the game: `score` is its result
  double cp = 0;         // Sente's centipawns (not decided)
  double score = 0.5;
};

// The probability that the evaluation pass's games carry (SelfPlayOptions eval_scale/eval_bias):
// the centipawns are recovered from it.
constexpr double kEvalPassScale = 600;

struct PairEvalEstimate {
  double v = 0.5;            // mean win probability over the samples
  double se = 0.5;           // its standard error: the samples' and the calibration's
  double sampling_se = 0.5;  // the samples' alone
  int samples = 0;
};

// How well evaluation and games agree on a set of pairs: the mean of |v_eval - v_games| with a
// 95 % interval (normal, over the pairs), and the mean difference (a bias of the calibration).
struct EvalAgreement {
  int pairs = 0;
  double mean_abs = 0, low = 0, high = 0, mean_signed = 0;
  // What the games' own sampling noise alone would give: the mean of E|N(0, se_games^2 +
  // se_eval^2)| over the pairs, so a mean_abs near it means agreement within noise.
  double noise_floor = 0;
};

class EvalScores {
 public:
  EvalScores();
  // An evaluation-pass result (PlacementGames without play-out, eval_nodes > 0).
  void add(const PairResult& r);
  // One evaluation of the pair itself rather than of sampled placements (the value head at the
  // position after the kings: eval table --eval-engine value): sample 0, matched with every game
  // of the pair, no sampling error.
  void add_pair_value(int pair, double sente_score);
  const EvalSample& sample(int pair, int index) const;
  int samples(int pair) const { return int(samples_[size_t(pair)].size()); }
  long evaluations() const { return evaluations_; }

  // The calibration data: each game result whose placement was evaluated (same pair and index),
  // as (Sente's cp, Sente's score), games decided at move 41 and void games left out.
  std::vector<std::pair<double, double>> calibration_data(
      const std::vector<PairResult>& games) const;
  EvalCalibration fit(const std::vector<PairResult>& games) const;

  PairEvalEstimate estimate(int pair, const EvalCalibration& c) const;
  std::vector<PairEvalEstimate> estimates(const EvalCalibration& c) const;

 private:
  std::vector<std::vector<EvalSample>> samples_;  // per pair, by index
  long evaluations_ = 0;
  bool per_pair_ = false;
};

// The `n` pairs whose evaluation is closest to 50 %, closest first.
std::vector<int> eval_band(const std::vector<PairEvalEstimate>& e, int n);

EvalAgreement eval_agreement(const std::vector<int>& pairs,
                             const std::vector<PairEvalEstimate>& eval,
                             const std::vector<PairTally>& games);

}  // namespace fuseki
