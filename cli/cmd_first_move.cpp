// eval first-move: the first player's score from a start position over many engine games, with a
// 95 % interval; the first-move advantage of a variant (Yari Shogi, shogi). Each finished game is
// appended to DIR/games.jsonl at once, so a killed run resumes with the same games.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "cli/commands.h"
#include "engine/match.h"
#include "eval/chart.h"
#include "eval/stats.h"
#include "io/atomic_file.h"
#include "io/stop.h"
#include "rules/record.h"

namespace fuseki::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct FirstMoveArgs {
  std::string rules = "yari";
  std::string sfen;
  std::string engine = "builtin:nodes=1000:noise=40";
  int games = 1000, threads = 2, max_moves = 320, retries = 2;
  uint64_t seed = 1;
  std::string out;
};

struct Tally {
  int sente = 0, gote = 0, draws = 0, voids = 0;
  long moves = 0;
  std::map<std::string, int> reasons;
  void add(const std::string& winner, const std::string& reason, long play_moves) {
    (winner == "sente" ? sente : winner == "gote" ? gote : winner == "draw" ? draws : voids)++;
    moves += play_moves;
    ++reasons[reason];
  }
  int scored() const { return sente + gote + draws; }
  double points() const { return sente + 0.5 * draws; }
};

json settings_of(const FirstMoveArgs& a, const std::string& start_sfen) {
  return {{"rules", a.rules},
          {"start", start_sfen},
          {"engine", a.engine},
          {"seed", a.seed},
          {"max_moves", a.max_moves}};
}

