#include "eval/king_pairs.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "eval/stats.h"
#include "rules/notation.h"

namespace fuseki {

Square sente_king_square(int i) { return make_square(i % 9, 5 + i / 9); }
Square gote_king_square(int i) { return make_square(i % 9, 3 - i / 9); }

int pair_index(Square sente, Square gote) {
  if (sente < 0 || gote < 0 || rank_of(sente) < 5 || rank_of(gote) > 3) return -1;
  int si = (rank_of(sente) - 5) * 9 + file_of(sente);
  int gi = (3 - rank_of(gote)) * 9 + file_of(gote);
  return si * KING_SQUARES + gi;
}
Square pair_sente(int pair) { return sente_king_square(pair / KING_SQUARES); }
Square pair_gote(int pair) { return gote_king_square(pair % KING_SQUARES); }
std::string pair_key(int pair) {
  return square_name(pair_sente(pair)) + "," + square_name(pair_gote(pair));
}

int mirror_pair(int pair) {
  auto flip = [](Square s) { return make_square(8 - file_of(s), rank_of(s)); };
  return pair_index(flip(pair_sente(pair)), flip(pair_gote(pair)));
}

namespace {
double logit(double p) { return std::log(p / (1 - p)); }
double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
}  // namespace

TableFit fit_table(const std::vector<PairTally>& tallies, const std::vector<double>* prior) {
  TableFit fit;
  fit.pairs.resize(KING_PAIRS);
  // With a prior, its logit (centred) is one more covariate, with a fitted coefficient: a prior
  // that predicts nothing beyond the square effects gets about none.
  const bool with_prior = prior && prior->size() == size_t(KING_PAIRS);
  std::vector<double> x(KING_PAIRS, 0.0);
  if (with_prior) {
    double mean = 0;
    for (int p = 0; p < KING_PAIRS; ++p)
      mean += x[size_t(p)] = logit(std::clamp((*prior)[size_t(p)], 1e-4, 1 - 1e-4));
    mean /= KING_PAIRS;
    for (double& v : x) v -= mean;
  }
  // Weighted least squares on the logit scale: y_pair = a_sente + b_gote (+ beta x_pair), weight
  // n p (1 - p) (the inverse variance of an observed logit). The Gote effects sum to zero
  // (identifiability); a tiny ridge keeps squares without games at zero.
  const int params = 2 * KING_SQUARES + (with_prior ? 1 : 0), beta = 2 * KING_SQUARES;
  Eigen::MatrixXd normal = Eigen::MatrixXd::Zero(params, params);
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(params);
  std::vector<double> y(KING_PAIRS, 0), w(KING_PAIRS, 0);
  for (int p = 0; p < KING_PAIRS; ++p) {
    const PairTally& t = tallies[size_t(p)];
    if (t.games == 0) continue;
    double v = (t.points() + 0.5) / (t.games + 1.0);  // keeps 0 % and 100 % finite
    y[size_t(p)] = logit(v);
    w[size_t(p)] = t.games * v * (1 - v);
    int s = p / KING_SQUARES, g = KING_SQUARES + p % KING_SQUARES;
    normal(s, s) += w[size_t(p)];
    normal(g, g) += w[size_t(p)];
    normal(s, g) += w[size_t(p)];
    normal(g, s) += w[size_t(p)];
    rhs(s) += w[size_t(p)] * y[size_t(p)];
    rhs(g) += w[size_t(p)] * y[size_t(p)];
    if (with_prior) {
      const double xp = x[size_t(p)];
      normal(beta, beta) += w[size_t(p)] * xp * xp;
      normal(s, beta) += w[size_t(p)] * xp;
      normal(beta, s) += w[size_t(p)] * xp;
      normal(g, beta) += w[size_t(p)] * xp;
      normal(beta, g) += w[size_t(p)] * xp;
      rhs(beta) += w[size_t(p)] * xp * y[size_t(p)];
    }
  }
  double scale = std::max(1.0, normal.diagonal().maxCoeff());
  for (int i = KING_SQUARES; i < 2 * KING_SQUARES; ++i)
    for (int j = KING_SQUARES; j < 2 * KING_SQUARES; ++j)
      normal(i, j) += scale;  // sum of Gote effects = 0
  normal.diagonal().array() += 1e-6 * scale;
  Eigen::VectorXd theta = normal.ldlt().solve(rhs);
  if (with_prior) fit.prior_coefficient = theta(beta);
  for (int i = 0; i < KING_SQUARES; ++i) {
    fit.sente_logit[size_t(i)] = theta(i);
    fit.gote_logit[size_t(i)] = theta(KING_SQUARES + i);
  }

  // Interaction variance: weighted residual variance beyond what sampling explains
  // (method of moments; never below zero).
  double num = 0, den = 0, sampling = 0;
  int observed = 0;
  for (int p = 0; p < KING_PAIRS; ++p) {
    if (w[size_t(p)] <= 0) continue;
    double pred = theta(p / KING_SQUARES) + theta(KING_SQUARES + p % KING_SQUARES) +
                  (with_prior ? theta(beta) * x[size_t(p)] : 0.0);
    num += (y[size_t(p)] - pred) * (y[size_t(p)] - pred);
    sampling += 1 / w[size_t(p)];
    ++observed;
  }
  den = std::max(1, observed - params + 1);
  fit.sigma_interaction =
      std::sqrt(std::max(0.0, (num - sampling * double(den) / std::max(1, observed)) / den));
  double tau2 = std::max(fit.sigma_interaction * fit.sigma_interaction, 1e-4);

  for (int p = 0; p < KING_PAIRS; ++p) {
    const PairTally& t = tallies[size_t(p)];
    PairEstimate& e = fit.pairs[size_t(p)];
    double pred = theta(p / KING_SQUARES) + theta(KING_SQUARES + p % KING_SQUARES) +
                  (with_prior ? theta(beta) * x[size_t(p)] : 0.0);
    e.v_fit = sigmoid(pred);
    e.v_raw = t.score();
    wilson_interval(t.points(), t.games, e.low, e.high);
    if (t.games == 0) {
      e.v = e.v_fit;
      e.shrink_w = 0;
      e.se = std::sqrt(tau2) * e.v_fit * (1 - e.v_fit);
      continue;
    }
    // Precision-weighted blend on the logit scale: the raw logit's variance 1/w against tau^2.
    double var_raw = 1 / w[size_t(p)];
    e.shrink_w = tau2 / (tau2 + var_raw);
    double blended = e.shrink_w * y[size_t(p)] + (1 - e.shrink_w) * pred;
    e.v = sigmoid(blended);
    double var = 1 / (1 / var_raw + 1 / tau2);
    e.se = std::sqrt(var) * e.v * (1 - e.v);
  }
  return fit;
}

std::vector<int> band_of(const std::vector<PairEstimate>& estimates, int n) {
  std::vector<int> order(estimates.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return std::abs(estimates[size_t(a)].v - 0.5) < std::abs(estimates[size_t(b)].v - 0.5);
  });
  order.resize(std::min<size_t>(order.size(), size_t(std::max(0, n))));
  return order;
}

}  // namespace fuseki
