#include "eval/stats.h"

#include <cmath>
#include <sstream>

#include "engine/game.h"

namespace fuseki {

GenerationStats generation_stats(const std::vector<GameRow>& games) {
  GenerationStats s;
  double points = 0, moves = 0;
  int ruling = 0, stacks[2] = {0, 0};
  for (const GameRow& g : games) {
    if (g.winner == Winner::Void) ++s.voids;
    if (!scored(g.winner)) continue;  // void, or not played out
    ++s.games;
    if (g.winner == Winner::Draw) ++s.draws;
    points += score_of(g.winner, BLACK);
    ruling += g.reason == Reason::Ruling41;
    moves += g.play_moves;
    for (int c = 0; c < 2; ++c) stacks[c] += (g.shapes >> c) & 1;
  }
  if (s.games) {
    s.sente_score = points / s.games;
    s.ruling41_rate = double(ruling) / s.games;
    s.mean_moves = moves / s.games;
    for (int c = 0; c < 2; ++c) s.stack_rate[c] = double(stacks[c]) / s.games;
  }
  return s;
}

std::string to_json(const GenerationStats& s) {
  std::ostringstream o;
  o << "{\"games\":" << s.games << ",\"voids\":" << s.voids << ",\"draws\":" << s.draws
    << ",\"sente_score\":" << s.sente_score << ",\"ruling41_rate\":" << s.ruling41_rate
    << ",\"mean_moves\":" << s.mean_moves << ",\"stack_rate_sente\":" << s.stack_rate[0]
    << ",\"stack_rate_gote\":" << s.stack_rate[1] << "}";
  return o.str();
}

void wilson_interval(double points, int n, double& low, double& high) {
  if (n <= 0) {
    low = 0;
    high = 1;
    return;
  }
  const double z = 1.959964;
  double p = points / n, z2 = z * z;
  double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  double half = z * std::sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / (1 + z2 / n);
  low = centre - half;
  high = centre + half;
}

}  // namespace fuseki
