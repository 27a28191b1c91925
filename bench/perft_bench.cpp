// perft_bench: our perft against Fairy-Stockfish's `go perft` on the same positions, and our
// placement perft (FSF cannot play the placement phase). Prints one table; exits non-zero when a
// known count comes out wrong.
//
//   perft_bench [--quick] [--fsf PATH] [--no-fsf]
//
// --quick leaves out the slowest items (shogi start depth 6, the matsuri position depth 4, the
// post-placement positions at depth 5, fuseki depth 4, balance and balance-v1 depth 5) for a
// smoke run. FSF is
// found through --fsf, $FUSEKILAB_FSF, /usr/games/fairy-stockfish or `fairy-stockfish` on PATH;
// without it only our side runs.
//
// FSF runs through the project's USI client (engine/usi.h), in one process started once (its
// start-up is reported apart); it is timed by wall clock from sending `go perft N` to reading
// `Nodes searched`, the position being set before. Both sides are single-threaded.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "engine/match.h"
#include "rules/movegen.h"
#include "rules/perft.h"
#include "rules/position.h"
#include "rules/rng.h"

using namespace fuseki;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Timing {
  uint64_t nodes;
  double seconds;  // per run
  int runs;
};

// Our perft; short runs are repeated until 0.5 s have passed and averaged.
Timing time_ours(const Position& start, int depth) {
  Position pos = start;
  Timing t{0, 0, 0};
  auto t0 = Clock::now();
  double elapsed = 0;
  do {
    t.nodes = perft(pos, depth);
    ++t.runs;
    elapsed = seconds_since(t0);
  } while (elapsed < 0.5);
  t.seconds = elapsed / t.runs;
  return t;
}

double mnps(uint64_t nodes, double s) { return s > 0 ? double(nodes) / s / 1e6 : 0; }

// Post-placement positions: the standard SFEN after ply 40 of random `balance` games.
std::vector<std::string> post_placement_positions(int count) {
  std::vector<std::string> out;
  for (uint64_t game = 0; int(out.size()) < count; ++game) {
    Rng rng(Rng::derive(0xBE7C4, game));
    Position pos = Position::start(RuleSet::Balance);
    while (pos.in_placement()) {
      MoveList list;
      generate_legal(pos, list);
      pos.do_move(list.moves[rng.below(uint32_t(list.size))]);
    }
    if (pos.ruling41() || count_legal(pos) == 0) continue;
    out.push_back(pos.sfen());
  }
  return out;
}

struct Totals {
  uint64_t nodes = 0;
  double seconds = 0;
};

