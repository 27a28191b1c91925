// The move-41 evaluation as a win probability: P(Sente scores) = 1 / (1 + exp(-(bias + cp /
// scale))), cp from Sente's side. The scale (and the bias: what the move-41 position is worth to
// Sente beyond the engine's score) are fitted to the real results of played-out games by maximum
// likelihood, instead of a fixed constant. No LibTorch.
#pragma once

#include <utility>
#include <vector>

namespace fuseki {

struct EvalCalibration {
  double scale = 600;   // centipawns per unit of log-odds
  double bias = 0;      // log-odds at cp = 0
  int games = 0;        // games behind the fit (0: not fitted, the defaults)
  double log_loss = 0;  // mean cross-entropy of the fit on those games
  // Standard errors of the fit (the inverse of the log-likelihood's Hessian); 0: not fitted.
  double scale_se = 0, bias_se = 0;
  // The same covariance for (bias, slope = 100 / scale): what an estimate made with this
  // calibration inherits (EvalScores).
  double slope_se = 0, bias_slope_cov = 0;
};

double win_probability(const EvalCalibration& c, double sente_cp);
// The same evaluation under another calibration: a probability p made with `from` as made with
// `to` (the centipawns are recovered from p).
double recalibrate(double p, const EvalCalibration& from, const EvalCalibration& to);

// Fits scale and bias to (Sente's cp, Sente's score: 1, 1/2 or 0) pairs by Newton's method on the
// log-likelihood (Eigen). The scale is kept within [min_scale, max_scale] (a separable sample
// would drive it to 0); fewer than `min_games` games, or no spread in cp, returns `start`
// unchanged.
EvalCalibration fit_calibration(const std::vector<std::pair<double, double>>& cp_and_score,
                                EvalCalibration start = {}, int min_games = 100,
                                double min_scale = 20, double max_scale = 100000);

}  // namespace fuseki
