// eval table --plan M and eval table --round R --shard i/M: the adaptive king-pair table played
// round by round by arrays of processes (a Slurm array per round), with the schedules and the
// table of the one-process run (docs/cluster.md, "Adaptive rounds"). --out (DIR) holds:
//   settings.json              the run's settings: the table's, the allocation's, "rounds":
//   "cluster" plan.json                  where the run stands: the round to play next, or done
//   round-RRRR/schedule.json   round R's games in the one-process run's order, and its split in M
//   round-RRRR/slice-I/        task I's settings.json, journal.jsonl (results), finished.json
//   table/                     the table when done: table.json, table.csv, report.html, games.h5
// The planner restores every round's schedule and results into a TableBuilder, as a resumed
// one-process run does, and asks it for the next schedule: the allocation is TableBuilder's own.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "eval/table_parts.h"
#include "eval/table_run.h"
#include "io/atomic_file.h"
#include "io/file_lock.h"
#include "io/journal.h"
#include "io/progress.h"
#include "io/settings.h"
#include "io/slice.h"
#include "io/stop.h"

namespace fuseki {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path round_dir(const fs::path& dir, int round) {
  char name[32];
  std::snprintf(name, sizeof name, "round-%04d", round);
  return dir / name;
}

fs::path slice_dir(const fs::path& dir, int round, int index) {
  return round_dir(dir, round) / ("slice-" + std::to_string(index));
}

std::string round_slice(int round, const Slice& slice) {
  return "round " + std::to_string(round) + " slice " + slice.text();
}

// The run's settings: the table's (as the one-process run records them) and the allocation's,
// which the rounds' schedules depend on.
json run_settings(const TableRunOptions& a) {
  json s(table_settings(a));
  s["rounds"] = "cluster";
  s["round_games"] = std::to_string(a.round_games);
  s["min_band_games"] = std::to_string(a.min_band_games);
  s["max_games"] = std::to_string(a.max_games);
  return s;
}

json slice_settings(json run, int round, const Slice& slice) {
  run["round"] = std::to_string(round);
  run["slice"] = slice.text();
  return run;
}

struct Round {
  Schedule schedule;
  int slices = 1;
};

std::string round_text(const Round& r) {
  json games = json::array();
  for (const PairGame& g : r.schedule.games) games.push_back({g.pair, g.index, g.seed});
  return json{{"round", r.schedule.round}, {"slices", r.slices}, {"games", games}}.dump() + "\n";
}

// Round `round`'s schedule; every game's seed must be this run's.
Round read_round(const fs::path& dir, int round, uint64_t seed) {
  const fs::path path = round_dir(dir, round) / "schedule.json";
  if (!fs::exists(path))
    throw std::runtime_error("round " + std::to_string(round) + " does not exist: no " +
                             path.string() +
                             " (eval table --plan writes a round's schedule once every slice of "
                             "the round before it is finished)");
  Round r;
  try {
    json j = json::parse(read_file(path.string()));
    r.schedule.round = j.at("round").get<int>();
    r.slices = j.at("slices").get<int>();
    for (const json& g : j.at("games"))
      r.schedule.games.push_back({g.at(0).get<int>(), g.at(1).get<int>(), g.at(2).get<uint64_t>()});
  } catch (const json::exception& e) {
    throw std::runtime_error(path.string() + ": not a round's schedule (" + e.what() + ")");
  }
  bool ok = r.schedule.round == round && r.slices >= 1;
  for (const PairGame& g : r.schedule.games)
    ok = ok && g.pair >= 0 && g.pair < KING_PAIRS && g.index >= 0 &&
         g.seed == TableBuilder::game_seed(seed, g.pair, g.index);
  if (!ok)
    throw std::runtime_error(path.string() + ": not round " + std::to_string(round) +
                             "'s schedule of this run (another round's, another seed's, or "
                             "damaged)");
  return r;
}

// Slice i's games: every M-th game of the schedule from the i-th (so rounds that send many games
// to few pairs still split evenly).
std::vector<PairGame> slice_games(const Round& r, int index) {
  std::vector<PairGame> games;
  for (size_t k = size_t(index); k < r.schedule.games.size(); k += size_t(r.slices))
    games.push_back(r.schedule.games[k]);
  return games;
}

// Slice i's results, one per game of the slice, in the slice's order; refuses a slice that is
// missing, of another run or split, or unfinished, naming it.
std::vector<PairResult> slice_results(const fs::path& dir, const Round& r, int index,
                                      const json& run) {
  const int round = r.schedule.round;
  const Slice slice{index, r.slices};
  const std::string name = round_slice(round, slice);
  const std::string again = "eval table --round " + std::to_string(round) + " --shard " +
                            slice.text() + " with the run's arguments";
  const fs::path sd = slice_dir(dir, round, index);
  if (!fs::exists(sd / "settings.json"))
    throw std::runtime_error(name + " is missing (no " + sd.string() +
                             "): its task never started; run it (" + again + ")");
  keep_settings((sd / "settings.json").string(), slice_settings(run, round, slice),
                "it is not " + name + " of this run");
  std::vector<Schedule> ignored;
  std::vector<PairResult> journal;
  const fs::path jp = sd / "journal.jsonl";
  read_table_journal(jp.string(), ignored, journal);
  std::map<std::pair<int, int>, PairResult> by_game;
  for (const PairResult& res : journal) by_game.emplace(std::make_pair(res.pair, res.index), res);
  std::vector<PairResult> results;
  const std::vector<PairGame> games = slice_games(r, index);
  for (const PairGame& g : games) {
    auto it = by_game.find({g.pair, g.index});
    if (it != by_game.end() && it->second.seed == g.seed) results.push_back(it->second);
  }
  if (results.size() < games.size() || !fs::exists(sd / "finished.json"))
    throw std::runtime_error(name + " is not finished (" + std::to_string(results.size()) +
                             " of its " + std::to_string(games.size()) + " games in " +
                             jp.string() + "); run it again (" + again + ")");
  return results;
}

// The rounds in DIR whose schedule exists, in order.
std::vector<int> rounds_in(const fs::path& dir) {
  std::vector<int> rounds;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.size() == 10 && n.rfind("round-", 0) == 0 &&
        n.find_first_not_of("0123456789", 6) == std::string::npos &&
        fs::exists(e.path() / "schedule.json"))
      rounds.push_back(std::stoi(n.substr(6)));
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds;
}

