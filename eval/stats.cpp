#include "eval/stats.h"

#include <algorithm>
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

double elo_of_score(double s) {
  s = std::clamp(s, 0.001, 0.999);
  return 400.0 * std::log10(s / (1 - s));
}

double score_of_elo(double elo) { return 1.0 / (1.0 + std::pow(10.0, -elo / 400.0)); }

StrengthEstimate strength_estimate(const Score& s) {
  StrengthEstimate e;
  e.games = s.games();
  e.score = s.mean();
  wilson_interval(s.points(), s.games(), e.low, e.high);
  e.elo = elo_of_score(e.score);
  e.elo_low = elo_of_score(e.low);
  e.elo_high = elo_of_score(e.high);
  return e;
}

double Sprt::llr(const Score& s) const {
  const int n = s.games();
  if (n == 0) return 0;
  const double mu = s.mean();
  // The variance estimate is poor over the first games (all alike: zero): a floor, and no
  // decision before kMinGames (Sprt::decide), keep a lucky start from deciding.
  const double var = std::max(s.variance(), 0.01);
  const double s0 = score_of_elo(elo0), s1 = score_of_elo(elo1);
  return n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var);
}

double Sprt::lower() const { return std::log(beta / (1 - alpha)); }
double Sprt::upper() const { return std::log((1 - beta) / alpha); }

GateVerdict gate_verdict(bool sequential, Sprt::Decision decision, const StrengthEstimate& e,
                         bool interval_at_cap) {
  if (sequential && decision == Sprt::Decision::H1) return {"better", "sprt"};
  if (sequential && decision == Sprt::Decision::H0) return {"not better", "sprt"};
  if (sequential && !interval_at_cap) return {"undecided", "the cap"};
  const std::string by = sequential ? "interval at the cap" : "interval";
  return {e.low > 0.5 ? "better" : e.high < 0.5 ? "worse" : "undecided", by};
}

Sprt::Decision Sprt::decide(const Score& s) const {
  if (s.games() < kMinGames) return Decision::Continue;
  double r = llr(s);
  return r >= upper() ? Decision::H1 : r <= lower() ? Decision::H0 : Decision::Continue;
}

const char* sprt_decision_name(Sprt::Decision d) {
  switch (d) {
    case Sprt::Decision::H0:
      return "H0";
    case Sprt::Decision::H1:
      return "H1";
    case Sprt::Decision::Continue:
      break;
  }
  return "continue";
}

}  // namespace fuseki
