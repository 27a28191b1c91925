// Evaluation subcommands: eval table (measure the king-pair table), eval merge (combine shards),
// place and choose (the Balance AI's decisions from a table).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/commands.h"
#include "eval/table_games.h"
#include "eval/table_output.h"
#include "io/atomic_file.h"
#include "io/stop.h"
#include "net/evaluator.h"
#include "rules/notation.h"
#include "rules/record.h"
#include "selfplay/generator.h"

namespace fuseki::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct TableArgs {
  std::string out = "runs/table";
  std::string network;  // empty: uniform random placement
  std::string rules = "balance";
  std::string playout = "builtin:nodes=300:noise=20";
  uint64_t seed = 1;
  int first_pass = 4, band = 48, round_games = 1024, threads = 2, batch = 64, min_band_games = 0;
  double halfwidth = 0.05, temperature = 1.0;
  long max_games = 200000;
  std::string shard;  // "i/n"
  std::string mirror = "check";
  std::string compare;
  std::string device = "cpu";
  std::string precision = "fp32";
  bool adaptive = true;
};

std::map<std::string, std::string> settings_of(const TableArgs& a) {
  std::map<std::string, std::string> s = {{"rules", a.rules},
                                          {"network", a.network.empty() ? "uniform" : a.network},
                                          {"playout", a.playout},
                                          {"seed", std::to_string(a.seed)},
                                          {"first_pass", std::to_string(a.first_pass)},
                                          {"band", std::to_string(a.band)},
                                          {"halfwidth", std::to_string(a.halfwidth)},
                                          {"temperature", std::to_string(a.temperature)},
                                          {"mirror", a.mirror}};
  if (a.precision != "fp32") s["precision"] = a.precision;
  return s;
}

void write_outputs(const fs::path& out, TableReport report, const std::vector<PairResult>& results,
                   const std::string& compare) {
  write_file_atomically((out / "table.json").string(), table_json(report));
  write_file_atomically((out / "table.csv").string(), table_csv(report));
  std::unique_ptr<KingPairTable> earlier;
  if (!compare.empty()) earlier = std::make_unique<KingPairTable>(KingPairTable::load(compare));
  write_file_atomically((out / "report.html").string(), table_html(report, earlier.get()));
  Shard games;  // every game's result and seed
  games.attributes = report.settings;
  games.attributes["kind"] = "king_pair_table_games";
  for (const PairResult& r : results) {
    GameRow row;
    row.seed = r.seed;
    row.winner = r.winner;
    row.reason = r.reason;
    row.play_moves = r.moves;
    row.sente_king = int16_t(pair_sente(r.pair));
    row.gote_king = int16_t(pair_gote(r.pair));
    games.games.push_back(row);
  }
  write_shard((out / "games.h5").string(), games);
}

// Reads a table run's journal: schedules and results, in order. A torn last line is dropped.
void read_journal(const fs::path& path, std::vector<Schedule>& schedules,
                  std::vector<PairResult>& results) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception&) {
      break;
    }
    if (j.contains("round")) {
      Schedule s;
      s.round = j["round"].get<int>();
      for (auto& g : j["games"])
        s.games.push_back({g[0].get<int>(), g[1].get<int>(), g[2].get<uint64_t>()});
      schedules.push_back(std::move(s));
    } else {
      results.push_back({j["pair"].get<int>(), j["index"].get<int>(), j["seed"].get<uint64_t>(),
                         j["winner"].get<int8_t>(), j["reason"].get<int8_t>(),
                         j["moves"].get<int16_t>()});
    }
  }
}

