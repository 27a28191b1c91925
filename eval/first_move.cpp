// The first-move experiment: the first player's score from a start position over many engine
// games, with a 95 % interval (the first-move advantage of a variant: Yari Shogi, shogi). Each
// finished game is appended to DIR/games.jsonl at once, so a killed run resumes with the same
// games; DIR also gets settings.json, summary.json and report.html (a convergence chart).
#include "eval/first_move.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "engine/match.h"
#include "engine/play_run.h"
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
  return {{"rules", rule_info(a.rules).name},
          {"start", start_sfen},
          {"engine", a.engine},
          {"seed", a.seed},
          {"max_moves", a.max_moves}};
}

}  // namespace

std::vector<OptionSection> first_move_sections(FirstMoveOptions& o) {
  std::vector<OptionSection> s;
  s.emplace_back("first_move",
                 "The first-move experiment (eval first-move): the first player's score from a "
                 "start over many engine games.");
  declare_rules(s.back(), o.rules, "Rule set with an ordinary start (yari, shogi)");
  s.back()
      .text("sfen", o.sfen, "Start position (SFEN or Fairy-Stockfish FEN; default: the rules')")
      .text("engine", o.engine, "Both sides' engine (see play --sente); noise varies the games")
      .integer("games", o.games, 1, 100000000, "Games")
      .integer("threads", o.threads, 1, 1024, "Games played at once")
      .seed("seed", o.seed, "Run seed; game i's seed derives from it")
      .integer("max_moves", o.max_moves, 1, 100000, "Move cap (a draw)")
      .integer("retries", o.retries, 0, 100,
               "Replays of a game whose engine failed, before it is void")
      .text("out", o.out,
            "Directory for games.jsonl, summary.json and report.html (resumes a run there)");
  return s;
}

nlohmann::json run_first_move(const FirstMoveOptions& a) {
  const std::string rules_name = rule_info(a.rules).name;
  Position start = a.sfen.empty() ? Position::start(a.rules) : Position::from_sfen(a.sfen, a.rules);
  if (start.in_placement())
    throw RulesError("eval first-move: the " + rules_name +
                     " start is a placement position; give an ordinary one (--rules yari or "
                     "shogi, or --sfen)");
  check_player_spec(a.engine, a.rules);

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
  int played = 0, to_play = a.games - int(done_games.size());
  Progress progress("eval first-move", uint64_t(std::max(to_play, 0)));
  NumberedGames games;
  games.rules = a.rules;
  games.sente_spec = games.gote_spec = a.engine;
  games.games = a.games;
  games.threads = a.threads;
  games.retries = a.retries;
  games.seed = a.seed;  // game i's seed as in `play`
  games.start = [&](int, uint64_t) { return initial; };
  games.skip = [&](int i) { return done_games.count(i) > 0; };
  games.done = [&](int i, uint64_t seed, const Game& g) {
    Winner w = g.winner();
    json line = {{"game", i},
                 {"seed", a.seed},
                 {"game_seed", seed},
                 {"winner", winner_name(w)},
                 {"reason", reason_name(g.reason())},
                 {"moves", g.play_moves()},
                 {"record", g.record()}};
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
  };
  play_numbered_games(games);

  double low = 0, high = 1;
  wilson_interval(tally.points(), tally.scored(), low, high);
  const double score = tally.scored() ? tally.points() / tally.scored() : 0.0;
  json reasons(tally.reasons);
  json summary = {
      {"rules", rules_name},
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
    Series s{"Sente score", {}, {}}, lo{"95 % low", {}, {}}, hi{"95 % high", {}, {}},
        even{"even", {}, {}};
    std::sort(curve.begin(), curve.end());
    double pts = 0;
    int n = 0;
    for (auto& [count, sc] : curve) {
      pts = sc * count;
      n = count;
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
                  rules_name.c_str(), start.sfen().c_str(), a.engine.c_str(),
                  (unsigned long long)a.seed, tally.sente, tally.gote, tally.draws, tally.voids,
                  score, low, high);
    std::string html =
        "<!doctype html><meta charset=\"utf-8\"><title>first-move advantage: " + rules_name +
        "</title>\n<h1>First-move advantage: " + rules_name + "</h1>\n" + head + "\n" +
        line_chart_svg("Sente's score as games finish", "games", {s, lo, hi, even}) +
        "\n<p>Files: summary.json, games.jsonl (every game's record and result), "
        "settings.json.</p>\n";
    write_file_atomically((dir / "report.html").string(), html);
  }
  return summary;
}

}  // namespace fuseki
