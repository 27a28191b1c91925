// Placement strength: a network's score against fixed reference placers (uniform, or any
// checkpoints), over a fixed number of games (no early stop), each king pair played with both
// colours, the play-outs from move 41 by a referee engine separate from self-play's. The
// headline number of a run: `fusekilab eval strength`, and the pipeline after each generation.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/options.h"
#include "rules/ruleset.h"
#include "selfplay/journal.h"
#include "selfplay/king_table.h"

namespace fuseki {

// [strength]: the measurement's settings (a run config's section, and eval strength's).
struct StrengthSettings {
  int games = 0;  // per reference, half with each colour; 0: not measured (a run's default)
  std::string referee = "builtin:nodes=2000";
  std::string references = "uniform";  // comma-separated: uniform, or checkpoint files
  double temperature = 0.5;            // of the measured network's drops
  int search_k = 0;  // > 0: the measured network places by its Gumbel search over k candidates
  // > 0: the measured network places by looking ahead (selfplay/rollout_placer.h without its
  // noise): before each drop its top lookahead_k drops are each followed by lookahead_rollouts
  // completions of the placement (its own later drops its policy's at `temperature`, the
  // opponent's uniform against the uniform reference, else the measured network's), each valued
  // at move 41 by the ruling or the built-in engine at lookahead_nodes (logistic, lookahead_scale
  // cp), and the best prior plus value is played. A search, not a network: how far placement
  // goes above the policy. Drops at plies before lookahead_from are the policy's.
  int lookahead_k = 0;
  int lookahead_rollouts = 8;
  int lookahead_nodes = 2000;
  double lookahead_scale = 1000;
  int lookahead_from = 0;
  int threads = 2;  // referee play-out threads (and judge threads)
  // An engine spec with its budget that also evaluates each game's move-41 position (the
  // placement's own result, apart from the referee's play); empty: none.
  std::string judge;
  int batch = 64;
  int max_moves = 320;
  int every = 1;  // a run: every Nth generation (and every accepted one); eval strength: unused
};
std::vector<OptionSection> strength_sections(StrengthSettings& s);
// The references, split and trimmed; throws for an empty list or an unknown name that is not a
// file.
std::vector<std::string> strength_references(const std::string& list);

// Where the measured games come from besides the settings.
struct StrengthSetup {
  RuleSet rules = RuleSet::Balance;
  uint64_t seed = 1;
  const KingPairTable* table = nullptr;  // kings from its band; null: uniform kings
  int king_band = kKingBand;
  std::string device = "cpu", precision = "fp32";
  // Where finished games are journalled (empty: nowhere): a stopped or killed measurement run
  // again with the same settings goes on from its last finished step of games (64 pairs, 2
  // looking ahead) instead of from the start. A journal of other settings is refused.
  std::string journal;
};

// Measures `network` (a checkpoint) against every reference. Progress with rate and ETA on
// stderr. Returns {"network", "referee", "seed", "games", "temperature", "references":
// [{"reference", "games", "wins", "draws", "losses", "void", "score", "ci95", "elo", "elo_ci95"}]}.
// Throws for a network or reference that cannot be loaded (before any game) and Interrupted on a
// stop. Each finished game goes to `on_game` (the reference, the network's colour, the game)
// where one is given.
using StrengthGameSink =
    std::function<void(const std::string& reference, Color network, const PlayedGame& game)>;
nlohmann::json measure_strength(const std::string& network, const StrengthSettings& settings,
                                const StrengthSetup& setup, const StrengthGameSink& on_game = {});
// The judge's bands of the network's centipawns at move 41: below the first edge, between
// consecutive edges, above the last.
inline constexpr int kJudgeEdges[] = {-600, 0, 600, 1500, 3000};
// The judge's verdicts on one reference's games: (the network's centipawns at move 41, its
// score in the game) for every game played on from move 41 and judged, and the number the
// engine failed on, summarised for the result JSON: {"engine", "positions", "failed",
// "median_cp", "ahead_600", "ahead_1500", "bands": [{"from", "to", "games", "score"}]} (from/to
// null where open).
nlohmann::json judge_summary(const std::string& engine,
                             const std::vector<std::pair<int, double>>& verdicts, int failed);
// A measured game as a line of text: its record, then "# reference=... network=sente|gote" and
// record_line's game, seed, winner, reason and moves.
std::string strength_record_line(const std::string& reference, Color network,
                                 const PlayedGame& game);
// eval strength: the settings, and what the command names besides them.
struct StrengthCommand {
  StrengthSettings settings;
  std::string network;  // the checkpoint measured
  RuleSet rules = RuleSet::Balance;
  uint64_t seed = 1;
  std::string king_table;  // kings from its band; empty: uniform kings
  int king_band = kKingBand;
  std::string device = "cpu", precision = "fp32";
  std::string out;      // a JSON file for the result; empty: none
  std::string records;  // a text file for every game's record; empty: none
  StrengthCommand() { settings.games = 1000; }
};
// [strength], then the command's own settings (section [eval_strength] of a config file, and
// flags).
std::vector<OptionSection> strength_command_sections(StrengthCommand& c);
// Runs it: prints the text and the JSON line, writes `out` (atomically); returns the exit status.
int run_strength_command(const StrengthCommand& c);

// The measurement as lines of text: "vs uniform: 0.612 [0.581, 0.642], +79 Elo [+57, +102], 1000
// games".
std::string strength_text(const nlohmann::json& result);

}  // namespace fuseki