void rule(int width) {
  for (int i = 0; i < width; ++i) std::putchar('-');
  std::putchar('\n');
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, use_fsf = true;
  std::string fsf_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a == "--no-fsf") {
      use_fsf = false;
    } else if (a == "--fsf" && i + 1 < argc) {
      fsf_path = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--quick] [--fsf PATH] [--no-fsf]\n"
                   "  --quick   skip shogi depth 6, matsuri depth 4, post-placement depth 5,\n"
                   "            fuseki depth 4, balance and balance-v1 depth 5\n",
                   argv[0]);
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  // Fairy-Stockfish through the project's USI client: --fsf, $FUSEKILAB_FSF, or found on PATH.
  std::optional<UsiConfig> oracle = fairy_stockfish_oracle();
  if (oracle && !fsf_path.empty()) oracle->path = fsf_path;
  if (!oracle && !fsf_path.empty()) {
    oracle = default_engines().at("fairy-stockfish");
    oracle->path = fsf_path;
  }
  std::optional<UsiEngine> fsf;
  double startup_seconds = 0;
  if (use_fsf && oracle) {
    fsf.emplace(*oracle);
    auto t0 = Clock::now();
    try {
      fsf->start();
      startup_seconds = seconds_since(t0);
    } catch (const EngineError& e) {
      std::printf("fairy-stockfish at %s did not start in USI mode (%s); our side only\n",
                  oracle->path.c_str(), e.what());
      fsf.reset();
    }
  }
  bool failed = false;

  std::printf("perft_bench%s: one thread each side\n", quick ? " --quick" : "");
  if (fsf)
    std::printf("oracle: %s, start-up %.0f ms (not counted)\n", oracle->path.c_str(),
                startup_seconds * 1e3);
  else
    std::printf("oracle: fairy-stockfish not found or disabled; our side only\n");

  // Shogi-phase perft, both sides.
  struct Item {
    std::string name, sfen;
    int depth;
    uint64_t expected;  // 0: not known beforehand
    bool slow;
  };
  const std::string start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
  const std::string matsuri =
      "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1";
  std::vector<Item> items = {
      {"shogi start", start, 5, 19861490, false},
      {"shogi start", start, 6, 547581517, true},
      {"matsuri", matsuri, 3, 4809015, false},
      {"matsuri", matsuri, 4, 516925165, true},
  };
  std::vector<std::string> post = post_placement_positions(4);
  for (int depth : {4, 5})
    for (size_t i = 0; i < post.size(); ++i)
      items.push_back({"post-placement " + std::to_string(i + 1), post[i], depth, 0, depth > 4});

  const int width = 104;
  std::printf("\nshogi perft, ours vs Fairy-Stockfish\n");
  rule(width);
  std::printf("%-18s %5s %12s %9s %9s %12s %9s %9s %8s\n", "position", "depth", "nodes", "ours s",
              "ours Mn/s", "fsf nodes", "fsf s", "fsf Mn/s", "ours/fsf");
  rule(width);
  Totals ours_total, fsf_total;
  double log_ratio_sum = 0;
  int ratio_count = 0;
  for (const Item& it : items) {
    if (quick && it.slow) continue;
    Position pos = Position::from_sfen(it.sfen, RuleSet::Shogi);
    Timing ours = time_ours(pos, it.depth);
    std::string note;
    if (it.expected && ours.nodes != it.expected) {
      note = " MISMATCH (expected " + std::to_string(it.expected) + ")";
      failed = true;
    }
    std::optional<UsiPerft> theirs;
    if (fsf) {
      try {
        theirs = fsf->perft(it.sfen, it.depth);
      } catch (const EngineError& e) {
        std::printf("fairy-stockfish failed (%s); our side only from here\n", e.what());
        fsf.reset();
      }
    }
    if (theirs) {
      // FSF generates pawn-drop mates, so it may count more; fsf_agreement_test explains those.
      if (theirs->nodes != ours.nodes) note += " (counts differ)";
      ours_total.nodes += ours.nodes;
      ours_total.seconds += ours.seconds;
      fsf_total.nodes += theirs->nodes;
      fsf_total.seconds += theirs->seconds;
      double ratio = mnps(ours.nodes, ours.seconds) / mnps(theirs->nodes, theirs->seconds);
      log_ratio_sum += std::log(ratio);
      ++ratio_count;
      std::printf("%-18s %5d %12llu %9.4f %9.1f %12llu %9.4f %9.1f %7.1fx%s\n", it.name.c_str(),
                  it.depth, static_cast<unsigned long long>(ours.nodes), ours.seconds,
                  mnps(ours.nodes, ours.seconds), static_cast<unsigned long long>(theirs->nodes),
                  theirs->seconds, mnps(theirs->nodes, theirs->seconds), ratio, note.c_str());
    } else {
      std::printf("%-18s %5d %12llu %9.4f %9.1f %12s %9s %9s %8s%s\n", it.name.c_str(), it.depth,
                  static_cast<unsigned long long>(ours.nodes), ours.seconds,
                  mnps(ours.nodes, ours.seconds), "-", "-", "-", "-", note.c_str());
    }
    std::fflush(stdout);
  }
  rule(width);
  if (fsf_total.seconds > 0) {
    double ours_rate = mnps(ours_total.nodes, ours_total.seconds);
    double fsf_rate = mnps(fsf_total.nodes, fsf_total.seconds);
    std::printf("%-18s %5s %12llu %9.4f %9.1f %12llu %9.4f %9.1f %7.1fx\n", "total", "",
                static_cast<unsigned long long>(ours_total.nodes), ours_total.seconds, ours_rate,
                static_cast<unsigned long long>(fsf_total.nodes), fsf_total.seconds, fsf_rate,
                ours_rate / fsf_rate);
    rule(width);
    std::printf(
        "total = all nodes / all seconds per side; geometric mean of the %d ratios: %.1fx\n",
        ratio_count, std::exp(log_ratio_sum / ratio_count));
  }
  std::printf("post-placement positions (standard SFEN after ply 40, random balance games):\n");
  for (size_t i = 0; i < post.size(); ++i) std::printf("  %zu: %s\n", i + 1, post[i].c_str());

  // Placement perft from the empty board: ours only.
  struct PlacementItem {
    const char* rules_name;
    RuleSet rules;
    int depth;
    uint64_t expected;
    bool slow;
  };
  // Depth 5 is the first where Nihikyo bites (Sente's second non-king drop): `balance` 5 is
  // 17,629,345,440, `balance-v1` 5 is 17,726,506,560. Both follow in closed form: for Sente's
  // ply-3 drop X on file f (kings placed, Gote's 245 replies independent), ply 5 has
  // 34 x (types in hand) drops, less the empty camp squares of f for a pawn (nifu) and, in
  // `balance` only, once for a rook (no lance there) and twice for a lance (no rook or lance).
  const PlacementItem placement[] = {
      {"fuseki", RuleSet::Fuseki, 3, 22104576ull, false},
      {"fuseki", RuleSet::Fuseki, 4, 5890869504ull, true},
      {"balance", RuleSet::Balance, 4, 77792400ull, false},
      {"balance", RuleSet::Balance, 5, 17629345440ull, true},
      {"balance-v1", RuleSet::BalanceV1, 5, 17726506560ull, true},
  };
  std::printf("\nplacement perft from the empty board, ours only\n");
  rule(64);
  std::printf("%-10s %5s %14s %10s %10s  %s\n", "rules", "depth", "nodes", "s", "Mn/s", "check");
  rule(64);
  Totals placement_total;
  for (const PlacementItem& it : placement) {
    if (quick && it.slow) continue;
    Timing ours = time_ours(Position::start(it.rules), it.depth);
    bool ok = ours.nodes == it.expected;
    failed |= !ok;
    placement_total.nodes += ours.nodes;
    placement_total.seconds += ours.seconds;
    std::printf("%-10s %5d %14llu %10.4f %10.1f  %s", it.rules_name, it.depth,
                static_cast<unsigned long long>(ours.nodes), ours.seconds,
                mnps(ours.nodes, ours.seconds), ok ? "ok" : "MISMATCH");
    if (!ok) std::printf(" (expected %llu)", static_cast<unsigned long long>(it.expected));
    std::printf("\n");
    std::fflush(stdout);
  }
  rule(64);
  std::printf("%-10s %5s %14llu %10.4f %10.1f\n", "total", "",
              static_cast<unsigned long long>(placement_total.nodes), placement_total.seconds,
              mnps(placement_total.nodes, placement_total.seconds));
  rule(64);

  std::printf("\ntargets: shogi perft >= 5x Fairy-Stockfish nodes/s");
  if (fsf_total.seconds > 0)
    std::printf(" (measured %.1fx)", mnps(ours_total.nodes, ours_total.seconds) /
                                         mnps(fsf_total.nodes, fsf_total.seconds));
  std::printf("; placement >= 700 M nodes/s (measured %.0f M nodes/s)\n",
              mnps(placement_total.nodes, placement_total.seconds));
  if (failed) std::printf("MISMATCH: a perft count differs from the expected figure\n");
  return failed ? 1 : 0;
}
