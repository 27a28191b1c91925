// eval table and eval merge: the king-pair table measured with real games (one process, or a
// slice of an array), its journal and resume, its outputs. cli/cmd_eval.cpp declares the flags.
#include "eval/table_run.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/game.h"
#include "engine/match.h"
#include "eval/eval_scores.h"
#include "eval/table_games.h"
#include "eval/table_output.h"
#include "eval/table_parts.h"
#include "io/atomic_file.h"
#include "io/clock.h"
#include "io/journal.h"
#include "io/progress.h"
#include "io/settings.h"
#include "io/slice.h"
#include "io/stop.h"
#include "net/checkpoint.h"
#include "net/evaluator.h"
#include "selfplay/generator.h"
#include "selfplay/network_placer.h"

namespace fuseki {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

}  // namespace

std::map<std::string, std::string> settings_of(const TableRunOptions& a) {
  std::map<std::string, std::string> s = {{"rules", rule_info(a.rules).name},
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

std::map<std::string, std::string> table_settings(const TableRunOptions& a) {
  std::map<std::string, std::string> s = settings_of(a);
  if (!a.adaptive) s["adaptive"] = "off";
  const std::string scoring = table_scoring(a);
  if (scoring != "games") {  // one game per pair fits the calibration
    s["first_pass"] = "1";
    s["score"] = scoring;
    if (table_eval_engine(a) == "value") {
      s["eval"] = "value head after the kings";
    } else {
      s["eval"] = table_eval_engine(a) + ":nodes=" + std::to_string(a.eval_nodes);
      s["eval_samples"] = std::to_string(a.eval_samples);
    }
    if (scoring == "eval") s["adaptive"] = "off";
  }
  return s;
}

AllocationOptions table_allocation(const TableRunOptions& a) {
  AllocationOptions o;
  o.first_pass = a.first_pass;
  o.band = a.band;
  o.round_games = a.round_games;
  o.target_halfwidth = a.halfwidth;
  o.min_band_games = a.min_band_games;
  o.max_games = a.max_games;
  o.adaptive = a.adaptive;
  const std::string scoring = table_scoring(a);
  if (scoring != "games") o.first_pass = 1;  // the calibration's games
  if (scoring == "eval") o.adaptive = false;
  return o;
}

// The site's name of the placement network: iterN for a checkpoint of generation N.
std::string model_name(const std::string& network) {
  if (network.empty() || network == "uniform") return "uniform";
  if (net::Evaluator::is_onnx(network)) {  // no generation inside: the file name's iterN
    const std::string stem = std::filesystem::path(network).stem().string();
    const size_t at = stem.rfind("iter");
    size_t end = at == std::string::npos ? at : at + 4;
    while (end != std::string::npos && end < stem.size() && std::isdigit((unsigned char)stem[end]))
      ++end;
    if (at != std::string::npos && end > at + 4) return stem.substr(at, end - at);
    return stem;
  }
  return "iter" + std::to_string(net::load_checkpoint(network).state.generation);
}

void write_outputs(const fs::path& out, const TableReport& report,
                   const std::vector<PairResult>& results, const std::string& compare) {
  std::unique_ptr<KingPairTable> earlier;  // read first: a bad one leaves no table behind
  if (!compare.empty()) earlier = std::make_unique<KingPairTable>(KingPairTable::load(compare));
  write_file_atomically((out / "table.json").string(), table_json(report));
  write_file_atomically((out / "table.csv").string(), table_csv(report));
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

TableReport table_report(const TableBuilder& builder, const TableRunOptions& a,
                         const std::map<std::string, std::string>& settings) {
  std::vector<PairTally> tallies = builder.tallies();
  if (a.mirror == "pool") tallies = pool_mirrors(tallies);
  TableReport report = make_report(tallies, a.band, settings);
  report.rounds = builder.rounds();
  if (a.mirror == "off") report.mirror_disagreements = -1;
  report.uniform_equivalent = builder.uniform_equivalent();
  report.model = model_name(a.network);
  return report;
}

std::string table_result_line(const PairResult& r) {
  return json{{"pair", r.pair},           {"index", r.index},         {"seed", r.seed},
              {"winner", code(r.winner)}, {"reason", code(r.reason)}, {"moves", r.moves}}
      .dump();
}

TableGames::TableGames(const TableRunOptions& a) {
  if (!a.network.empty())
    eval_ = std::make_unique<net::Evaluator>(
        net::Evaluator::from_file(a.network, {a.device, 1, 64, a.precision}));
  SelfPlayOptions so;
  so.rules = a.rules;
  so.batch = a.batch;
  so.temperature = a.temperature;
  so.playout = a.playout;
  so.playout_threads = a.threads;
  // Without --network the placement is uniform.
  if (eval_)
    placer_ = std::make_unique<NetworkPlacer>(*eval_, so.temperature);
  else
    placer_ = std::make_unique<UniformPlacer>();
  games_ = std::make_unique<PlacementGames>(*placer_, so);
  options_ = so;
}

std::unique_ptr<PlacementGames> TableGames::evaluator(const TableRunOptions& a) const {
  SelfPlayOptions eo = options_;
  eo.play_out = false;
  eo.eval_nodes = uint64_t(a.eval_nodes);
  eo.eval_engine = table_eval_engine(a);
  eo.eval_scale = kEvalPassScale;
  eo.eval_bias = 0;
  return std::make_unique<PlacementGames>(*placer_, eo);
}

std::vector<double> TableGames::value_prior(RuleSet rules) const {
  std::vector<Position> after_kings;  // each pair's kings placed, Sente to move
  for (int p = 0; p < KING_PAIRS; ++p) {
    Game g(Position::start(rules));
    g.play(make_drop(KING, pair_sente(p)));
    g.play(make_drop(KING, pair_gote(p)));
    after_kings.push_back(g.position());
  }
  std::vector<const Position*> ptrs;
  for (const Position& pos : after_kings) ptrs.push_back(&pos);
  const std::vector<net::Evaluation> evals = eval_->evaluate(ptrs);
  std::vector<double> prior(KING_PAIRS);
  for (int p = 0; p < KING_PAIRS; ++p) {  // the value is the mover's expected score in [-1, 1]
    const double v = after_kings[size_t(p)].side_to_move() == BLACK ? evals[size_t(p)].value
                                                                    : -evals[size_t(p)].value;
    prior[size_t(p)] = (1 + v) / 2;
  }
  return prior;
}

TableGames::~TableGames() = default;

void TableGames::play(const std::vector<PairGame>& games,
                      const std::function<void(const PairResult&)>& done) {
  games_->play(games, done);
}

std::vector<std::string> read_table_journal(const std::string& path,
                                            std::vector<Schedule>& schedules,
                                            std::vector<PairResult>& results,
                                            std::vector<PairResult>* evaluations) {
  std::vector<std::string> lines = LineJournal::read(path, [&](const std::string& line) {
    try {
      json j = json::parse(line);
      if (j.contains(
              "eval")) {  // an evaluation-pass result: [pair, index, seed, winner, reason, p]
        const json& e = j.at("eval");
        std::optional<Winner> winner = winner_from_code(e.at(3).get<int>());
        std::optional<Reason> reason = reason_from_code(e.at(4).get<int>());
        if (!winner || !reason) return false;
        if (evaluations)
          evaluations->push_back({e.at(0).get<int>(), e.at(1).get<int>(), e.at(2).get<uint64_t>(),
                                  *winner, *reason, 0, e.at(5).get<float>()});
      } else if (j.contains("round")) {
        Schedule s;
        s.round = j.at("round").get<int>();
        for (auto& g : j.at("games"))
          s.games.push_back({g.at(0).get<int>(), g.at(1).get<int>(), g.at(2).get<uint64_t>()});
        schedules.push_back(std::move(s));
      } else {
        std::optional<Winner> winner = winner_from_code(j.at("winner").get<int>());
        std::optional<Reason> reason = reason_from_code(j.at("reason").get<int>());
        if (!winner || !reason) return false;
        results.push_back({j.at("pair").get<int>(), j.at("index").get<int>(),
                           j.at("seed").get<uint64_t>(), *winner, *reason,
                           j.at("moves").get<int16_t>()});
      }
      return true;
    } catch (const json::exception&) {
      return false;  // torn or garbled: the journal ends before it
    }
  });
  return lines;
}

int run_table(const TableRunOptions& a) {
  if (!rule_info(a.rules).balance_kings)
    throw std::runtime_error(
        "--rules must be balance or balance-v1 (the table is of Balance Shogi)");
  // Everything is checked before anything is written: a bad network or slice leaves no
  // settings.json behind to refuse the corrected command; a bad --compare is found before the
  // games, not after them.
  if (!a.compare.empty()) KingPairTable::load(a.compare);
  if (a.plan > 0 || a.round >= 0) return run_table_rounds(a);
  Slice slice;
  if (!a.shard.empty()) slice = parse_slice(a.shard, "--shard");
  const std::string scoring = table_scoring(a);
  const bool by_eval = scoring != "games";
  const std::string eval_engine = table_eval_engine(a) + ":nodes=" + std::to_string(a.eval_nodes);
  if (by_eval && !a.shard.empty())
    throw std::runtime_error("--shard measures a slice by games only: add --score games");
  const bool value_eval = by_eval && table_eval_engine(a) == "value";
  if (value_eval && (scoring != "both" || a.network.empty()))
    throw std::runtime_error(
        "--eval-engine value (the network's value head at the kings) needs --network and "
        "--score both");
  if (by_eval && !value_eval) {
    try {  // the engine spec, before anything is written
      make_player(eval_engine, default_engines(), a.rules);
    } catch (const std::exception& e) {
      throw std::runtime_error("--eval-engine " + table_eval_engine(a) + ": " + e.what());
    }
  }
  TableGames source(a);  // loads the network
  fs::path out = a.out;
  fs::create_directories(out);
  std::map<std::string, std::string> settings = table_settings(a);
  AllocationOptions o = table_allocation(a);
  if (!a.shard.empty()) {
    for (int p = slice.index; p < KING_PAIRS; p += slice.count) o.pairs.push_back(p);
    o.adaptive = false;  // a shard plays its slice uniformly; merge combines the slices
    settings["adaptive"] = "off";
    settings["shard"] = a.shard;
  }
  // A run resumes only with the settings it began with.
  keep_settings((out / "settings.json").string(), json(settings), "use another --out");

  TableBuilder builder(o, a.seed);
  std::vector<Schedule> schedules;
  std::vector<PairResult> results;
  fs::path journal_path = out / "journal.jsonl";
  std::vector<PairResult> evaluated;
  std::vector<std::string> kept =
      read_table_journal(journal_path.string(), schedules, results, &evaluated);
  for (const Schedule& s : schedules) builder.restore_schedule(s);
  for (const PairResult& r : results) builder.restore_result(r);
  if (!results.empty())
    std::fprintf(stderr, "eval table: resuming with %zu games from %s\n", results.size(),
                 journal_path.string().c_str());
  LineJournal journal(journal_path.string(), kept);  // without a torn last line, then appended

  // Scoring by evaluation: every pair's sampled placements played to move 41 and evaluated
  // (sample k has game k's seed, so game k places the same pieces: the calibration's data).
  EvalScores scores;
  for (const PairResult& r : evaluated) scores.add(r);
  double eval_cpu = 0, eval_wall = 0;
  std::unique_ptr<PlacementGames> evaluator;
  // Evaluates pair p's samples [0, upto[p]) not evaluated yet; journals each.
  auto evaluate = [&](const std::vector<int>& upto, const std::string& what) {
    std::vector<PairGame> todo;
    for (int p = 0; p < KING_PAIRS; ++p)
      for (int k = 0; k < upto[size_t(p)]; ++k)
        if (!scores.sample(p, k).present)
          todo.push_back({p, k, TableBuilder::game_seed(a.seed, p, k)});
    if (todo.empty()) return;
    if (!evaluator) evaluator = source.evaluator(a);
    const double c0 = cpu_seconds(), t0 = now_seconds();
    const size_t chunk = 2048;
    for (size_t at = 0; at < todo.size(); at += chunk) {
      std::vector<PairGame> part(todo.begin() + std::ptrdiff_t(at),
                                 todo.begin() + std::ptrdiff_t(std::min(todo.size(), at + chunk)));
      evaluator->play(part, [&](const PairResult& r) {
        scores.add(r);
        journal.append(
            json{{"eval", {r.pair, r.index, r.seed, code(r.winner), code(r.reason), r.sente_eval}}}
                .dump());
      });
      const double done = double(std::min(todo.size(), at + chunk)), t = now_seconds() - t0;
      std::fprintf(stderr, "eval table: %s: evaluations %.0f/%zu, %.0f/s, ETA %.0f s\n",
                   what.c_str(), done, todo.size(), done / std::max(t, 1e-9),
                   (double(todo.size()) - done) * t / std::max(done, 1.0));
    }
    eval_cpu += cpu_seconds() - c0;
    eval_wall += now_seconds() - t0;
  };
  if (value_eval) {  // one batched pass: the value head after each pair's kings
    const double c0 = cpu_seconds(), t0 = now_seconds();
    const std::vector<double> prior = source.value_prior(a.rules);
    for (int p = 0; p < KING_PAIRS; ++p) scores.add_pair_value(p, prior[size_t(p)]);
    eval_cpu += cpu_seconds() - c0;
    eval_wall += now_seconds() - t0;
  } else if (by_eval) {
    evaluate(std::vector<int>(KING_PAIRS, a.eval_samples), "every pair");
  }
  if (scoring == "both")  // the fit around the evaluation, under the games' calibration so far
    builder.set_prior([&] {
      std::vector<double> prior(KING_PAIRS);
      const std::vector<PairEvalEstimate> est = scores.estimates(scores.fit(results));
      for (int p = 0; p < KING_PAIRS; ++p) prior[size_t(p)] = est[size_t(p)].v;
      return prior;
    });

  double t0 = now_seconds(), c1 = cpu_seconds();
  long at_start = builder.games_played();
  // Within a round too (a round can take long): games, rate and the ETA of the games budget, an
  // upper bound, as the adaptive rounds stop once the band is as precise as asked.
  Progress games_progress("eval table: games (of the --max-games budget)",
                          uint64_t(std::max(a.max_games - at_start, 0L)));
  uint64_t played_now = 0;
  test_point("start");
  builder.run(
      source,
      [&](const Schedule& s) {
        json g = json::array();
        for (const PairGame& pg : s.games) g.push_back({pg.pair, pg.index, pg.seed});
        journal.append(json{{"round", s.round}, {"games", g}}.dump());
      },
      [&](const PairResult& r) {
        results.push_back(r);
        journal.append(table_result_line(r));
        games_progress.report(++played_now);
      },
      [&](const std::string& msg) {
        double t = now_seconds() - t0;
        std::fprintf(stderr, "eval table: %s, %.1f games/s\n", msg.c_str(),
                     (builder.games_played() - at_start) / std::max(t, 1e-9));
      });

  if (scoring == "eval") {
    // More samples for the band pairs whose interval is still wider than asked (the samples' part
    // of it), in steps of --eval-samples, up to 16 times as many.
    std::vector<int> upto(KING_PAIRS, a.eval_samples);
    for (int step = 2; step <= 16; ++step) {
      const EvalCalibration c = scores.fit(results);
      const std::vector<PairEvalEstimate> est = scores.estimates(c);
      bool more = false;
      for (int p : eval_band(est, a.band)) {
        const PairEvalEstimate& e = est[size_t(p)];
        const double calibration2 = e.se * e.se - e.sampling_se * e.sampling_se;
        if (1.959964 * e.se > a.halfwidth &&
            1.959964 * std::sqrt(calibration2) < a.halfwidth) {  // samples can still help
          upto[size_t(p)] = step * a.eval_samples;
          more = true;
        }
      }
      if (!more) break;
      evaluate(upto, "band pairs short of the precision, round " + std::to_string(step - 1));
    }
  }
  TableReport report = table_report(builder, a, settings);
  report.band_precise = builder.band_precise();
  const double games_cpu = cpu_seconds() - c1, games_wall = now_seconds() - t0;
  if (by_eval) {
    report.score = scoring;
    report.evaluations = scores.evaluations();
    report.calibration = scores.fit(results);
    const std::vector<PairEvalEstimate> est = scores.estimates(report.calibration);
    if (scoring == "both") {                  // the games' table, fitted around the evaluation
      std::vector<double> prior(KING_PAIRS);  // as the rounds fitted, on the report's tallies
      for (int p = 0; p < KING_PAIRS; ++p) prior[size_t(p)] = est[size_t(p)].v;
      report.fit = fit_table(report.tallies, &prior);
      for (int p = 0; p < KING_PAIRS; ++p) report.fit.pairs[size_t(p)].v_eval = est[size_t(p)].v;
      report.band = band_of(report.fit.pairs, a.band);
      std::vector<int> measured;  // evaluation against games: the pairs with precise games
      for (int p = 0; p < KING_PAIRS; ++p) {
        const PairEstimate& e = report.fit.pairs[size_t(p)];
        if (report.tallies[size_t(p)].games > 0 && (e.high - e.low) / 2 <= a.halfwidth)
          measured.push_back(p);
      }
      report.agreement = eval_agreement(measured, est, builder.tallies());
    } else {  // every pair by its evaluation
      for (int p = 0; p < KING_PAIRS; ++p) {
        report.fit.pairs[size_t(p)].v = est[size_t(p)].v;
        report.fit.pairs[size_t(p)].se = est[size_t(p)].se;
      }
      report.band = eval_band(est, a.band);
      report.band_precise = true;
      for (int p : report.band)
        if (1.959964 * est[size_t(p)].se > a.halfwidth) report.band_precise = false;
    }
    const EvalCalibration& c = report.calibration;
    std::fprintf(stderr,
                 "eval table: %ld evaluations (%s); calibration from %d games: scale %.0f +- %.0f "
                 "cp, bias %+.3f +- %.3f\n",
                 report.evaluations, eval_engine.c_str(), c.games, c.scale, 1.96 * c.scale_se,
                 c.bias, 1.96 * c.bias_se);
    if (report.agreement.pairs > 0)
      std::fprintf(stderr,
                   "eval table: evaluation against games, %d pairs re-measured: mean |difference| "
                   "%.3f [%.3f, %.3f], mean difference %+.3f, games' noise alone %.3f\n",
                   report.agreement.pairs, report.agreement.mean_abs, report.agreement.low,
                   report.agreement.high, report.agreement.mean_signed,
                   report.agreement.noise_floor);
  }
  // (An external engine's own CPU is not this process's: the wall-clock seconds count it.)
  std::fprintf(stderr,
               "eval table: CPU seconds: games %.1f, evaluation %.1f (this process); wall-clock "
               "seconds: games %.1f, evaluation %.1f\n",
               games_cpu, eval_cpu, games_wall, eval_wall);
  write_outputs(out, report, results, a.compare);
  std::printf(
      "eval table: %ld games, %d rounds (uniform allocation to the same band precision: %ld "
      "games); "
      "band %s; table %s, report %s\n",
      report.games, report.rounds, report.uniform_equivalent,
      report.band_precise ? "precise" : "not precise", (out / "table.json").string().c_str(),
      (out / "report.html").string().c_str());
  return 0;
}

int run_merge(const std::string& out_dir, const std::vector<std::string>& shards, int band,
              const std::string& compare) {
  if (!compare.empty()) KingPairTable::load(compare);  // before the shards are read
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
    read_table_journal((fs::path(dir) / "journal.jsonl").string(), schedules, results);
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
    int n = 0;
    try {
      n = parse_slice(shard, "shard").count;
    } catch (const std::runtime_error&) {
      throw std::runtime_error("eval merge: a directory given is not a shard (--shard i/n) run");
    }
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
  const std::string network = settings.count("network") ? settings["network"] : "uniform";
  if (network == "uniform" || fs::exists(network)) {
    report.model = model_name(network);
  } else {
    report.model = "unknown";
    std::fprintf(stderr, "eval merge: the shards' network %s is not here: model \"unknown\"\n",
                 network.c_str());
  }
  write_outputs(out_dir, report, all, compare);
  std::printf("eval merge: %zu shards, %ld games; table %s\n", shards.size(), report.games,
              (fs::path(out_dir) / "table.json").string().c_str());
  return 0;
}

}  // namespace fuseki
