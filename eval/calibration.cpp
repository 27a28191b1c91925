#include "eval/calibration.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace fuseki {
namespace {

double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }

}  // namespace

double win_probability(const EvalCalibration& c, double sente_cp) {
  return sigmoid(c.bias + sente_cp / c.scale);
}

double recalibrate(double p, const EvalCalibration& from, const EvalCalibration& to) {
  p = std::clamp(p, 1e-9, 1 - 1e-9);
  double cp = (std::log(p / (1 - p)) - from.bias) * from.scale;
  return win_probability(to, cp);
}

EvalCalibration fit_calibration(const std::vector<std::pair<double, double>>& data,
                                EvalCalibration start, int min_games, double min_scale,
                                double max_scale) {
  if (int(data.size()) < min_games) return start;
  double lo = data[0].first, hi = lo;
  for (auto& [cp, y] : data) lo = std::min(lo, cp), hi = std::max(hi, cp);
  if (hi - lo < 1) return start;
  // theta = (bias, 1 / scale); cp in hundreds keeps the Hessian well scaled.
  Eigen::Vector2d theta(start.bias, 100.0 / start.scale);
  auto loss_of = [&](const Eigen::Vector2d& t) {
    double sum = 0;
    for (auto& [cp, y] : data) {
      double p = std::clamp(sigmoid(t(0) + t(1) * cp / 100), 1e-12, 1 - 1e-12);
      sum -= y * std::log(p) + (1 - y) * std::log(1 - p);
    }
    return sum / double(data.size());
  };
  for (int iter = 0; iter < 50; ++iter) {
    Eigen::Vector2d grad = Eigen::Vector2d::Zero();
    Eigen::Matrix2d hess = Eigen::Matrix2d::Identity() * 1e-6;  // keeps it invertible
    for (auto& [cp, y] : data) {
      Eigen::Vector2d x(1.0, cp / 100);
      double p = sigmoid(theta.dot(x));
      grad += (p - y) * x;
      hess += p * (1 - p) * x * x.transpose();
    }
    Eigen::Vector2d step = hess.ldlt().solve(grad);
    // Halve the step until the loss does not rise (Newton can overshoot far from the optimum).
    double before = loss_of(theta), scale_step = 1;
    Eigen::Vector2d next = theta - step;
    while (loss_of(next) > before && scale_step > 1e-4) {
      scale_step /= 2;
      next = theta - scale_step * step;
    }
    theta = next;
    if (step.norm() * scale_step < 1e-9) break;
  }
  EvalCalibration fit;
  fit.bias = theta(0);
  fit.scale = std::clamp(theta(1) > 0 ? 100.0 / theta(1) : max_scale, min_scale, max_scale);
  fit.games = int(data.size());
  fit.log_loss = loss_of(Eigen::Vector2d(fit.bias, 100.0 / fit.scale));
  // The covariance of (bias, 100 / scale) is the inverse Hessian at the optimum; the scale's
  // standard error by the delta method.
  Eigen::Matrix2d hess = Eigen::Matrix2d::Zero();
  for (auto& [cp, y] : data) {
    Eigen::Vector2d x(1.0, cp / 100);
    double p = sigmoid(theta.dot(x));
    hess += p * (1 - p) * x * x.transpose();
  }
  if (std::abs(hess.determinant()) > 1e-12) {
    const Eigen::Matrix2d cov = hess.inverse();
    fit.bias_se = std::sqrt(std::max(0.0, cov(0, 0)));
    fit.slope_se = std::sqrt(std::max(0.0, cov(1, 1)));
    fit.bias_slope_cov = cov(0, 1);
    fit.scale_se =
        theta(1) > 0 ? 100.0 * std::sqrt(std::max(0.0, cov(1, 1))) / (theta(1) * theta(1)) : 0.0;
  }
  return fit;
}

}  // namespace fuseki
