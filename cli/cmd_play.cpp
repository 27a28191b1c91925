// demo, play and judge: flags from the declarations in engine/play_run.h.
#include <iostream>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "engine/play_run.h"

namespace fuseki::cli {

void add_play_commands(CLI::App& app, Runner& run) {
  options_command<DemoOptions>(
      app.add_subcommand("demo",
                         "Perft of the start position, then one random legal placement played out"),
      run, demo_sections, false, [](const DemoOptions& o) {
        run_demo(o, std::cout);
        return 0;
      });

  CLI::App* play = app.add_subcommand("play", "Play games to the end between two players");
  auto quiet = std::make_shared<bool>(false);
  play->add_flag("--quiet", *quiet, "No progress on stderr");
  options_command<PlayOptions>(play, run, play_sections, true, [quiet](const PlayOptions& o) {
    run_play(o, std::cout, *quiet);
    return 0;
  });

  CLI::App* judge = app.add_subcommand(
      "judge", "Apply a record and print the game state: ongoing, or winner and reason");
  auto declare = std::make_shared<bool>(false);
  judge->add_flag("--declare", *declare,
                  "Say whether the side to move may declare an entering-king win");
  options_command<JudgeOptions>(judge, run, judge_sections, false, [declare](JudgeOptions o) {
    o.declare = *declare;
    run_judge(o, std::cout);
    return 0;
  });
}

}  // namespace fuseki::cli