int run_table(const TableArgs& a) {
  auto rules = parse_rule_set(a.rules);
  if (!rules || !rule_info(*rules).balance_kings)
    throw std::runtime_error(
        "--rules must be balance or balance-v1 (the table is of Balance Shogi)");
  fs::path out = a.out;
  fs::create_directories(out);
  std::map<std::string, std::string> settings = settings_of(a);
  AllocationOptions o;
  o.first_pass = a.first_pass;
  o.band = a.band;
  o.round_games = a.round_games;
  o.target_halfwidth = a.halfwidth;
  o.min_band_games = a.min_band_games;
  o.max_games = a.max_games;
  o.adaptive = a.adaptive;
  if (!a.adaptive) settings["adaptive"] = "off";
  if (!a.shard.empty()) {
    int i = -1, n = -1;
    if (std::sscanf(a.shard.c_str(), "%d/%d", &i, &n) != 2 || n < 1 || i < 0 || i >= n)
      throw std::runtime_error("--shard '" + a.shard + "': expected i/n with 0 <= i < n");
    for (int p = i; p < KING_PAIRS; p += n) o.pairs.push_back(p);
    o.adaptive = false;  // a shard plays its slice uniformly; merge combines the slices
    settings["adaptive"] = "off";
    settings["shard"] = a.shard;
  }
  // A run resumes only with the settings it began with.
  fs::path settings_file = out / "settings.json";
  json settings_json(settings);
  if (fs::exists(settings_file)) {
    json before = json::parse(read_file(settings_file.string()));
    if (before != settings_json)
      throw std::runtime_error(settings_file.string() +
                               ": this directory holds a run with other settings (" +
                               before.dump() + "); use another --out");
  } else {
    write_file_atomically(settings_file.string(), settings_json.dump(1));
  }

  TableBuilder builder(o, a.seed);
  std::vector<Schedule> schedules;
  std::vector<PairResult> results;
  fs::path journal = out / "journal.jsonl";
  read_journal(journal, schedules, results);
  for (const Schedule& s : schedules) builder.restore_schedule(s);
  for (const PairResult& r : results) builder.restore_result(r);
  if (!results.empty())
    std::fprintf(stderr, "eval table: resuming with %zu games from %s\n", results.size(),
                 journal.string().c_str());
  // Rewrite the journal without a torn last line, then append.
  {
    std::string kept;
    for (const Schedule& s : schedules) {
      json g = json::array();
      for (const PairGame& pg : s.games) g.push_back({pg.pair, pg.index, pg.seed});
      kept += json{{"round", s.round}, {"games", g}}.dump() + "\n";
    }
    for (const PairResult& r : results)
      kept += json{{"pair", r.pair},     {"index", r.index},   {"seed", r.seed},
                   {"winner", r.winner}, {"reason", r.reason}, {"moves", r.moves}}
                  .dump() +
              "\n";
    write_file_atomically(journal.string(), kept, results.empty() ? nullptr : "journal-rewrite");
  }
  std::ofstream log(journal, std::ios::app);

  std::unique_ptr<net::Evaluator> eval;
  if (!a.network.empty())
    eval = std::make_unique<net::Evaluator>(
        net::Evaluator::from_checkpoint(a.network, {a.device, 1, 64, a.precision}));
  SelfPlayOptions so;
  so.rules = *rules;
  so.batch = a.batch;
  so.temperature = a.temperature;
  so.playout = a.playout;
  so.playout_threads = a.threads;
  PlacementGames source(eval.get(), so);
  double t0 =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  long at_start = builder.games_played();
  test_point("start");
  builder.run(
      source,
      [&](const Schedule& s) {
        json g = json::array();
        for (const PairGame& pg : s.games) g.push_back({pg.pair, pg.index, pg.seed});
        log << json{{"round", s.round}, {"games", g}}.dump() << "\n" << std::flush;
      },
      [&](const PairResult& r) {
        results.push_back(r);
        log << json{{"pair", r.pair},     {"index", r.index},   {"seed", r.seed},
                    {"winner", r.winner}, {"reason", r.reason}, {"moves", r.moves}}
                   .dump()
            << "\n"
            << std::flush;
      },
      [&](const std::string& msg) {
        double t =
            std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
                .count() -
            t0;
        std::fprintf(stderr, "eval table: %s, %.1f games/s\n", msg.c_str(),
                     (builder.games_played() - at_start) / std::max(t, 1e-9));
      });

  std::vector<PairTally> tallies = builder.tallies();
  if (a.mirror == "pool") tallies = pool_mirrors(tallies);
  TableReport report = make_report(tallies, a.band, settings);
  report.rounds = builder.rounds();
  if (a.mirror == "off") report.mirror_disagreements = -1;
  report.uniform_equivalent = builder.uniform_equivalent();
  write_outputs(out, report, results, a.compare);
  std::printf(
      "eval table: %ld games, %d rounds (uniform allocation to the same band precision: %ld "
      "games); "
      "band %s; table %s, report %s\n",
      report.games, report.rounds, report.uniform_equivalent,
      builder.band_precise() ? "precise" : "not precise", (out / "table.json").string().c_str(),
      (out / "report.html").string().c_str());
  return 0;
}

