// Play subcommands: play (games to the end between two players) and judge (the state of a
// record under the game-end rules).
#include <atomic>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "cli/json.h"
#include "engine/match.h"
#include "io/stop.h"
#include "rules/movegen.h"
#include "rules/notation.h"
#include "rules/perft.h"
#include "rules/record.h"

namespace fuseki::cli {
namespace {

struct PlayArgs {
  std::string rules = "balance";
  std::string sfen;
  std::string moves;
  std::string sente = "builtin";
  std::string gote = "builtin";
  int games = 1;
  uint64_t seed = 1;
  std::string format = "text";
  int max_moves = 320;
  int threads = 1;
  int retries = 2;
  bool quiet = false;
};

RuleSet rules_or_throw(const std::string& name) {
  auto r = parse_rule_set(name);
  if (!r) throw RulesError("unknown rule set '" + name + "' (known: " + rule_set_names() + ")");
  return *r;
}

// A Game from --sfen/--moves, with choose: tokens and the repetition history applied.
Game game_from_args(RuleSet r, const std::string& sfen, const std::string& moves, int max_moves,
                    std::string* leftover_error) {
  Position start = sfen.empty() ? Position::start(r) : Position::from_sfen(sfen, r);
  Position check = start;
  Record rec = play_record(check, moves);  // validates every token, throws RulesError
  Game game(start, GameOptions{max_moves});
  game.chooser_takes = rec.chooser_takes;
  for (size_t i = 0; i < rec.moves.size(); ++i) {
    if (game.over()) {
      if (leftover_error)
        *leftover_error = "the record goes on after the game ended (" +
                          std::string(winner_name(game.winner())) + ", " +
                          reason_name(game.reason()) + ", after ply " +
                          std::to_string(game.position().ply()) + ")";
      break;
    }
    game.play(rec.moves[i]);
  }
  return game;
}

std::string game_json(const Game& g, uint64_t seed, const PlayArgs& a, int index) {
  std::ostringstream o;
  o << "{\"game\":" << index << ",\"record\":" << json_string(g.record())
    << ",\"winner\":" << json_string(winner_name(g.winner()))
    << ",\"reason\":" << json_string(reason_name(g.reason())) << ",\"moves\":" << g.play_moves()
    << ",\"plies\":" << g.position().ply() << ",\"seed\":" << a.seed << ",\"game_seed\":" << seed
    << ",\"rules\":" << json_string(g.position().info().name)
    << ",\"sente\":" << json_string(a.sente) << ",\"gote\":" << json_string(a.gote)
    << ",\"start\":" << json_string(g.start().sfen())
    << ",\"final\":" << json_string(g.position().sfen());
  if (!g.note().empty()) o << ",\"note\":" << json_string(g.note());
  o << "}";
  return o.str();
}

std::string game_text(const Game& g, uint64_t seed, const PlayArgs& a, int index) {
  std::ostringstream o;
  o << g.record() << " # winner=" << winner_name(g.winner())
    << " reason=" << reason_name(g.reason()) << " moves=" << g.play_moves() << " seed=" << a.seed
    << " game=" << index << " game_seed=" << seed << " rules=" << g.position().info().name
    << " sente=" << a.sente << " gote=" << a.gote;
  if (!g.note().empty()) o << " note=\"" << g.note() << "\"";
  return o.str();
}

int run_play(const PlayArgs& a) {
  RuleSet r = rules_or_throw(a.rules);
  EngineRegistry engines = default_engines();
  // Fail on a bad spec before any game starts.
  try {
    make_player(a.sente, engines, r)->prepare();
    make_player(a.gote, engines, r)->prepare();
  } catch (const std::exception& e) {
    throw RulesError(e.what());
  }
  Game initial = game_from_args(r, a.sfen, a.moves, a.max_moves, nullptr);

  std::mutex mu;
  std::map<int, std::string> finished;
  int next_to_print = 0, done = 0;
  std::map<std::string, int> tally;
  std::atomic<int> next_game{0};
  auto t0 = std::chrono::steady_clock::now();
  double last_report = 0;

  auto worker = [&](int worker_id) {
    auto sente = make_player(a.sente, engines, r);
    auto gote = make_player(a.gote, engines, r);
    (void)worker_id;
    while (true) {
      int i = next_game++;
      if (i >= a.games) return;
      uint64_t seed = Rng::derive(a.seed, 0, uint64_t(i));  // the game's seed: run seed + index
      Game start = initial;
      random_placement(start, seed);
      Game g = start.over() ? start : play_game(start, *sente, *gote, seed, a.retries);
      if (stop_requested()) return;  // stopped: an unfinished game is not printed
      std::string line = a.format == "jsonl" ? game_json(g, seed, a, i) : game_text(g, seed, a, i);
      std::lock_guard<std::mutex> lock(mu);
      finished[i] = line;
      ++done;
      ++tally[winner_name(g.winner())];
      while (finished.count(next_to_print)) {
        std::cout << finished[next_to_print] << "\n" << std::flush;
        finished.erase(next_to_print++);
      }
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!a.quiet && a.games > 1 && (secs - last_report >= 2.0 || done == a.games)) {
        last_report = secs;
        double rate = done / secs;
        std::cerr << "play: " << done << "/" << a.games << " games, " << rate << " games/s, ETA "
                  << int((a.games - done) / std::max(rate, 1e-9)) << " s\n";
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, a.threads); ++t) pool.emplace_back(worker, t);
  for (auto& t : pool) t.join();
  throw_if_stopped();
  if (!a.quiet && a.games > 1) {
    std::cerr << "play: sente " << tally["sente"] << ", gote " << tally["gote"] << ", draw "
              << tally["draw"] << ", void " << tally["void"] << "\n";
  }
  return 0;
}

int run_judge(RuleSet r, const std::string& sfen, const std::string& moves, int max_moves,
              bool declare, const std::string& format) {
  std::string leftover;
  Game g = game_from_args(r, sfen, moves, max_moves, &leftover);
  if (!leftover.empty()) throw RulesError(leftover);
  bool json = format == "jsonl";
  std::ostringstream o;
  if (json) {
    o << "{\"state\":" << json_string(g.over() ? "over" : "ongoing");
    if (g.over())
      o << ",\"winner\":" << json_string(winner_name(g.winner()))
        << ",\"reason\":" << json_string(reason_name(g.reason()))
        << ",\"ply\":" << g.position().ply();
    o << ",\"sfen\":" << json_string(g.position().sfen());
  } else if (g.over()) {
    o << winner_name(g.winner()) << " " << reason_name(g.reason()) << " after ply "
      << g.position().ply();
  } else {
    o << "ongoing, " << (g.position().side_to_move() == BLACK ? "sente" : "gote")
      << " to play move " << g.position().ply() + 1;
  }
  if (declare) {
    DeclarationCheck d = check_declaration(g.position());
    if (json)
      o << ",\"declaration\":{\"valid\":" << (d.valid ? "true" : "false")
        << ",\"king_in_zone\":" << (d.king_in_zone ? "true" : "false")
        << ",\"in_check\":" << (d.in_check ? "true" : "false")
        << ",\"pieces_in_zone\":" << d.pieces_in_zone << ",\"points\":" << d.points
        << ",\"points_needed\":" << d.points_needed << "}";
    else
      o << "\ndeclaration: " << (d.valid ? "valid" : "invalid")
        << " (king in zone: " << (d.king_in_zone ? "yes" : "no")
        << ", in check: " << (d.in_check ? "yes" : "no") << ", pieces in zone: " << d.pieces_in_zone
        << "/10, points: " << d.points << "/" << d.points_needed << ")";
  }
  if (json) o << "}";
  std::cout << o.str() << "\n";
  return 0;
}

int run_demo(RuleSet r, uint64_t seed, const std::string& engine) {
  Position start = Position::start(r);
  for (int d = 1; d <= 3; ++d) {
    Position copy = start;
    std::cout << "perft " << d << ": " << perft(copy, d) << "\n";
  }
  EngineRegistry engines = default_engines();
  std::unique_ptr<Player> sente, gote;
  try {
    sente = make_player(engine, engines, r);
    gote = make_player(engine, engines, r);
    sente->prepare();
    gote->prepare();
  } catch (const std::exception& e) {
    throw RulesError(e.what());
  }
  Game game(start);
  random_placement(game, seed);
  std::cout << "placement (random, seed " << seed << "): " << game.record() << "\n";
  std::cout << "position after ply 40: " << game.position().sfen() << "\n";
  Game done = game.over() ? game : play_game(game, *sente, *gote, seed);
  throw_if_stopped();
  std::cout << "game: " << done.record() << "\n";
  std::cout << "result: " << winner_name(done.winner()) << " by " << reason_name(done.reason())
            << " after " << done.play_moves() << " moves of play (" << engine
            << " for both sides)\n";
  return 0;
}

}  // namespace

void add_play_commands(CLI::App& app, Runner& run) {
  struct DemoArgs {
    std::string rules = "balance", engine = "builtin";
    uint64_t seed = 1;
  };
  auto d = std::make_shared<DemoArgs>();
  CLI::App* demo = app.add_subcommand(
      "demo", "Perft of the start position, then one random legal placement played out to its end");
  demo->add_option("--rules", d->rules, "Rule set: " + rule_set_names())->capture_default_str();
  demo->add_option("--seed", d->seed, "Seed of the game")->capture_default_str();
  demo->add_option("--engine", d->engine, "Engine for both sides (see play --sente)")
      ->capture_default_str();
  demo->callback(
      [&run, d] { run = [d] { return run_demo(rules_or_throw(d->rules), d->seed, d->engine); }; });

  auto a = std::make_shared<PlayArgs>();
  CLI::App* play = app.add_subcommand("play", "Play games to the end between two players");
  play->add_option("--rules", a->rules, "Rule set: " + rule_set_names())->capture_default_str();
  play->add_option("--sfen", a->sfen, "Start position (default: the rule set's start)");
  play->add_option("--moves", a->moves,
                   "Record to play first; a random legal placement completes it");
  play->add_option("--sente", a->sente,
                   "builtin[:nodes=N|depth=D|movetime=MS|noise=CP], random, usi:PATH, or a named "
                   "USI engine (fairy-stockfish, gpsusi)")
      ->capture_default_str();
  play->add_option("--gote", a->gote, "As --sente")->capture_default_str();
  play->add_option("--games", a->games, "Number of games")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  play->add_option("--seed", a->seed, "Run seed; game i uses a seed derived from it and i")
      ->capture_default_str();
  play->add_option("--format", a->format, "text or jsonl")
      ->check(CLI::IsMember({"text", "jsonl"}))
      ->capture_default_str();
  play->add_option("--max-moves", a->max_moves, "Moves of ordinary play before a draw")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  play->add_option("--threads", a->threads, "Games played at once")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  play->add_option("--retries", a->retries,
                   "Replays of a game whose engine failed, before it is void")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  play->add_flag("--quiet", a->quiet, "No progress on stderr");
  play->callback([&run, a] { run = [a] { return run_play(*a); }; });

  struct JudgeArgs {
    std::string rules = "balance", sfen, moves, format = "text";
    int max_moves = 320;
    bool declare = false;
  };
  auto j = std::make_shared<JudgeArgs>();
  CLI::App* judge = app.add_subcommand(
      "judge", "Apply a record and print the game state: ongoing, or winner and reason");
  judge->add_option("--rules", j->rules, "Rule set: " + rule_set_names())->capture_default_str();
  judge->add_option("--sfen", j->sfen, "Start position (default: the rule set's start)");
  judge->add_option("--moves", j->moves, "The record to apply");
  judge->add_option("--max-moves", j->max_moves, "Moves of ordinary play before a draw")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  judge->add_flag("--declare", j->declare,
                  "Say whether the side to move may declare an entering-king win");
  judge->add_option("--format", j->format, "text or jsonl")
      ->check(CLI::IsMember({"text", "jsonl"}))
      ->capture_default_str();
  judge->callback([&run, j] {
    run = [j] {
      return run_judge(rules_or_throw(j->rules), j->sfen, j->moves, j->max_moves, j->declare,
                       j->format);
    };
  });
}

}  // namespace fuseki::cli
