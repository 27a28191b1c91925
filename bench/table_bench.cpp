// King-pair table benchmark:
//   1. games per second for the table with the built-in play-out (uniform placement, or a
//      network given with --network), on the machine's threads;
//   2. games the adaptive allocation needs against a uniform one at equal band precision, on
//      simulated games with known rates (several seeds).
//
//   build/bench/table_bench [--games N] [--nodes N] [--threads T]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "eval/simulate.h"
#include "eval/table_builder.h"
#include "eval/table_games.h"
#include "selfplay/generator.h"

using namespace fuseki;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  int games = 1296, nodes = 300, threads = 2;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--games") && i + 1 < argc)
      games = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--nodes") && i + 1 < argc)
      nodes = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: table_bench [--games N] [--nodes N] [--threads T]\n");
      return 2;
    }
  }
  SelfPlayOptions o;
  o.playout = "builtin:nodes=" + std::to_string(nodes) + ":noise=20";
  o.playout_threads = threads;
  UniformPlacer uniform;
  PlacementGames source(uniform, o);
  AllocationOptions a;
  a.adaptive = false;
  a.first_pass = std::max(1, games / KING_PAIRS);
  TableBuilder b(a, 1);
  double t0 = now();
  b.run(source, nullptr, nullptr);
  double secs = now() - t0;
  double moves = 0;
  for (const PairTally& t : b.tallies()) moves += t.move_sum;
  std::printf(
      "table games, uniform placement, builtin:nodes=%d, %d threads: %ld games in %.1f s, %.1f "
      "games/s, "
      "%.1f moves/game\n",
      nodes, threads, b.games_played(), secs, b.games_played() / secs,
      moves / double(b.games_played()));

  std::printf(
      "\nadaptive against uniform allocation (simulated games, band 48, half-width 0.03):\n");
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    AllocationOptions ad;
    ad.first_pass = 4;
    ad.target_halfwidth = 0.03;
    ad.max_games = 5000000;
    TableBuilder t(ad, seed);
    SimulatedGames sim(simulated_rates(seed + 10));
    t.run(sim, nullptr, nullptr);
    std::printf(
        "  seed %llu: adaptive %ld games (%d rounds, band %s); uniform to the same band precision "
        "%ld: "
        "%.1fx fewer\n",
        (unsigned long long)seed, t.games_played(), t.rounds(),
        t.band_precise() ? "precise" : "NOT precise", t.uniform_equivalent(),
        double(t.uniform_equivalent()) / double(t.games_played()));
  }
  return 0;
}