int run_merge(const std::string& out_dir, const std::vector<std::string>& shards, int band,
              const std::string& compare) {
  std::vector<PairTally> tallies(KING_PAIRS);
  std::vector<PairResult> all;
  json common;
  std::set<std::string> seen_shards;
  int rounds = 0;  // the shards' rounds ran side by side
  for (const std::string& dir : shards) {
    json s = json::parse(read_file((fs::path(dir) / "settings.json").string()));
    std::string shard = s.value("shard", "");
    s.erase("shard");
    if (common.is_null()) common = s;
    if (s != common)
      throw std::runtime_error(dir + ": its settings differ from the first shard's (" + s.dump() +
                               " vs " + common.dump() + ")");
    if (!seen_shards.insert(shard).second)
      throw std::runtime_error(dir + ": shard " + shard + " given twice");
    if (!fs::exists(fs::path(dir) / "table.json"))
      throw std::runtime_error(dir + ": shard " + shard +
                               " is not finished (no table.json); run it again to complete it");
    std::vector<Schedule> schedules;
    std::vector<PairResult> results;
    read_journal(fs::path(dir) / "journal.jsonl", schedules, results);
    rounds = std::max(rounds, int(schedules.size()));
    TableBuilder one(AllocationOptions{}, 0);
    for (const PairResult& r : results) one.restore_result(r);
    for (int p = 0; p < KING_PAIRS; ++p) tallies[size_t(p)] += one.tallies()[size_t(p)];
    all.insert(all.end(), results.begin(), results.end());
  }
  // Every slice of one split, each finished: a missing or unfinished shard would leave pairs
  // unmeasured without anyone noticing.
  int count = -1;
  for (const std::string& shard : seen_shards) {
    int i = -1, n = -1;
    if (std::sscanf(shard.c_str(), "%d/%d", &i, &n) != 2)
      throw std::runtime_error("eval merge: a directory given is not a shard (--shard i/n) run");
    if (count >= 0 && n != count)
      throw std::runtime_error("eval merge: shards of different splits (" + shard + " and ?/" +
                               std::to_string(count) + ")");
    count = n;
  }
  for (int i = 0; i < count; ++i)
    if (!seen_shards.count(std::to_string(i) + "/" + std::to_string(count)))
      throw std::runtime_error("eval merge: shard " + std::to_string(i) + "/" +
                               std::to_string(count) + " is missing");
  std::map<std::string, std::string> settings;
  for (auto& [k, v] : common.items()) settings[k] = v.get<std::string>();
  settings["merged_shards"] = std::to_string(shards.size());
  fs::create_directories(out_dir);
  TableReport report = make_report(tallies, band, settings);
  report.rounds = rounds;
  write_outputs(out_dir, report, all, compare);
  std::printf("eval merge: %zu shards, %ld games; table %s\n", shards.size(), report.games,
              (fs::path(out_dir) / "table.json").string().c_str());
  return 0;
}

}  // namespace

