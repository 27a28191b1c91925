// The self-play generator on the placement seam: uniform placement as `play` places, one forward
// pass per ply for a shared network, play-out engines kept across batches, a share of the games
// against a uniform placer.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/match.h"
#include "selfplay/generator.h"
#include "selfplay/network_placer.h"

using namespace fuseki;

namespace {

SelfPlayOptions judged(int batch) {
  SelfPlayOptions o;
  o.rules = RuleSet::Balance;
  o.seed = 9;
  o.batch = batch;
  o.judge = [](const Position&) { return Winner::Draw; };
  return o;
}

}  // namespace

// `fusekilab play --seed 9` gives game i the seed Rng::derive(9, 0, i) and places it with
// random_placement; self-play's worker 0 derives the same game seed.
TEST(SelfPlay, UniformPlacersPlaceAsPlayDoes) {
  UniformPlacer uniform;
  UniformChooser chooser;
  SelfPlayGenerator gen(Placers{&uniform, &chooser, {&uniform, &uniform}}, judged(4));
  int games = 0;
  gen.play(0, 6, [&](PlayedGame&& g) {
    uint64_t game_seed = Rng::derive(9, 0, g.index);
    EXPECT_EQ(g.row.seed, game_seed);
    Game played(Position::start(RuleSet::Balance));
    random_placement(played, game_seed);
    EXPECT_EQ(g.row.record, played.record());
    EXPECT_TRUE(g.decisions.empty());  // uniform drops are no training rows
    ++games;
  });
  EXPECT_EQ(games, 6);
}

TEST(SelfPlay, OneForwardPassPerPlyWithASharedNetwork) {
  net::Evaluator eval(net::NetConfig{8, 1}, {"cpu", 1});
  for (KingSource kings : {KingSource::Uniform, KingSource::Network}) {
    SelfPlayOptions o = judged(8);
    o.kings = kings;
    SelfPlayGenerator gen(eval, o);
    size_t decisions = 0;
    gen.play(0, 8, [&](PlayedGame&& g) { decisions += g.decisions.size(); });
    // Network kings: the two king plies by the policy and the side choice by the value head.
    uint64_t passes = kings == KingSource::Network ? 41 : 38;
    EXPECT_EQ(gen.stats().forward_passes, passes) << king_source_name(kings);
    EXPECT_EQ(gen.stats().batch_positions, passes * 8);
    EXPECT_EQ(decisions, kings == KingSource::Network ? 8u * 40 : 8u * 38);
    EXPECT_EQ(gen.stats().decisions, decisions);
  }
  // A match: each network places its own side's drops.
  net::Evaluator other(net::NetConfig{8, 1}, {"cpu", 1});
  NetworkPlacer sente(eval, 1.0), gote(other, 1.0);
  UniformPlacer uniform;
  UniformChooser chooser;
  SelfPlayGenerator match(Placers{&uniform, &chooser, {&sente, &gote}}, judged(8));
  match.play(0, 8, [](PlayedGame&&) {});
  EXPECT_EQ(sente.passes().passes, 19u);
  EXPECT_EQ(gote.passes().passes, 19u);
  EXPECT_EQ(match.stats().forward_passes, 38u);
}

// uniform_share: that share of the games has a uniform placer on one side, drawn per game
// from its seed; only the network's drops become rows, and the same seed gives the same games.
TEST(SelfPlay, AShareOfTheGamesAgainstAUniformPlacer) {
  net::Evaluator eval(net::NetConfig{8, 1}, {"cpu", 1});
  auto run = [&](double share) {
    SelfPlayOptions o = judged(16);
    o.uniform_share = share;
    SelfPlayGenerator gen(eval, o);
    std::vector<std::pair<std::string, std::vector<int>>> games(64);
    gen.play(0, 64, [&](PlayedGame&& g) {
      std::vector<int> movers;
      for (const DecisionRow& d : g.decisions) movers.push_back(d.mover);
      games[g.index] = {g.row.record, movers};
    });
    return games;
  };
  int against[2] = {0, 0}, both = 0;
  auto mixed = run(0.5);
  for (const auto& [record, movers] : mixed) {
    if (movers.size() == 38) {
      ++both;
      continue;
    }
    ASSERT_EQ(movers.size(), 19u) << record;
    int mover = movers[0];
    for (int m : movers) ASSERT_EQ(m, mover) << "rows of both sides in a game against uniform";
    ++against[1 - mover];  // the uniform placer's colour
  }
  EXPECT_GT(against[0], 4);  // 64 games, each against uniform with probability 1/2, either colour
  EXPECT_GT(against[1], 4);
  EXPECT_GT(both, 16);
  EXPECT_EQ(run(0.5), mixed);
  for (const auto& [record, movers] : run(0.0)) EXPECT_EQ(movers.size(), 38u);
  for (const auto& [record, movers] : run(1.0)) EXPECT_EQ(movers.size(), 19u);
  SelfPlayOptions bad = judged(4);
  bad.uniform_share = 1.5;
  EXPECT_THROW(SelfPlayGenerator(eval, bad), std::invalid_argument);
}

// A USI engine that logs each start and resigns every game: three batches, one start per side.
TEST(SelfPlay, PlayOutEnginesStartOncePerGenerator) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("fusekilab_pool_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::path log = dir / "starts.log", engine = dir / "resigner.sh";
  std::ofstream(engine) << "#!/bin/bash\necho start >> '" << log.string() << "'\nexec '"
                        << FAKE_ENGINES_DIR << "/answer.sh' resign\n";
  fs::permissions(engine, fs::perms::owner_all);
  SelfPlayOptions o = judged(2);
  o.judge = nullptr;
  o.playout = "usi:" + engine.string();
  o.playout_threads = 1;
  UniformPlacer uniform;
  UniformChooser chooser;
  int resigned = 0;
  {
    SelfPlayGenerator gen(Placers{&uniform, &chooser, {&uniform, &uniform}}, o);
    gen.play(0, 6, [&](PlayedGame&& g) { resigned += g.row.reason == Reason::Resign; });
  }
  std::ifstream in(log);
  int starts = 0;
  for (std::string line; std::getline(in, line);) ++starts;
  fs::remove_all(dir);
  EXPECT_GT(resigned, 0);
  EXPECT_EQ(starts, 2);
}
