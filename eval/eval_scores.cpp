#include "eval/eval_scores.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "eval/stats.h"

namespace fuseki {

EvalScores::EvalScores() : samples_(KING_PAIRS) {}

void EvalScores::add(const PairResult& r) {
  std::vector<EvalSample>& v = samples_[size_t(r.pair)];
  if (size_t(r.index) >= v.size()) v.resize(size_t(r.index) + 1);
  EvalSample& s = v[size_t(r.index)];
  if (s.present) return;  // a journal holding it twice counts it once
  if (r.reason == Reason::Ruling41) {
    s.decided = true;
    s.score = score_of(r.winner, BLACK);
  } else if (r.sente_eval > 0 && r.sente_eval < 1) {
    const double p = r.sente_eval;
    s.cp = std::log(p / (1 - p)) * kEvalPassScale;
  } else if (r.sente_eval == 0 || r.sente_eval == 1) {  // a mate score: the same whatever scale
    s.decided = true;
    s.score = r.sente_eval;
  } else {
    return;  // the engine gave no evaluation
  }
  s.present = true;
  ++evaluations_;
}

void EvalScores::add_pair_value(int pair, double sente_score) {
  per_pair_ = true;
  const double p = std::clamp(sente_score, 1e-6, 1 - 1e-6);
  PairResult r;
  r.pair = pair;
  r.sente_eval = float(p);
  add(r);
}

const EvalSample& EvalScores::sample(int pair, int index) const {
  static const EvalSample none;
  const std::vector<EvalSample>& v = samples_[size_t(pair)];
  return size_t(index) < v.size() ? v[size_t(index)] : none;
}

std::vector<std::pair<double, double>> EvalScores::calibration_data(
    const std::vector<PairResult>& games) const {
  std::vector<std::pair<double, double>> data;
  for (const PairResult& g : games) {
    const EvalSample& s = sample(g.pair, per_pair_ ? 0 : g.index);
    if (!s.present || s.decided || !scored(g.winner) || g.reason == Reason::Ruling41) continue;
    data.push_back({s.cp, score_of(g.winner, BLACK)});
  }
  return data;
}

EvalCalibration EvalScores::fit(const std::vector<PairResult>& games) const {
  return fit_calibration(calibration_data(games), EvalCalibration{kEvalPassScale, 0, 0, 0}, 100);
}

PairEvalEstimate EvalScores::estimate(int pair, const EvalCalibration& c) const {
  double sum = 0, sum2 = 0, d_bias = 0, d_slope = 0;
  int n = 0;
  for (const EvalSample& s : samples_[size_t(pair)]) {
    if (!s.present) continue;
    const double p = s.decided ? s.score : win_probability(c, s.cp);
    sum += p;
    sum2 += p * p;
    if (!s.decided) {  // dp/dbias = p (1 - p); dp/dslope = p (1 - p) cp / 100
      d_bias += p * (1 - p);
      d_slope += p * (1 - p) * s.cp / 100;
    }
    ++n;
  }
  PairEvalEstimate e;
  e.samples = n;
  if (n == 0) return e;
  e.v = sum / n;
  const double var = per_pair_ ? 0.0
                     : n > 1   ? std::max(0.0, (sum2 - n * e.v * e.v) / (n - 1))
                               : 0.25;
  // The sampling variance of the mean, plus the calibration's (delta method): its error moves
  // every pair the same way.
  d_bias /= n;
  d_slope /= n;
  const double calibration = d_bias * d_bias * c.bias_se * c.bias_se +
                             d_slope * d_slope * c.slope_se * c.slope_se +
                             2 * d_bias * d_slope * c.bias_slope_cov;
  e.sampling_se = std::sqrt(var / n);
  e.se = std::sqrt(var / n + std::max(0.0, calibration));
  return e;
}

std::vector<PairEvalEstimate> EvalScores::estimates(const EvalCalibration& c) const {
  std::vector<PairEvalEstimate> out(KING_PAIRS);
  for (int p = 0; p < KING_PAIRS; ++p) out[size_t(p)] = estimate(p, c);
  return out;
}

std::vector<int> eval_band(const std::vector<PairEvalEstimate>& e, int n) {
  std::vector<int> order;
  for (int p = 0; p < int(e.size()); ++p)
    if (e[size_t(p)].samples > 0) order.push_back(p);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return std::abs(e[size_t(a)].v - 0.5) < std::abs(e[size_t(b)].v - 0.5);
  });
  order.resize(std::min<size_t>(order.size(), size_t(std::max(0, n))));
  return order;
}

EvalAgreement eval_agreement(const std::vector<int>& pairs,
                             const std::vector<PairEvalEstimate>& eval,
                             const std::vector<PairTally>& games) {
  EvalAgreement a;
  std::vector<double> d;
  double floor = 0;
  for (int p : pairs) {
    const PairTally& t = games[size_t(p)];
    if (t.games == 0 || eval[size_t(p)].samples == 0) continue;
    const double vg = t.score();
    d.push_back(eval[size_t(p)].v - vg);
    const double se2 =
        std::max(vg * (1 - vg), 0.01) / t.games + std::pow(eval[size_t(p)].sampling_se, 2);
    floor += std::sqrt(2 * se2 / M_PI);  // E|N(0, s^2)| = s sqrt(2 / pi)
  }
  a.pairs = int(d.size());
  if (d.empty()) return a;
  double sum = 0, sum_abs = 0, sum_abs2 = 0;
  for (double x : d) sum += x, sum_abs += std::abs(x), sum_abs2 += x * x;
  const double n = double(d.size());
  a.mean_signed = sum / n;
  a.mean_abs = sum_abs / n;
  const double var =
      d.size() > 1 ? std::max(0.0, (sum_abs2 - n * a.mean_abs * a.mean_abs) / (n - 1)) : 0.0;
  const double half = 1.959964 * std::sqrt(var / n);
  a.low = std::max(0.0, a.mean_abs - half);
  a.high = a.mean_abs + half;
  a.noise_floor = floor / n;
  return a;
}

}  // namespace fuseki
