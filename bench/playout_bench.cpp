// Play-out benchmark: games per second per core for the built-in engine at two node budgets,
// the same games played by fairy-stockfish through the USI client, and the built-in engine's
// match score against fairy-stockfish at equal nodes and at equal time per move.
//
//   build/bench/playout_bench [--games N] [--movetime MS] [--quick]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/match.h"

using namespace fuseki;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Start positions of ordinary play: random Balance placements not decided by the ruling.
std::vector<Game> openings(int n) {
  std::vector<Game> out;
  for (uint64_t seed = 1; int(out.size()) < n; ++seed) {
    Game g(Position::start(RuleSet::Balance));
    random_placement(g, Rng::derive(2026, seed));
    if (!g.over()) out.push_back(g);
  }
  return out;
}

struct Throughput {
  double games_per_s;
  double mean_moves;
  int voids;
};

// Self-play of one spec against itself, one game at a time (one core).
Throughput self_play(const std::string& spec, const std::vector<Game>& starts) {
  EngineRegistry reg = default_engines();
  auto a = make_player(spec, reg), b = make_player(spec, reg);
  a->prepare();
  b->prepare();
  double t0 = now();
  long moves = 0;
  int voids = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    Game g = play_game(starts[i], *a, *b, i + 1);
    moves += g.play_moves();
    voids += g.winner() == Winner::Void;
  }
  double secs = now() - t0;
  return {double(starts.size()) / secs, double(moves) / double(starts.size()), voids};
}

struct Score {
  double points = 0;
  int games = 0, wins = 0, losses = 0, draws = 0;
};

// Each opening twice, colours swapped; points from `ours`'s side.
Score match(const std::string& ours, const std::string& theirs, const std::vector<Game>& starts) {
  EngineRegistry reg = default_engines();
  auto a = make_player(ours, reg), b = make_player(theirs, reg);
  a->prepare();
  b->prepare();
  Score s;
  for (size_t i = 0; i < starts.size(); ++i)
    for (int swap = 0; swap < 2; ++swap) {
      Game g = swap ? play_game(starts[i], *b, *a, i + 1) : play_game(starts[i], *a, *b, i + 1);
      if (g.winner() == Winner::Void) continue;
      Winner we = swap ? Winner::Gote : Winner::Sente;
      ++s.games;
      if (g.winner() == Winner::Draw) {
        ++s.draws;
        s.points += 0.5;
      } else if (g.winner() == we) {
        ++s.wins;
        s.points += 1;
      } else {
        ++s.losses;
      }
    }
  return s;
}

void print_score(const char* label, const Score& s) {
  double p = s.games ? s.points / s.games : 0;
  double se = s.games ? std::sqrt(p * (1 - p) / s.games) : 0;
  std::printf("%-44s %3d games  +%d -%d =%d  score %.1f %% (+- %.1f %%, 95 %%)\n", label, s.games,
              s.wins, s.losses, s.draws, 100 * p, 196 * se);
}

}  // namespace

int main(int argc, char** argv) {
  int games = 20, movetime = 20;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--games") && i + 1 < argc)
      games = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--movetime") && i + 1 < argc)
      movetime = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--quick"))
      quick = true;
    else {
      std::fprintf(stderr, "usage: playout_bench [--games N] [--movetime MS] [--quick]\n");
      return 2;
    }
  }
  if (games < 1) games = 1;
  if (quick) games = std::min(games, 4);
  bool have_fsf = find_program("fairy-stockfish") != "fairy-stockfish";
  std::vector<Game> starts = openings(games);
  std::printf(
      "playout_bench: %d post-placement Balance openings, one game at a time (one core)\n\n",
      games);

  Throughput b1 = self_play("builtin:nodes=1000", starts);
  Throughput b10 = self_play("builtin:nodes=10000", starts);
  std::printf("%-32s %8.2f games/s  %6.1f moves/game\n", "builtin nodes=1000", b1.games_per_s,
              b1.mean_moves);
  std::printf("%-32s %8.2f games/s  %6.1f moves/game\n", "builtin nodes=10000", b10.games_per_s,
              b10.mean_moves);
  if (!have_fsf) {
    std::printf("\nfairy-stockfish not found: no peer figures\n");
    return 0;
  }
  Throughput f1 = self_play("fairy-stockfish:nodes=1000", starts);
  Throughput f10 = self_play("fairy-stockfish:nodes=10000", starts);
  std::printf("%-32s %8.2f games/s  %6.1f moves/game  (%d void)\n",
              "fairy-stockfish nodes=1000 (USI)", f1.games_per_s, f1.mean_moves, f1.voids);
  std::printf("%-32s %8.2f games/s  %6.1f moves/game  (%d void)\n",
              "fairy-stockfish nodes=10000 (USI)", f10.games_per_s, f10.mean_moves, f10.voids);
  std::printf(
      "ratio builtin/fairy-stockfish:  %.1fx at 1000 nodes, %.1fx at 10000 nodes (target >= 4x at "
      "1000)\n\n",
      b1.games_per_s / f1.games_per_s, b10.games_per_s / f10.games_per_s);

  print_score("builtin vs fairy-stockfish, 1000 nodes/move",
              match("builtin:nodes=1000", "fairy-stockfish:nodes=1000", starts));
  std::string t = std::to_string(movetime);
  std::string label = "builtin vs fairy-stockfish, " + t + " ms/move";
  print_score(label.c_str(),
              match("builtin:movetime=" + t, "fairy-stockfish:movetime=" + t, starts));
  return 0;
}
