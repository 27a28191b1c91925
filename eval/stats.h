// Per-generation statistics of self-play games: what users look at to see what the policy
// learned (Sente's score, the move-41 ruling rate, game length, the "triple rocket" rate).
#pragma once

#include <string>
#include <vector>

#include "selfplay/shard.h"

namespace fuseki {

struct GenerationStats {
  int games = 0, voids = 0, draws = 0;
  double sente_score = 0;         // Sente's score, draws half, void games left out
  double ruling41_rate = 0;       // games decided by the move-41 ruling
  double mean_moves = 0;          // moves of ordinary play
  double stack_rate[2] = {0, 0};  // rook and both lances on one file, per side
};

GenerationStats generation_stats(const std::vector<GameRow>& games);
std::string to_json(const GenerationStats& s);

// A 95 % Wilson interval for a score of `points` out of `n`.
void wilson_interval(double points, int n, double& low, double& high);

// One side's scores over a set of games: results (1, 1/2, 0) or expected scores in [0, 1] (a
// move-41 evaluation). Wins, draws and losses count results (an expected score goes to the
// nearest).
struct Score {
  int wins = 0, draws = 0, losses = 0;
  double sum = 0, sum_squares = 0;
  int games() const { return wins + draws + losses; }
  double points() const { return sum; }
  double mean() const { return games() ? sum / games() : 0.5; }
  double variance() const {
    double m = mean();
    return games() ? sum_squares / games() - m * m : 0;
  }
  void add(double score) {
    (score > 0.75 ? wins : score < 0.25 ? losses : draws)++;
    sum += score;
    sum_squares += score * score;
  }
};

// The Elo difference that gives an expected score s: 400 log10(s / (1 - s)); s is clamped to
// [0.001, 0.999] (about +-1200 Elo), so a clean sweep prints a large finite number.
double elo_of_score(double s);
// The expected score of an Elo difference.
double score_of_elo(double elo);

// A score with its 95 % Wilson interval, and the same as Elo differences.
struct StrengthEstimate {
  int games = 0;
  double score = 0.5, low = 0, high = 1;
  double elo = 0, elo_low = 0, elo_high = 0;
};
StrengthEstimate strength_estimate(const Score& s);

// A sequential probability ratio test of H0: Elo difference elo0 against H1: elo1, on game
// scores (0, 1/2, 1) with the normal approximation of the log-likelihood ratio. With error rates
// alpha (accepting H1 when H0 holds) and beta, it decides once the ratio leaves
// [log(beta / (1 - alpha)), log((1 - beta) / alpha)].
struct Sprt {
  double elo0 = 0, elo1 = 30, alpha = 0.05, beta = 0.05;
  static constexpr int kMinGames = 32;  // no decision before: the variance estimate settles
  enum class Decision { Continue, H0, H1 };
  double llr(const Score& s) const;
  Decision decide(const Score& s) const;
  double lower() const;
  double upper() const;
};
const char* sprt_decision_name(Sprt::Decision d);

// A gate's verdict on a candidate's score against the best: "better", "not better" (the SPRT
// accepted H0), "worse" or "undecided", and what decided it (`by`). With the SPRT
// (`sequential`), its decision; a match that reached its cap with the SPRT still undecided is
// judged by the 95 % interval when `interval_at_cap` (by "interval at the cap": better when the
// interval lies above 50 %, worse when below), else stays undecided (by "the cap": the match
// ended there, the SPRT undecided). Without the SPRT, the interval (by "interval").
struct GateVerdict {
  std::string verdict, by;
};
GateVerdict gate_verdict(bool sequential, Sprt::Decision decision, const StrengthEstimate& e,
                         bool interval_at_cap);

}  // namespace fuseki
