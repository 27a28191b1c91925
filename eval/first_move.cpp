// The first-move experiment: the first player's score from a start position over many engine
// games, with a 95 % interval (the first-move advantage of a variant: Yari Shogi, shogi). Each
// finished game is appended to DIR/games.jsonl at once, so a killed run resumes with the same
// games; DIR also gets settings.json, summary.json and report.html (a convergence chart).
#include "eval/first_move.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "engine/match.h"
#include "eval/chart.h"
#include "eval/stats.h"
#include "io/atomic_file.h"
#include "io/journal.h"
#include "io/progress.h"
#include "io/settings.h"
#include "io/stop.h"
#include "rules/record.h"

namespace fuseki {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Tally {
  int sente = 0, gote = 0, draws = 0, voids = 0;
  long moves = 0;
  std::map<std::string, int> reasons;
  void add(Winner winner, Reason reason, long play_moves) {
    (winner == Winner::Sente  ? sente
     : winner == Winner::Gote ? gote
     : winner == Winner::Draw ? draws
                              : voids)++;
    moves += play_moves;
    ++reasons[reason_name(reason)];
  }
  int scored() const { return sente + gote + draws; }
  double points() const { return sente + 0.5 * draws; }
};

json settings_of(const FirstMoveOptions& a, const std::string& start_sfen) {
  return {{"rules", a.rules},
          {"start", start_sfen},
          {"engine", a.engine},
          {"seed", a.seed},
          {"max_moves", a.max_moves}};
}

}  // namespace

nlohmann::json run_first_move(const FirstMoveOptions& a) {
  auto r = parse_rule_set(a.rules);
  if (!r) throw RulesError("unknown rule set '" + a.rules + "' (known: " + rule_set_names() + ")");
  Position start = a.sfen.empty() ? Position::start(*r) : Position::from_sfen(a.sfen, *r);
  if (start.in_placement())
    throw RulesError("eval first-move: the " + a.rules +
                     " start is a placement position; give an ordinary one (--rules yari or "
                     "shogi, or --sfen)");
  EngineRegistry engines = default_engines();
  try {
    make_player(a.engine, engines, *r)->prepare();
  } catch (const std::exception& e) {
    throw RulesError(e.what());
  }

  // Resume: games already in DIR/games.jsonl are kept, if the settings match.
  Tally tally;
  std::set<int> done_games;
  std::vector<std::pair<int, double>> curve;  // (games, score) as games finished
  std::unique_ptr<LineJournal> journal;
  json settings = settings_of(a, start.sfen());
  if (!a.out.empty()) {
    fs::create_directories(a.out);
    keep_settings((fs::path(a.out) / "settings.json").string(), settings, "use another --out");
    fs::path gp = fs::path(a.out) / "games.jsonl";
    std::vector<std::string> kept;
    for (const std::string& line : LineJournal::read(gp.string(), [](const std::string& l) {
           // games.jsonl stores names: "winner": "sente", "reason": "mate".
           json j = json::parse(l, nullptr, false);
           return !j.is_discarded() && j.contains("game") &&
                  winner_from_name(j.value("winner", "")) &&
                  reason_from_name(j.value("reason", ""));
         })) {
      json j = json::parse(line);
      int i = j["game"].get<int>();
      if (i >= a.games || !done_games.insert(i).second) continue;
      Winner w = *winner_from_name(j["winner"].get<std::string>());
      tally.add(w, *reason_from_name(j["reason"].get<std::string>()), j["moves"].get<long>());
      if (scored(w)) curve.emplace_back(tally.scored(), tally.points() / tally.scored());
      kept.push_back(line);
    }
    journal = std::make_unique<LineJournal>(gp.string(), kept);
    if (!done_games.empty())
      std::cerr << "eval first-move: resuming with " << done_games.size() << " games from "
                << gp.string() << "\n";
  }

  Game initial(start, GameOptions{a.max_moves});
  std::mutex mu;
  std::atomic<int> next{0};
  int played = 0, to_play = a.games - int(done_games.size());
  Progress progress("eval first-move", uint64_t(std::max(to_play, 0)));
  std::vector<std::exception_ptr> errors(size_t(std::max(1, a.threads)));
  auto worker = [&](int t) {
    try {
      auto sente = make_player(a.engine, engines, *r);
      auto gote = make_player(a.engine, engines, *r);
      while (true) {
        int i = next++;
        if (i >= a.games) return;
        if (done_games.count(i)) continue;
        uint64_t seed = Rng::derive(a.seed, 0, uint64_t(i));  // as in `play`
        Game g = play_game(initial, *sente, *gote, seed, a.retries);
        throw_if_stopped();  // an unfinished game is not kept; the next run plays it again
        Winner w = g.winner();
        json line = {{"game", i},
                     {"seed", a.seed},
                     {"game_seed", seed},
                     {"winner", winner_name(w)},
                     {"reason", reason_name(g.reason())},
                     {"moves", g.play_moves()},
                     {"record", g.record()}};
        std::lock_guard<std::mutex> lock(mu);
        if (journal) journal->append(line.dump());
        tally.add(w, g.reason(), g.play_moves());
        if (scored(w)) curve.emplace_back(tally.scored(), tally.points() / tally.scored());
        ++played;
        double low = 0, high = 1;
        wilson_interval(tally.points(), tally.scored(), low, high);
        char extra[96];
        std::snprintf(extra, sizeof(extra), "%d/%d games in all, Sente %.3f [%.3f, %.3f]",
                      int(done_games.size()) + played, a.games,
                      tally.scored() ? tally.points() / tally.scored() : 0.0, low, high);
        progress.report(uint64_t(played), extra, played == to_play);
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
  return summary;
}

}  // namespace fuseki
