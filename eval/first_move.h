// The first-move experiment (eval first-move): the first player's score from a start position
// over many engine games, with a 95 % Wilson interval; resumable from DIR/games.jsonl.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/options.h"
#include "rules/ruleset.h"

namespace fuseki {

struct FirstMoveOptions {
  RuleSet rules = RuleSet::Yari;
  std::string sfen;  // empty: the rule set's start
  std::string engine = "builtin:nodes=1000:noise=40";
  int games = 1000, threads = 2, max_moves = 320, retries = 2;
  uint64_t seed = 1;
  std::string out;  // empty: nothing written
};

// [first_move]
std::vector<OptionSection> first_move_sections(FirstMoveOptions& o);

// Plays (or resumes) the experiment, with progress on stderr; returns the summary (also written
// to out/summary.json with out/report.html). Throws RulesError for a bad rule set, position or
// engine, std::runtime_error for a directory holding other settings, Interrupted on a stop.
nlohmann::json run_first_move(const FirstMoveOptions& options);

}  // namespace fuseki
