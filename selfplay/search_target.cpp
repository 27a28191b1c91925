#include "selfplay/search_target.h"

#include <algorithm>
#include <cmath>

namespace fuseki {

float drop_value(const Position& parent, const Position& child, float child_value) {
  if (parent.info().balance_kings && parent.ply() < 2)
    return parent.ply() == 0 ? child_value : -std::fabs(child_value);
  return child.side_to_move() == parent.side_to_move() ? child_value : -child_value;
}

double search_sigma(double q, double c_visit, double c_scale) {
  return (c_visit + 1) * c_scale * (q + 1) / 2;
}

void improved_policy(const double* logp, const double* q, size_t n, double c_visit, double c_scale,
                     double* out) {
  if (n == 0) return;
  for (size_t j = 0; j < n; ++j) out[j] = logp[j] + search_sigma(q[j], c_visit, c_scale);
  double top = *std::max_element(out, out + n), sum = 0;
  for (size_t j = 0; j < n; ++j) sum += (out[j] = std::exp(out[j] - top));
  for (size_t j = 0; j < n; ++j) out[j] /= sum;
}

}  // namespace fuseki