int plan_round(const TableRunOptions& a) {
  if (!a.shard.empty())
    throw std::runtime_error(
        "--plan plans a round for all its slices: give --shard to the round's tasks, not to "
        "the planner");
  if (a.first_pass < 1)
    throw std::runtime_error(
        "--plan: cluster rounds begin with a first pass (--first-pass 1 or more)");
  const fs::path dir = a.out;
  const json run = run_settings(a);
  if (a.round >= 0 && !fs::exists(dir / "settings.json"))
    throw std::runtime_error("round " + std::to_string(a.round) + " does not exist: " +
                             dir.string() + " holds no cluster table run (no settings.json)");
  if (a.round >= 0) read_round(dir, a.round, a.seed);  // refuses a round that does not exist
  fs::create_directories(dir);
  FileLock lock((dir / "plan.lock").string(), "the planner of " + dir.string());
  keep_settings((dir / "settings.json").string(), run,
                "plan with the run's eval table arguments, or use another --out");

  // Every round up to --round, each finished, fed to the builder as a resumed one-process run
  // feeds its journal: the schedules, then the results (schedule order, round by round).
  TableBuilder builder(table_allocation(a), a.seed);
  std::vector<Round> rounds;
  std::vector<PairResult> results;
  for (int r = 0; r <= a.round; ++r) {
    rounds.push_back(read_round(dir, r, a.seed));
    const Round& round = rounds.back();
    std::vector<std::vector<PairResult>> slices;
    for (int i = 0; i < round.slices; ++i) slices.push_back(slice_results(dir, round, i, run));
    for (size_t k = 0; k < round.schedule.games.size(); ++k)
      results.push_back(slices[k % size_t(round.slices)][k / size_t(round.slices)]);
  }
  for (const Round& r : rounds) builder.restore_schedule(r.schedule);
  for (const PairResult& r : results) builder.restore_result(r);

  Schedule next = builder.next_schedule();
  for (int r : rounds_in(dir))
    if (r > a.round && (next.games.empty() || r != next.round))
      throw std::runtime_error("round " + std::to_string(r) + " exists already in " + dir.string() +
                               ": round " + std::to_string(a.round) +
                               " is not the last one played (plan after the last round)");
  const fs::path plan_path = dir / "plan.json";
  if (next.games.empty()) {
    const std::map<std::string, std::string> settings = table_settings(a);
    TableReport report = table_report(builder, a, settings);
    const fs::path out = dir / "table";
    fs::create_directories(out);
    write_outputs(out, report, results, a.compare);
    write_file_atomically(
        plan_path.string(),
        json{{"done", true}, {"rounds", builder.rounds()}, {"games", builder.games_played()}}
                .dump() +
            "\n");
    std::printf(
        "eval table: done after %d rounds: %ld games (uniform allocation to the same band "
        "precision: %ld games); band %s; table %s\n",
        report.rounds, report.games, report.uniform_equivalent,
        builder.band_precise() ? "precise" : "not precise", (out / "table.json").string().c_str());
    return 0;
  }
  const Round planned{next, a.plan};
  const std::string text = round_text(planned);
  const fs::path path = round_dir(dir, next.round) / "schedule.json";
  if (fs::exists(path)) {  // planned before (a planner restarted after writing it)
    if (read_file(path.string()) != text)
      throw std::runtime_error(path.string() + ": round " + std::to_string(next.round) +
                               " was planned before with other results or another split than "
                               "--plan " +
                               std::to_string(a.plan));
  } else {
    fs::create_directories(path.parent_path());
    write_file_atomically(path.string(), text);
  }
  write_file_atomically(
      plan_path.string(),
      json{{"done", false}, {"round", next.round}, {"slices", a.plan}, {"games", next.games.size()}}
              .dump() +
          "\n");
  std::printf(
      "eval table: round %d planned: %zu games in %d slices (%ld played before; band %s); %s\n",
      next.round, next.games.size(), a.plan, builder.games_played(),
      builder.band_precise() ? "precise" : "not yet precise", path.string().c_str());
  return 0;
}

