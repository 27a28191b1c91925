#include "net/sample.h"

#include <cmath>

#include "net/encode.h"

namespace fuseki::net {

Move sample_drop(const Position& pos, const float* policy, double temperature, Rng& rng) {
  uint8_t mask[kPolicySize];
  const int legal = legal_mask(pos, mask);
  if (legal == 0) return MOVE_NONE;

  int best = -1;
  for (int i = 0; i < kPolicySize; ++i)
    if (mask[i] && (best < 0 || policy[i] > policy[best])) best = i;
  if (!(policy[best] > 0)) {  // no weight on any legal drop: uniform over them
    uint32_t k = rng.below(uint32_t(legal));
    for (int i = 0; i < kPolicySize; ++i)
      if (mask[i] && k-- == 0) return policy_move(pos, i);
  }
  if (temperature <= 0) return policy_move(pos, best);

  // Weights relative to the best, p^(1/T) = exp(log(p / p_best) / T), so a low temperature
  // cannot underflow all of them.
  double weights[kPolicySize];
  double total = 0;
  const double inv_t = 1.0 / temperature, log_best = std::log(double(policy[best]));
  for (int i = 0; i < kPolicySize; ++i) {
    weights[i] = 0;
    if (mask[i] && policy[i] > 0)
      weights[i] = std::exp((std::log(double(policy[i])) - log_best) * inv_t);
    total += weights[i];
  }
  double r = rng.uniform() * total;
  int last = best;
  for (int i = 0; i < kPolicySize; ++i) {
    if (weights[i] <= 0) continue;
    last = i;
    if (r < weights[i]) return policy_move(pos, i);
    r -= weights[i];
  }
  return policy_move(pos, last);  // rounding left r just above the last weight
}

}  // namespace fuseki::net
