// eval first-move: the flags of the first-move experiment (eval/first_move.h), and the eval group
// the other eval subcommands join.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "eval/first_move.h"

namespace fuseki::cli {
CLI::App* eval_command(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == "eval") return sub;
  CLI::App* eval =
      app.add_subcommand("eval", "Measurements: the king-pair table, the first-move advantage");
  eval->require_subcommand(1);
  return eval;
}

void add_first_move_command(CLI::App& app, Runner& run) {
  auto a = std::make_shared<FirstMoveOptions>();
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
  fm->callback([&run, a] {
    run = [a] {
      nlohmann::json s = run_first_move(*a);
      std::printf(
          "eval first-move: %s, %d games (%d Sente, %d Gote, %d draws, %d void): Sente's score "
          "%.3f, 95 %% interval [%.3f, %.3f]\n",
          a->rules.c_str(), s["games"].get<int>(), s["sente_wins"].get<int>(),
          s["gote_wins"].get<int>(), s["draws"].get<int>(), s["void"].get<int>(),
          s["sente_score"].get<double>(), s["ci95"][0].get<double>(), s["ci95"][1].get<double>());
      std::printf("%s\n", s.dump().c_str());
      return 0;
    };
  });
}

}  // namespace fuseki::cli
