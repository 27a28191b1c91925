#include "engine/play_run.h"

#include <algorithm>
#include <atomic>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "engine/match.h"
#include "io/progress.h"
#include "io/stop.h"
#include "rules/movegen.h"
#include "rules/perft.h"
#include "rules/record.h"

namespace fuseki {

void declare_rules(OptionSection& section, RuleSet& field, const std::string& help) {
  section.custom(
      "rules", help, rule_set_names(),
      [&field](const std::string& v) { field = rule_set_or_throw(v); },
      [&field] { return std::string(rule_info(field).name); });
}

void check_player_spec(const std::string& spec, RuleSet rules) {
  EngineRegistry engines = default_engines();
  try {
    make_player(spec, engines, rules)->prepare();
  } catch (const std::exception& e) {
    throw RulesError(e.what());
  }
}

void play_numbered_games(const NumberedGames& spec) {
  EngineRegistry engines = default_engines();
  std::mutex mu;
  std::atomic<int> next{0};
  int threads = std::max(1, spec.threads);
  std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
  auto worker = [&](int t) {
    try {
      auto sente = make_player(spec.sente_spec, engines, spec.rules);
      auto gote = make_player(spec.gote_spec, engines, spec.rules);
      sente->prepare();
      gote->prepare();
      while (!stop_requested()) {
        int i = next++;
        if (i >= spec.games) return;
        if (spec.skip && spec.skip(i)) continue;
        uint64_t seed = Rng::derive(spec.seed, 0, uint64_t(i));  // the game's seed: run seed + i
        Game start = spec.start(i, seed);
        Game g = start.over() ? start : play_game(start, *sente, *gote, seed, spec.retries);
        if (stop_requested()) return;  // an unfinished game is not given out
        std::lock_guard<std::mutex> lock(mu);
        spec.done(i, seed, g);
      }
    } catch (...) {
      errors[size_t(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker, t);
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  throw_if_stopped();
}

Game game_from_record(RuleSet rules, const std::string& sfen, const std::string& moves,
                      int max_moves, bool leftover_is_error) {
  Position start = sfen.empty() ? Position::start(rules) : Position::from_sfen(sfen, rules);
  Position check = start;
  Record rec = play_record(check, moves);  // validates every token, throws RulesError
  Game game(start, GameOptions{max_moves});
  game.chooser_takes = rec.chooser_takes;
  for (size_t i = 0; i < rec.moves.size(); ++i) {
    if (game.over()) {
      if (leftover_is_error)
        throw RulesError("the record goes on after the game ended (" +
                         std::string(winner_name(game.winner())) + ", " +
                         reason_name(game.reason()) + ", after ply " +
                         std::to_string(game.position().ply()) + ")");
      break;
    }
    game.play(rec.moves[i]);
  }
  return game;
}

namespace {

std::string game_json(const Game& g, uint64_t seed, const PlayOptions& a, int index) {
  nlohmann::ordered_json j = {{"game", index},
                              {"record", g.record()},
                              {"winner", winner_name(g.winner())},
                              {"reason", reason_name(g.reason())},
                              {"moves", g.play_moves()},
                              {"plies", g.position().ply()},
                              {"seed", a.seed},
                              {"game_seed", seed},
                              {"rules", g.position().info().name},
                              {"sente", a.sente},
                              {"gote", a.gote},
                              {"start", g.start().sfen()},
                              {"final", g.position().sfen()}};
  if (!g.note().empty()) j["note"] = g.note();
  return j.dump();
}

std::string game_text(const Game& g, uint64_t seed, const PlayOptions& a, int index) {
  std::ostringstream o;
  o << g.record() << " # winner=" << winner_name(g.winner())
    << " reason=" << reason_name(g.reason()) << " moves=" << g.play_moves() << " seed=" << a.seed
    << " game=" << index << " game_seed=" << seed << " rules=" << g.position().info().name
    << " sente=" << a.sente << " gote=" << a.gote;
  if (!g.note().empty()) o << " note=\"" << g.note() << "\"";
  return o.str();
}

OptionSection& record_options(OptionSection& s, std::string& sfen, std::string& moves,
                              const std::string& moves_help) {
  return s.text("sfen", sfen, "Start position (default: the rule set's start)")
      .text("moves", moves, moves_help);
}

}  // namespace

std::vector<OptionSection> play_sections(PlayOptions& o) {
  std::vector<OptionSection> s;
  s.emplace_back("play", "Games to the end between two players (play).");
  declare_rules(s.back(), o.rules, "Rule set");
  record_options(s.back(), o.sfen, o.moves,
                 "Record to play first; a random legal placement completes it")
      .text("sente", o.sente,
            "builtin[:nodes=N|depth=D|movetime=MS|noise=CP], random, usi:PATH[:OPTION=VALUE...], "
            "or a named USI engine (fairy-stockfish, gpsusi)")
      .text("gote", o.gote, "As sente")
      .integer("games", o.games, 1, 100000000, "Number of games")
      .seed("seed", o.seed, "Run seed; game i uses a seed derived from it and i")
      .choice("format", o.format, {"text", "jsonl"}, "Output: a line per game")
      .integer("max_moves", o.max_moves, 1, 100000, "Moves of ordinary play before a draw")
      .integer("threads", o.threads, 1, 1024, "Games played at once")
      .integer("retries", o.retries, 0, 100,
               "Replays of a game whose engine failed, before it is void");
  return s;
}

void run_play(const PlayOptions& a, std::ostream& out, bool quiet) {
  check_player_spec(a.sente, a.rules);  // a bad spec fails before any game starts
  check_player_spec(a.gote, a.rules);
  Game initial = game_from_record(a.rules, a.sfen, a.moves, a.max_moves, false);
  std::map<int, std::string> finished;
  int next_to_print = 0, played = 0;
  std::map<std::string, int> tally;
  Progress progress("play", uint64_t(a.games));
  NumberedGames spec;
  spec.rules = a.rules;
  spec.sente_spec = a.sente;
  spec.gote_spec = a.gote;
  spec.games = a.games;
  spec.threads = a.threads;
  spec.retries = a.retries;
  spec.seed = a.seed;
  spec.start = [&](int, uint64_t seed) {
    Game start = initial;
    random_placement(start, seed);
    return start;
  };
  spec.done = [&](int i, uint64_t seed, const Game& g) {
    finished[i] = a.format == "jsonl" ? game_json(g, seed, a, i) : game_text(g, seed, a, i);
    ++tally[winner_name(g.winner())];
    while (finished.count(next_to_print)) {  // printed in game order
      out << finished[next_to_print] << "\n" << std::flush;
      finished.erase(next_to_print++);
    }
    ++played;
    if (!quiet && a.games > 1) progress.report(uint64_t(played), "", played == a.games);
  };
  try {
    play_numbered_games(spec);
  } catch (const Interrupted&) {
    // No finished game is lost to a stop: those after a game still in play are printed too,
    // out of order (each line names its game).
    for (const auto& [index, text] : finished) out << text << "\n";
    out << std::flush;
    throw;
  }
  if (!quiet && a.games > 1)
    std::cerr << "play: sente " << tally["sente"] << ", gote " << tally["gote"] << ", draw "
              << tally["draw"] << ", void " << tally["void"] << "\n";
}

std::vector<OptionSection> judge_sections(JudgeOptions& o) {
  std::vector<OptionSection> s;
  s.emplace_back("judge", "The state of a record under the game-end rules (judge).");
  declare_rules(s.back(), o.rules, "Rule set");
  record_options(s.back(), o.sfen, o.moves, "The record to apply")
      .integer("max_moves", o.max_moves, 1, 100000, "Moves of ordinary play before a draw")
      .choice("format", o.format, {"text", "jsonl"}, "Output");
  return s;
}

void run_judge(const JudgeOptions& a, std::ostream& out) {
  Game g = game_from_record(a.rules, a.sfen, a.moves, a.max_moves, true);
  bool json = a.format == "jsonl";
  nlohmann::ordered_json j;
  std::ostringstream o;
  if (json) {
    j["state"] = g.over() ? "over" : "ongoing";
    if (g.over()) {
      j["winner"] = winner_name(g.winner());
      j["reason"] = reason_name(g.reason());
      j["ply"] = g.position().ply();
    }
    j["sfen"] = g.position().sfen();
  } else if (g.over()) {
    o << winner_name(g.winner()) << " " << reason_name(g.reason()) << " after ply "
      << g.position().ply();
  } else {
    o << "ongoing, " << (g.position().side_to_move() == BLACK ? "sente" : "gote")
      << " to play move " << g.position().ply() + 1;
  }
  if (a.declare) {
    DeclarationCheck d = check_declaration(g.position());
    if (json)
      j["declaration"] = {{"valid", d.valid},       {"king_in_zone", d.king_in_zone},
                          {"in_check", d.in_check}, {"pieces_in_zone", d.pieces_in_zone},
                          {"points", d.points},     {"points_needed", d.points_needed}};
    else
      o << "\ndeclaration: " << (d.valid ? "valid" : "invalid")
        << " (king in zone: " << (d.king_in_zone ? "yes" : "no")
        << ", in check: " << (d.in_check ? "yes" : "no") << ", pieces in zone: " << d.pieces_in_zone
        << "/10, points: " << d.points << "/" << d.points_needed << ")";
  }
  out << (json ? j.dump() : o.str()) << "\n";
}

std::vector<OptionSection> demo_sections(DemoOptions& o) {
  std::vector<OptionSection> s;
  s.emplace_back("demo", "Perft, then one random legal placement played out (demo).");
  declare_rules(s.back(), o.rules, "Rule set");
  s.back()
      .seed("seed", o.seed, "Seed of the game")
      .text("engine", o.engine, "Engine for both sides (see play --sente)");
  return s;
}

void run_demo(const DemoOptions& a, std::ostream& out) {
  check_player_spec(a.engine, a.rules);  // a bad spec fails before anything is printed
  Position start = Position::start(a.rules);
  for (int d = 1; d <= 3; ++d) {
    Position copy = start;
    out << "perft " << d << ": " << perft(copy, d) << "\n";
  }
  EngineRegistry engines = default_engines();
  auto sente = make_player(a.engine, engines, a.rules);
  auto gote = make_player(a.engine, engines, a.rules);
  sente->prepare();
  gote->prepare();
  Game game(start);
  random_placement(game, a.seed);
  out << "placement (random, seed " << a.seed << "): " << game.record() << "\n";
  out << "position after ply 40: " << game.position().sfen() << "\n";
  Game done = game.over() ? game : play_game(game, *sente, *gote, a.seed);
  throw_if_stopped();
  out << "game: " << done.record() << "\n";
  out << "result: " << winner_name(done.winner()) << " by " << reason_name(done.reason())
      << " after " << done.play_moves() << " moves of play (" << a.engine << " for both sides)\n";
}

}  // namespace fuseki