void add_eval_commands(CLI::App& app, Runner& run) {
  CLI::App* eval = eval_command(app);
  eval->require_subcommand(1);
  auto a = std::make_shared<TableArgs>();
  CLI::App* table = eval->add_subcommand(
      "table", "Sente's win rate for every king pair, with intervals and a fit");
  table->add_option("--out", a->out, "Output directory (resumes a run found there)")
      ->capture_default_str();
  table->add_option("--network", a->network,
                    "Placement network checkpoint (default: uniform random placement)");
  table->add_option("--rules", a->rules, "balance or balance-v1")->capture_default_str();
  table->add_option("--playout", a->playout, "Play-out engine (see play --sente)")
      ->capture_default_str();
  table->add_option("--seed", a->seed, "Run seed; game j of a pair has a seed derived from it")
      ->capture_default_str();
  table->add_option("--first-pass", a->first_pass, "Games per pair in the first pass")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  table->add_option("--band", a->band, "Pairs closest to even to pin down")
      ->check(CLI::Range(1, KING_PAIRS))
      ->capture_default_str();
  table->add_option("--halfwidth", a->halfwidth, "95 % half-width asked of each band pair")
      ->check(CLI::Range(0.001, 0.5))
      ->capture_default_str();
  table
      ->add_option("--min-band-games", a->min_band_games,
                   "... or at least this many games per band pair")
      ->check(CLI::Range(0, 100000000));
  table->add_option("--round-games", a->round_games, "Games per adaptive round")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  table->add_option("--max-games", a->max_games, "Budget")
      ->check(CLI::Range(1L, 1000000000L))
      ->capture_default_str();
  table->add_option("--threads", a->threads, "Play-out threads")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  table->add_option("--temperature", a->temperature, "Placement temperature")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  table->add_option("--shard", a->shard,
                    "i/n: play this slice of the pairs (uniformly); combine with eval merge");
  table
      ->add_option("--adaptive", a->adaptive,
                   "true: rounds after the first pass to pin down the band; false: the first "
                   "pass only (as a set of --shard runs measures)")
      ->capture_default_str();
  table->add_option("--mirror", a->mirror, "check, pool or off")
      ->check(CLI::IsMember({"check", "pool", "off"}))
      ->capture_default_str();
  table->add_option("--compare", a->compare,
                    "An earlier table (king_pair_table/1 JSON) to compare against");
  table->add_option("--device", a->device, "cpu or cuda[:N]")->capture_default_str();
  table
      ->add_option("--precision", a->precision, "Inference precision: fp32, bf16, fp16 (CUDA only)")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}))
      ->capture_default_str();
  table->callback([&run, a] { run = [a] { return run_table(*a); }; });

  struct MergeArgs {
    std::string out;
    std::vector<std::string> shards;
    int band = 48;
    std::string compare;
  };
  auto m = std::make_shared<MergeArgs>();
  CLI::App* merge = eval->add_subcommand(
      "merge", "Combine the shard directories of eval table --shard into one table");
  merge->add_option("--out", m->out, "Output directory")->required();
  merge->add_option("shards", m->shards, "Shard directories")->required();
  merge->add_option("--band", m->band, "Pairs closest to even")->check(CLI::Range(1, KING_PAIRS));
  merge->add_option("--compare", m->compare, "An earlier table to compare against");
  merge->callback(
      [&run, m] { run = [m] { return run_merge(m->out, m->shards, m->band, m->compare); }; });

  auto table_path = std::make_shared<std::string>();
  auto band = std::make_shared<int>(48);
  auto seed = std::make_shared<uint64_t>(1);
  CLI::App* place =
      app.add_subcommand("place", "The Balance AI's kings: a pair drawn from the band of a table");
  place->add_option("--table", *table_path, "king_pair_table/1 JSON")->required();
  place->add_option("--band", *band, "Draw among this many pairs closest to even")
      ->check(CLI::Range(1, KING_PAIRS))
      ->capture_default_str();
  place->add_option("--seed", *seed, "Seed of the draw")->capture_default_str();
  place->callback([&run, table_path, band, seed] {
    run = [table_path, band, seed] {
      KingPairTable t = KingPairTable::load(*table_path);
      Rng rng(*seed);
      KingPairEntry e = t.draw_near_even(*band, rng);
      std::printf("K*%s K*%s\n", square_name(e.sente).c_str(), square_name(e.gote).c_str());
      return 0;
    };
  });
  auto moves = std::make_shared<std::string>();
  auto choose_table = std::make_shared<std::string>();
  CLI::App* choose = app.add_subcommand(
      "choose", "The Balance AI's side choice after the kings: Sente above 50 %");
  choose->add_option("--table", *choose_table, "king_pair_table/1 JSON")->required();
  choose->add_option("--moves", *moves, "The two king drops, e.g. \"K*5i K*5a\"")->required();
  choose->callback([&run, choose_table, moves] {
    run = [choose_table, moves] {
      KingPairTable t = KingPairTable::load(*choose_table);
      Position pos = Position::start(RuleSet::Balance);
      play_record(pos, *moves);
      if (pos.ply() != 2) throw RulesError("--moves must be exactly the two king drops");
      const KingPairEntry* e = t.find(pos.king_square(BLACK), pos.king_square(WHITE));
      if (!e) throw RulesError("the table has no value for this pair");
      std::printf("%s\n", e->v > 0.5 ? "choose:sente" : "choose:gote");
      return 0;
    };
  });
}

}  // namespace fuseki::cli
