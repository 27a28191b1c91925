// Simulated king-pair games with known true rates: for testing and benchmarking the table's
// statistics and allocation without playing real games.
#pragma once

#include <cmath>
#include <stdexcept>
#include <vector>

#include "eval/table_builder.h"
#include "rules/rng.h"

namespace fuseki {

// True Sente rates from an additive logit model (per-square effects) plus some interaction.
inline std::vector<double> simulated_rates(uint64_t seed, double interaction = 0.1) {
  Rng rng(seed);
  std::vector<double> a(KING_SQUARES), b(KING_SQUARES), p(KING_PAIRS);
  for (auto& x : a) x = (rng.uniform() - 0.5) * 2.4 + 0.4;
  for (auto& x : b) x = (rng.uniform() - 0.5) * 2.4;
  for (int i = 0; i < KING_PAIRS; ++i) {
    double e = a[size_t(i / KING_SQUARES)] + b[size_t(i % KING_SQUARES)] +
               (rng.uniform() - 0.5) * 2 * interaction;
    p[size_t(i)] = 1 / (1 + std::exp(-e));
  }
  return p;
}

// Each game a draw with probability 2 %, else a Sente win with the pair's true rate; the outcome
// follows from the game's seed alone. `fail_after` >= 0 throws after that many games (a kill).
class SimulatedGames : public GameSource {
 public:
  explicit SimulatedGames(std::vector<double> p, long fail_after = -1)
      : p_(std::move(p)), fail_after_(fail_after) {}
  void play(const std::vector<PairGame>& games,
            const std::function<void(const PairResult&)>& done) override {
    for (const PairGame& g : games) {
      if (fail_after_ >= 0 && played_ >= fail_after_) throw std::runtime_error("killed");
      Rng rng(g.seed);
      double u = rng.uniform();
      Winner winner = u < 0.02                             ? Winner::Draw
                      : rng.uniform() < p_[size_t(g.pair)] ? Winner::Sente
                                                           : Winner::Gote;
      done({g.pair, g.index, g.seed, winner,
            winner == Winner::Sente && u > 0.95 ? Reason::Ruling41 : Reason::Mate,
            int16_t(60 + g.pair % 40)});
      ++played_;
    }
  }
  long played() const { return played_; }

 private:
  std::vector<double> p_;
  long fail_after_;
  long played_ = 0;
};

}  // namespace fuseki
