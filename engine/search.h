// The built-in engine: iterative-deepening alpha-beta (PVS) with a transposition table,
// quiescence on captures, and move ordering by TT move, captures (MVV-LVA), killers and history.
// Deterministic for a seed: the only randomness is an evaluation noise keyed on (seed, position).
#pragma once

#include <cstdint>
#include <vector>

#include "rules/position.h"

namespace fuseki {

struct SearchLimits {
  uint64_t nodes = 0;  // 0: no node limit
  int depth = 0;       // 0: no depth limit
  double seconds = 0;  // 0: no time limit (wall clock; not reproducible)
};

struct SearchOptions {
  int noise = 0;      // centipawns of evaluation noise; 0 for the strongest play
  uint64_t seed = 0;  // selects the noise
  int tt_log2_entries = 16;
};

struct SearchResult {
  Move best = MOVE_NONE;
  int score = 0;  // centipawns from the mover's side; mate scores near +-MATE
  int depth = 0;  // last completed iteration
  uint64_t nodes = 0;
  bool declare = false;  // the mover may declare an entering-king win: do so
};

constexpr int MATE = 30000;
constexpr int MAX_PLY = 128;

// Static evaluation from the side to move's point of view, in centipawns.
int evaluate(const Position& pos);

class Searcher {
 public:
  explicit Searcher(SearchOptions options = {});
  void set_seed(uint64_t seed) { options_.seed = seed; }
  void clear();  // forget the transposition table and histories (a new game)
  // Searches pos (restored on return). `history` holds the keys of earlier positions of the game
  // (for repetition); a position repeated on the search path scores as a draw.
  SearchResult search(Position& pos, const SearchLimits& limits,
                      const std::vector<uint64_t>& history = {});

 private:
  struct TTEntry {
    uint64_t key;
    int16_t score;
    int8_t depth;
    uint8_t bound;
    Move move;
  };
  int alpha_beta(Position& pos, int depth, int ply, int alpha, int beta);
  int quiesce(Position& pos, int ply, int qdepth, int alpha, int beta);
  int noisy_eval(const Position& pos) const;
  bool out_of_budget();
  bool repeated(uint64_t key, int ply) const;

  SearchOptions options_;
  std::vector<TTEntry> tt_;
  Move killers_[MAX_PLY][2] = {};
  int history_[2][128][128] = {};  // [side][from or dropped type + 81][to]
  uint64_t path_[MAX_PLY + 16] = {};
  bool null_played_[MAX_PLY + 16] = {};
  std::vector<uint64_t> game_keys_;
  SearchLimits limits_;
  uint64_t nodes_ = 0;
  bool stop_ = false;
  double deadline_ = 0;
  Move root_best_ = MOVE_NONE;
};

}  // namespace fuseki