int play_round_slice(const TableRunOptions& a) {
  if (a.shard.empty())
    throw std::runtime_error("--round " + std::to_string(a.round) +
                             ": give the slice to play (--shard i/M), or --plan M to plan the "
                             "round after it");
  const Slice slice = parse_slice(a.shard, "--shard");
  const fs::path dir = a.out;
  if (!fs::exists(dir / "settings.json"))
    throw std::runtime_error(
        "round " + std::to_string(a.round) + " does not exist: " + dir.string() +
        " holds no cluster table run (no settings.json; eval table --plan M writes it)");
  const json run = run_settings(a);
  keep_settings((dir / "settings.json").string(), run,
                "give the round's tasks the run's eval table arguments");
  const Round round = read_round(dir, a.round, a.seed);
  if (slice.count != round.slices)
    throw std::runtime_error("--shard " + a.shard + ": round " + std::to_string(a.round) +
                             " is split into " + std::to_string(round.slices) + " slices (i/" +
                             std::to_string(round.slices) + ")");
  TableGames source(a);  // loads the network before anything is written
  const std::string name = round_slice(a.round, slice);
  const fs::path sd = slice_dir(dir, a.round, slice.index);
  fs::create_directories(sd);
  FileLock lock((sd / "lock").string(), name);
  keep_settings((sd / "settings.json").string(), slice_settings(run, a.round, slice),
                "it is not " + name + " of this run");

  const std::vector<PairGame> games = slice_games(round, slice.index);
  std::vector<Schedule> ignored;
  std::vector<PairResult> results;
  const fs::path jp = sd / "journal.jsonl";
  std::vector<std::string> kept = read_table_journal(jp.string(), ignored, results);
  std::set<std::pair<int, int>> have;
  for (const PairResult& r : results) have.insert({r.pair, r.index});
  std::vector<PairGame> missing;
  for (const PairGame& g : games)
    if (!have.count({g.pair, g.index})) missing.push_back(g);
  if (!results.empty())
    std::fprintf(stderr, "eval table: resuming with %zu games from %s\n", results.size(),
                 jp.string().c_str());
  if (!missing.empty()) {
    LineJournal journal(jp.string(), kept);  // without a torn last line, then appended
    test_point("start");
    Progress progress("eval table: " + name, missing.size());
    uint64_t played = 0;
    source.play(missing, [&](const PairResult& r) {
      journal.append(table_result_line(r));
      ++played;
      progress.report(played, "", played == missing.size());
    });
  }
  write_file_atomically(
      (sd / "finished.json").string(),
      json{{"round", a.round}, {"slice", slice.text()}, {"games", games.size()}}.dump() + "\n");
  std::printf("eval table: %s: %zu games (%zu from the journal); %s\n", name.c_str(), games.size(),
              games.size() - missing.size(), sd.string().c_str());
  return 0;
}

}  // namespace

int run_table_rounds(const TableRunOptions& a) {
  if (table_scoring(a) != "games")
    throw std::runtime_error(
        "--plan and --round measure by games only: use --score games (or "
        "auto), or --score " +
        a.score + " in one process");
  return a.plan > 0 ? plan_round(a) : play_round_slice(a);
}

}  // namespace fuseki
