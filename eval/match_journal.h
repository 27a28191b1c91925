// A match's finished games, journalled as they end, so that a stopped or killed match run again
// with the same settings goes on from its last finished step instead of from the start: the
// strength measurement (`eval strength --out`, a run's measurements), the gating match and
// `match --out`. The first line is the header (every setting that decides a game); then a line
// per finished game and, after each step of games, a line saying how many pairs of that part
// (a reference of the measurement; a match has one) are done. What a step left unfinished is
// played again: the same seeds, the same games.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "eval/placer_match.h"
#include "io/journal.h"
#include "rules/types.h"
#include "selfplay/journal.h"

namespace fuseki {

// A placer or input file as a journal's header knows it: a file by its bytes (net::file_hash),
// not its path, so that a run moved or named another way (./run, /abs/run) still resumes and a
// file replaced at the same path does not; a name ("uniform") as it is; empty as it is.
std::string journal_identity(const std::string& spec);

// The first place where two headers differ, as "key: X in the journal, Y asked" (nested keys
// joined by '.'); empty where they are equal.
std::string first_difference(const nlohmann::json& journal, const nlohmann::json& asked,
                             const std::string& key = {});

class MatchJournal {
 public:
  using Games = std::vector<std::pair<Color, PlayedGame>>;  // A's colour, the game

  // Opens the journal `path` (nothing: an empty path). Throws, naming the file and the first
  // setting that differs, for a journal whose header is not `header` (another match's; `what`
  // names it: "measurement", "match").
  MatchJournal(const std::string& path, const nlohmann::json& header, const std::string& what);

  // The finished steps' games of `part`, in the order they were played, and its pairs done.
  const Games& games(int part) const;
  int pairs_done(int part) const;

  void add_game(int part, Color a_colour, const PlayedGame& game);
  void add_step(int part, int pairs_done);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::unique_ptr<LineJournal> journal_;
  std::map<int, Games> games_;
  std::map<int, int> done_;
};

// How a match's games are played in journalled steps.
struct JournalledSteps {
  std::string label;            // "match", "strength vs uniform": progress and resume lines
  const char* test_point = "";  // io/stop.h's fault point after each step is journalled
  int pairs_a_step = 64;
  bool report_every_step = false;  // else the progress line at its own pace, and at the end
};

// Plays `part` of a match to `pairs` pairs: first the journal's finished steps again (counted in
// `tally` and given to `on_game`, printing "LABEL: N of M games from JOURNAL"), then the rest in
// steps, each game journalled as it ends and each step marked done, with progress (`shown`: the
// score the progress line gives). Stops early once `decided` (optional) says so, checked after
// the journal's games and after each step. Returns the pairs done.
int play_journalled(PlacerMatch& match, MatchJournal& journal, int part, int pairs,
                    MatchTally& tally, const Score& shown, const JournalledSteps& how,
                    const PlacerMatch::GameSink& on_game = {},
                    const std::function<bool()>& decided = {});

}  // namespace fuseki
