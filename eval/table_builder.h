// Measuring the king-pair table: which games to play for which pair, round by round.
// A first pass gives every pair a few games; then each round sends games to the pairs that
// decide which N pairs are closest to even (the band) and to band pairs still too imprecise,
// until the band is stable and precise, or the budget is spent. Every game (pair, index) has a
// fixed seed, and each round's schedule depends only on the results of the rounds before it, so
// an interrupted run resumed from its journal ends with the same table as an uninterrupted one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/outcome.h"
#include "eval/king_pairs.h"

namespace fuseki {

struct PairGame {
  int pair = 0;
  int index = 0;      // the index-th game of this pair
  uint64_t seed = 0;  // derived from the run seed, the pair and the index
};

struct PairResult {
  int pair = 0;
  int index = 0;
  uint64_t seed = 0;
  Winner winner = Winner::None;  // stored (journal) as its code, engine/outcome.h
  Reason reason = Reason::None;
  int16_t moves = 0;
  float sente_eval = -1;  // Sente's win probability from the move-41 evaluation; -1: none
};

// Plays games and reports each result (in any order).
class GameSource {
 public:
  virtual ~GameSource() = default;
  virtual void play(const std::vector<PairGame>& games,
                    const std::function<void(const PairResult&)>& done) = 0;
};

struct AllocationOptions {
  bool adaptive = true;            // false: every pair gets first_pass games, nothing more
  int first_pass = 4;              // games per pair in the first pass
  int band = 48;                   // the pairs closest to even
  int round_games = 1024;          // games per adaptive round
  double target_halfwidth = 0.05;  // 95 % Wilson half-width asked of each band pair
  int min_band_games = 0;          // ... or at least this many games per band pair
  long max_games = 200000;         // the budget
  int stable_rounds = 2;           // rounds the band must stay the same
  std::vector<int> pairs;          // the pairs to measure (empty: all 1,296)
};

struct Schedule {
  int round = 0;
  std::vector<PairGame> games;
};

class TableBuilder {
 public:
  TableBuilder(AllocationOptions options, uint64_t seed);

  // Feeds back a journal: the schedules and results of an earlier, interrupted run.
  void restore_schedule(const Schedule& s);
  void restore_result(const PairResult& r);

  // Scoring both (eval table --score both): `prior` gives Sente's expected score per pair from an
  // evaluation (under the calibration of the games so far); the fit is made around it
  // (fit_table), so pairs it settles need fewer games.
  void set_prior(std::function<std::vector<double>()> prior) { prior_ = std::move(prior); }

  // Plays rounds until done. `on_schedule` sees each round's schedule before its games are
  // played, `on_result` each result (both for the journal).
  void run(GameSource& source, const std::function<void(const Schedule&)>& on_schedule,
           const std::function<void(const PairResult&)>& on_result,
           const std::function<void(const std::string&)>& progress = nullptr);

  // The schedule run() would play next, counted as scheduled (its games' indices are taken);
  // no games when the table is done (no pair needs more, or the budget is spent). run() plays
  // exactly these schedules; eval table --plan asks for them one round at a time, the rounds
  // before restored, and has the round's games played by an array of processes.
  Schedule next_schedule();

  const std::vector<PairTally>& tallies() const { return tallies_; }
  TableFit fit() const;
  std::vector<int> band() const;
  long games_played() const { return games_played_; }
  int rounds() const { return round_; }
  bool band_precise() const;
  // Games a uniform allocation would need to give every pair as many games as the band pair
  // that needed the most here.
  long uniform_equivalent() const;
  static uint64_t game_seed(uint64_t run_seed, int pair, int index);

 private:
  std::vector<PairGame> next_round();
  std::vector<PairGame> first_pass() const;
  bool needs_more(int pair) const;
  bool imprecise(int pair) const;  // a band pair short of the target precision
  // Up to `each` more games for each pair in order, at most round_games in all.
  std::vector<PairGame> games_for(const std::vector<int>& pairs, int each) const;

  AllocationOptions options_;
  uint64_t seed_;
  std::vector<PairTally> tallies_;
  std::vector<int> scheduled_;  // games scheduled per pair so far (the next index)
  std::vector<std::vector<bool>> done_;
  std::vector<Schedule> restored_;
  int round_ = 0;
  long games_played_ = 0;
  std::vector<std::vector<int>> band_history_;
  std::function<std::vector<double>()> prior_;
};

}  // namespace fuseki
