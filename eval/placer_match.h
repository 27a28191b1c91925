// Matches between placers: the gating match of a run, `match`, and the strength measurement
// against fixed references. Each pair of games shares a seed, so one king pair and one referee
// stream, with A as Sente in one and as Gote in the other.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "engine/placer.h"
#include "eval/stats.h"
#include "net/evaluator.h"
#include "selfplay/generator.h"

namespace fuseki {

// A placer named on a command line or in a config: "uniform" (uniform among the legal drops) or
// a checkpoint file, whose network samples its drops at `temperature`, or with search_k > 0
// places them by its Gumbel search over that many candidates (GumbelOptions' defaults otherwise).
// Throws (naming the file) for a checkpoint that cannot be loaded.
struct NamedPlacer {
  std::string name;
  std::unique_ptr<net::Evaluator> network;
  std::unique_ptr<Placer> placer;
};
NamedPlacer make_named_placer(const std::string& spec, double temperature,
                              const net::EvaluatorOptions& options, int search_k = 0);

// What A scored, and how its games ended.
struct MatchTally {
  Score score;            // A's results (win 1, draw 1/2, loss 0)
  Score by_colour[2];     // the same, A as Sente (BLACK) and as Gote (WHITE)
  Score evals;            // A's expected scores at move 41, where the games have them
  int voids = 0;          // games voided by an engine failure (not scored)
  int ruling41_won = 0;   // A as Sente won by the move-41 ruling (B's king still attacked)
  int ruling41_lost = 0;  // A as Gote lost by it
  // A's results by its colour and the rank Gote's king stands on after placement (0 = rank a,
  // Gote's back rank): with uniform kings, where in its camp Gote's king stands decides much.
  Score by_gote_king[2][RANK_NB];
  // Counts a finished game of A's, A playing `a_colour` (a match's games, or a journal's again).
  void add(Color a_colour, const GameRow& row);
};

class PlacerMatch {
 public:
  // options: rules, seed, kings (Table with a table, else uniform: a match never takes kings from
  // a network), play-out (the referee), threads, batch, move cap, move-41 evaluation.
  PlacerMatch(Placer& a, Placer& b, const SelfPlayOptions& options);
  ~PlacerMatch();
  // Plays pairs [first, first + count): game i with A as Sente, then with A as Gote. Each
  // finished game, with A's colour in it, goes to `on_game` where one is given.
  using GameSink = std::function<void(Color a_colour, const PlayedGame& game)>;
  void play(uint64_t first, uint64_t count, MatchTally& tally, const GameSink& on_game = {});

 private:
  KingPlacers kings_;
  std::unique_ptr<SelfPlayGenerator> orders_[2];  // A Sente; A Gote. Engines start once.
};

}  // namespace fuseki
