// The play, judge and demo jobs as library functions (cli/cmd_play.cpp declares their flags), and
// the pool of threads that plays numbered engine games for them and for the first-move
// experiment.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/game.h"
#include "io/options.h"
#include "rules/ruleset.h"

namespace fuseki {

// Games [0, games) between `sente_spec` and `gote_spec` (engine specs, see make_player) on
// `threads` threads, each thread with its own two players, prepared once. Game i's seed derives
// from (seed, 0, i); `start(i, game_seed)` gives its start and `done(i, game_seed, game)` gets it
// finished, under a lock, in the order games finish. `skip(i)` leaves a game out (resumed runs).
// A stop request ends it with Interrupted (an unfinished game is not given out); an exception on
// any thread is rethrown.
struct NumberedGames {
  RuleSet rules = RuleSet::Balance;
  std::string sente_spec, gote_spec;
  int games = 1, threads = 1, retries = 2;
  uint64_t seed = 1;
  std::function<Game(int index, uint64_t game_seed)> start;
  std::function<bool(int index)> skip;
  std::function<void(int index, uint64_t game_seed, const Game& game)> done;
};
void play_numbered_games(const NumberedGames& spec);

// Fails (RulesError) when a player spec cannot play: before any game starts.
void check_player_spec(const std::string& spec, RuleSet rules);

// A game from a start position (empty: the rule set's) and a record, with choose: tokens and the
// repetition history applied. A record going on after the game ended is an error (RulesError)
// when `leftover_is_error`, else the rest is ignored.
Game game_from_record(RuleSet rules, const std::string& sfen, const std::string& moves,
                      int max_moves, bool leftover_is_error);

struct PlayOptions {
  RuleSet rules = RuleSet::Balance;
  std::string sfen, moves;
  std::string sente = "builtin", gote = "builtin";
  int games = 1;
  uint64_t seed = 1;
  std::string format = "text";
  int max_moves = 320, threads = 1, retries = 2;
};
// [play]
std::vector<OptionSection> play_sections(PlayOptions& o);
// Plays the games, printing each (text or jsonl) to `out` in game order, progress and the tally
// to stderr unless `quiet`.
void run_play(const PlayOptions& options, std::ostream& out, bool quiet);

struct JudgeOptions {
  RuleSet rules = RuleSet::Balance;
  std::string sfen, moves, format = "text";
  int max_moves = 320;
  bool declare = false;
};
std::vector<OptionSection> judge_sections(JudgeOptions& o);
void run_judge(const JudgeOptions& options, std::ostream& out);

struct DemoOptions {
  RuleSet rules = RuleSet::Balance;
  uint64_t seed = 1;
  std::string engine = "builtin";
};
std::vector<OptionSection> demo_sections(DemoOptions& o);
void run_demo(const DemoOptions& options, std::ostream& out);

// The rule-set option every command shares.
void declare_rules(OptionSection& section, RuleSet& field, const std::string& help);

}  // namespace fuseki
