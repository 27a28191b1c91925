// eval first-move: the flags of the first-move experiment (declared in eval/first_move.h), and
// the eval group the other eval subcommands join.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "eval/first_move.h"
#include "rules/ruleset.h"

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
  CLI::App* fm = eval_command(app)->add_subcommand(
      "first-move",
      "The first player's score from the start over many engine games (with a "
      "95 % interval): the first-move advantage");
  options_command<FirstMoveOptions>(
      fm, run, first_move_sections, true, [](const FirstMoveOptions& a) {
        nlohmann::json s = run_first_move(a);
        std::printf(
            "eval first-move: %s, %d games (%d Sente, %d Gote, %d "
            "draws, %d void): Sente's score %.3f, 95 %% interval "
            "[%.3f, %.3f]\n",
            rule_info(a.rules).name, s["games"].get<int>(), s["sente_wins"].get<int>(),
            s["gote_wins"].get<int>(), s["draws"].get<int>(), s["void"].get<int>(),
            s["sente_score"].get<double>(), s["ci95"][0].get<double>(), s["ci95"][1].get<double>());
        std::printf("%s\n", s.dump().c_str());
        return 0;
      });
}

}  // namespace fuseki::cli
