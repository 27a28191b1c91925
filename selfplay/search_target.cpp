#include "selfplay/search_target.h"

#include <algorithm>
#include <cmath>

#include "rules/movegen.h"

namespace fuseki {

bool ruling41_decided(const Position& pos) {
  if (pos.ruling41_certain()) return true;
  // Gote's last drop (ply 40) with its king attacked: the move-40 restriction leaves only the
  // drops that end every attack, unless there are none, when every drop is legal; so the
  // ruling follows from any one legal drop exactly when it follows from all of them.
  if (!pos.info().placement || pos.ply() != PLACEMENT_PLIES - 1 || !pos.king_attacked(WHITE))
    return false;
  MoveList legal;
  generate_legal(pos, legal);
  if (legal.size == 0) return false;
  Position after = pos;
  after.do_move(legal.moves[0]);
  return after.ruling41();
}

float drop_value(const Position& parent, const Position& child, float child_value) {
  if (parent.info().balance_kings && parent.ply() < 2)
    return parent.ply() == 0 ? child_value : -std::fabs(child_value);
  if (ruling41_decided(child)) return parent.side_to_move() == BLACK ? 1.0f : -1.0f;
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

double mixed_value(double value, const double* logp, const double* q, const int* chosen, size_t n) {
  if (n == 0) return value;
  double top = -INFINITY;
  for (size_t c = 0; c < n; ++c) top = std::max(top, logp[chosen[c]]);
  double mass = 0, sum = 0;
  for (size_t c = 0; c < n; ++c) {
    double p = std::exp(logp[chosen[c]] - top);  // relative: the ratio needs no normalising
    mass += p;
    sum += p * q[chosen[c]];
  }
  return (value + double(n) * sum / mass) / (1 + double(n));
}

}  // namespace fuseki
