// The 36 x 36 king pairs of Balance Shogi and the statistics of Sente's score per pair:
// raw rates with Wilson intervals, an additive logit model (a value per Sente king square and
// per Gote king square) fitted by weighted least squares, and estimates shrunk between the two.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rules/types.h"

namespace fuseki {

constexpr int KING_SQUARES = 36;
constexpr int KING_PAIRS = KING_SQUARES * KING_SQUARES;

// The i-th king square of a side's camp (files 1-9, ranks near to far), and back.
Square sente_king_square(int i);
Square gote_king_square(int i);
int pair_index(Square sente, Square gote);  // -1 when either square is outside its camp
Square pair_sente(int pair);
Square pair_gote(int pair);
std::string pair_key(int pair);  // "5i,5a"
// The pair seen in a mirror (files reflected: file f -> 10 - f).
int mirror_pair(int pair);

struct PairTally {
  int games = 0, sente_wins = 0, gote_wins = 0, draws = 0, ruling41 = 0;
  double move_sum = 0;
  double points() const { return sente_wins + 0.5 * draws; }
  double score() const { return games ? points() / games : 0.5; }
  PairTally& operator+=(const PairTally& o) {
    games += o.games;
    sente_wins += o.sente_wins;
    gote_wins += o.gote_wins;
    draws += o.draws;
    ruling41 += o.ruling41;
    move_sum += o.move_sum;
    return *this;
  }
};

struct PairEstimate {
  double v_raw = 0.5, low = 0, high = 1;  // raw score and its 95 % Wilson interval
  double v_fit = 0.5;                     // the additive model's value
  double v = 0.5;                         // shrunk between raw and fit
  double se = 0.5;                        // standard error of v
  double shrink_w = 1;                    // weight of the raw value in v
  // A second score of the pair measured another way than by its games: Sente's expected score
  // from positions evaluated at move 41 (as the site's tables score pairs by rollouts). Absent
  // unless something fills it (the fit does not); when present, table.json writes it as `v_eval`
  // beside `v_games` (= v) and the report's band list shows both and their difference.
  std::optional<double> v_eval;
};

struct TableFit {
  std::array<double, KING_SQUARES> sente_logit{}, gote_logit{};  // per-square effects
  double sigma_interaction = 0;     // spread of the pairs around the additive model (logit scale)
  double prior_coefficient = 0;     // the prior's logit's coefficient (fit_table with a prior)
  std::vector<PairEstimate> pairs;  // KING_PAIRS entries
};

// Fits the additive model to the tallies (pairs without games get the model's value) and
// shrinks each raw value towards it by its precision. With a prior (Sente's expected score per
// pair, e.g. an evaluation's: KING_PAIRS entries), the prior's logit is one more covariate of the
// model with a fitted coefficient (prior_coefficient), so the pairs' spread around the model,
// and the shrinkage, follow how much the prior predicts beyond the square effects.
TableFit fit_table(const std::vector<PairTally>& tallies,
                   const std::vector<double>* prior = nullptr);

// The `n` pairs whose estimate is closest to 50 %, closest first.
std::vector<int> band_of(const std::vector<PairEstimate>& estimates, int n);

}  // namespace fuseki
