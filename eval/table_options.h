// The settings of a king-pair table run (eval table): the [eval] section of a config file and the
// flags of eval table, declared once (io/options.h). No LibTorch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/player.h"
#include "io/options.h"
#include "rules/ruleset.h"
#include "selfplay/king_table.h"

namespace fuseki {

struct TableRunOptions {
  std::string out = "runs/table";
  std::string network;  // empty: uniform random placement
  RuleSet rules = RuleSet::Balance;
  std::string playout = kDefaultPlayout;
  uint64_t seed = 1;
  int first_pass = 4, band = kKingBand, round_games = 1024, threads = 2, batch = 64,
      min_band_games = 0;
  double halfwidth = 0.05, temperature = 1.0;
  long max_games = 200000;
  std::string shard;  // "i/n"
  int plan = 0;       // > 0: plan the next cluster round, split into this many slices
  int round = -1;     // the cluster round played (with --shard) or just played (with --plan)
  std::string mirror = "check";
  std::string compare;
  std::string device = "cpu";
  std::string precision = "fp32";
  bool adaptive = true;
  // How pairs are scored: games (real games only), eval (every pair by evaluating sampled
  // placements at move 41, calibrated by one game per pair) or both (eval for every pair, the
  // band re-measured with games); "auto": both with a network, games without.
  std::string score = "auto";
  std::string eval_engine = "auto";  // a player spec without a budget, value, or auto
  int eval_nodes = 100, eval_samples = 64;
};

// The scoring `o` asks for, "auto" resolved.
std::string table_scoring(const TableRunOptions& o);
// The evaluation engine, "auto" resolved: the value head for a network table scored both (one
// batched pass; sampled placements searched by an engine cost as much as the games there), else
// the built-in engine.
std::string table_eval_engine(const TableRunOptions& o);

// [eval]: every setting above with its default, range and help.
std::vector<OptionSection> table_run_sections(TableRunOptions& o);

}  // namespace fuseki