int run_first_move(const FirstMoveArgs& a) {
  auto r = parse_rule_set(a.rules);
  if (!r) throw RulesError("unknown rule set '" + a.rules + "' (known: " + rule_set_names() + ")");
  Position start = a.sfen.empty() ? Position::start(*r) : Position::from_sfen(a.sfen, *r);
  if (start.in_placement())
    throw RulesError("eval first-move: the " + a.rules +
                     " start is a placement position; give an ordinary one (--rules yari or "
                     "shogi, or --sfen)");
  EngineRegistry engines = default_engines();
  try {
    make_player(a.engine, engines)->prepare();
  } catch (const std::exception& e) {
    throw RulesError(e.what());
  }

  // Resume: games already in DIR/games.jsonl are kept, if the settings match.
  Tally tally;
  std::set<int> done_games;
  std::vector<std::pair<int, double>> curve;  // (games, score) as games finished
  std::unique_ptr<std::ofstream> journal;
  json settings = settings_of(a, start.sfen());
  if (!a.out.empty()) {
    fs::create_directories(a.out);
    fs::path sf = fs::path(a.out) / "settings.json";
    if (fs::exists(sf)) {
      std::ifstream in(sf);
      json before = json::parse(in, nullptr, false);
      if (before != settings)
        throw RulesError(sf.string() + ": this directory holds a run with other settings (" +
                         before.dump() + "); use another --out");
    } else {
      write_file_atomically(sf.string(), settings.dump(1) + "\n");
    }
    fs::path gp = fs::path(a.out) / "games.jsonl";
    std::string kept;
    std::ifstream in(gp);
    for (std::string line; std::getline(in, line);) {
      json j = json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.contains("game")) break;  // a torn last line
      int i = j["game"].get<int>();
      if (i >= a.games || !done_games.insert(i).second) continue;
      std::string w = j["winner"].get<std::string>();
      tally.add(w, j["reason"].get<std::string>(), j["moves"].get<long>());
      if (w != "void") curve.emplace_back(tally.scored(), tally.points() / tally.scored());
      kept += line + "\n";
    }
    in.close();
    write_file_atomically(gp.string(), kept);
    journal = std::make_unique<std::ofstream>(gp, std::ios::app);
    if (!done_games.empty())
      std::cerr << "eval first-move: resuming with " << done_games.size() << " games from "
                << gp.string() << "\n";
  }

  Game initial(start, GameOptions{a.max_moves});
  std::mutex mu;
  std::atomic<int> next{0};
  int played = 0, to_play = a.games - int(done_games.size());
  auto t0 = std::chrono::steady_clock::now();
  double last_report = -10;
  std::vector<std::exception_ptr> errors(size_t(std::max(1, a.threads)));
  auto worker = [&](int t) {
    try {
      auto sente = make_player(a.engine, engines);
      auto gote = make_player(a.engine, engines);
      while (true) {
        int i = next++;
        if (i >= a.games) return;
        if (done_games.count(i)) continue;
        uint64_t seed = Rng::derive(a.seed, 0, uint64_t(i));  // as in `play`
        Game g = play_game(initial, *sente, *gote, seed, a.retries);
        throw_if_stopped();  // an unfinished game is not kept; the next run plays it again
        std::string w = winner_name(g.winner());
        json line = {{"game", i},
                     {"seed", a.seed},
                     {"game_seed", seed},
                     {"winner", w},
                     {"reason", reason_name(g.reason())},
                     {"moves", g.play_moves()},
                     {"record", g.record()}};
        std::lock_guard<std::mutex> lock(mu);
        if (journal) *journal << line.dump() << "\n" << std::flush;
        tally.add(w, reason_name(g.reason()), g.play_moves());
        if (w != "void") curve.emplace_back(tally.scored(), tally.points() / tally.scored());
        ++played;
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (secs - last_report >= 2.0 || played == to_play) {
          last_report = secs;
          double low = 0, high = 1, rate = played / std::max(secs, 1e-9);
          wilson_interval(tally.points(), tally.scored(), low, high);
          std::fprintf(stderr,
                       "eval first-move: %d/%d games, %.2f games/s, Sente %.3f [%.3f, %.3f], ETA "
                       "%.0f s\n",
                       int(done_games.size()) + played, a.games, rate,
                       tally.scored() ? tally.points() / tally.scored() : 0.0, low, high,
                       (to_play - played) / std::max(rate, 1e-9));
        }
      }
    } catch (...) {
      errors[size_t(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, a.threads); ++t) pool.emplace_back(worker, t);
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);

  double low = 0, high = 1;
  wilson_interval(tally.points(), tally.scored(), low, high);
  const double score = tally.scored() ? tally.points() / tally.scored() : 0.0;
  json reasons(tally.reasons);
  json summary = {
      {"rules", a.rules},
      {"start", start.sfen()},
      {"engine", a.engine},
      {"seed", a.seed},
      {"games", tally.scored() + tally.voids},
      {"sente_wins", tally.sente},
      {"gote_wins", tally.gote},
      {"draws", tally.draws},
      {"void", tally.voids},
      {"sente_score", score},
      {"ci95", {low, high}},
      {"mean_moves",
       tally.scored() + tally.voids ? double(tally.moves) / (tally.scored() + tally.voids) : 0.0},
      {"reasons", reasons}};
  if (!a.out.empty()) {
    fs::path dir = a.out;
    write_file_atomically((dir / "summary.json").string(), summary.dump(1) + "\n");
    // The score as games came in, with its interval: where it settled, and how fast.
    Series s{"Sente score", {}}, lo{"95 % low", {}}, hi{"95 % high", {}}, even{"even", {}};
    std::sort(curve.begin(), curve.end());
    double pts = 0;
    int n = 0;
    for (auto& [games, sc] : curve) {
      pts = sc * games;
      n = games;
      double l = 0, h = 1;
      wilson_interval(pts, n, l, h);
      s.points.push_back({double(n), sc});
      lo.points.push_back({double(n), l});
      hi.points.push_back({double(n), h});
    }
    if (n > 0) even.points = {{1.0, 0.5}, {double(n), 0.5}};
    char head[512];
    std::snprintf(head, sizeof(head),
                  "<p>%s from <code>%s</code>, %s on both sides, seed %llu: Sente %d, Gote %d, "
                  "draws %d, void %d; <b>Sente's score %.3f, 95 %% interval [%.3f, %.3f]</b>.</p>",
                  a.rules.c_str(), start.sfen().c_str(), a.engine.c_str(),
                  (unsigned long long)a.seed, tally.sente, tally.gote, tally.draws, tally.voids,
                  score, low, high);
    std::string html =
        "<!doctype html><meta charset=\"utf-8\"><title>first-move advantage: " + a.rules +
        "</title>\n<h1>First-move advantage: " + a.rules + "</h1>\n" + head + "\n" +
        line_chart_svg("Sente's score as games finish", "games", {s, lo, hi, even}) +
        "\n<p>Files: summary.json, games.jsonl (every game's record and result), "
        "settings.json.</p>\n";
    write_file_atomically((dir / "report.html").string(), html);
  }
  std::printf(
      "eval first-move: %s, %d games (%d Sente, %d Gote, %d draws, %d void): Sente's score %.3f, "
      "95 %% interval [%.3f, %.3f]\n",
      a.rules.c_str(), tally.scored() + tally.voids, tally.sente, tally.gote, tally.draws,
      tally.voids, score, low, high);
  std::printf("%s\n", summary.dump().c_str());
  return 0;
}

}  // namespace

CLI::App* eval_command(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == "eval") return sub;
  CLI::App* eval =
      app.add_subcommand("eval", "Measurements: the king-pair table, the first-move advantage");
  eval->require_subcommand(1);
  return eval;
}

void add_first_move_command(CLI::App& app, Runner& run) {
  auto a = std::make_shared<FirstMoveArgs>();
  CLI::App* fm = eval_command(app)->add_subcommand(
      "first-move",
      "The first player's score from the start over many engine games (with a "
      "95 % interval): the first-move advantage");
  fm->add_option("--rules", a->rules, "Rule set with an ordinary start (yari, shogi)")
      ->capture_default_str();
  fm->add_option("--sfen", a->sfen, "Start position (SFEN or Fairy-Stockfish FEN)");
  fm->add_option("--engine", a->engine,
                 "Both sides' engine (see play --sente); noise varies the games")
      ->capture_default_str();
  fm->add_option("--games", a->games, "Games")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  fm->add_option("--threads", a->threads, "Games played at once")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  fm->add_option("--seed", a->seed, "Run seed; game i's seed derives from it")
      ->capture_default_str();
  fm->add_option("--max-moves", a->max_moves, "Move cap (a draw)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  fm->add_option("--out", a->out,
                 "Directory for games.jsonl, summary.json and report.html (resumes a run there)");
  fm->callback([&run, a] { run = [a] { return run_first_move(*a); }; });
}

}  // namespace fuseki::cli
