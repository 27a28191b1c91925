// fusekilab: one program, one subcommand per job.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "io/stop.h"
#include "rules/position.h"

int main(int argc, char** argv) {
  CLI::App app{"fusekilab: self-play training and evaluation for Fuseki and Balance Shogi"};
  app.require_subcommand(1);
  fuseki::cli::Runner run;
  fuseki::cli::add_rules_commands(app, run);
  fuseki::cli::add_play_commands(app, run);
#ifdef FUSEKILAB_WITH_TORCH
  fuseki::cli::add_pipeline_commands(app, run);
  fuseki::cli::add_eval_commands(app, run);
  fuseki::cli::add_export_command(app, run);
  fuseki::cli::add_config_command(app, run);
  // A config file's sections of other commands are checked, not only skipped.
  fuseki::set_every_config_section(fuseki::cli::every_config_section);
#endif
  fuseki::cli::add_first_move_command(app, run);
  // "--name=" is "--name ''", an empty value (CLI11 would take the next argument as the value).
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    const bool empty_value =
        i > 0 && a.size() > 3 && a.rfind("--", 0) == 0 && a.find('=') == a.size() - 1;
    if (empty_value) a.pop_back();
    args.push_back(a);
    if (empty_value) args.emplace_back();
  }
  std::vector<char*> arg_ptrs;
  for (std::string& a : args) arg_ptrs.push_back(a.data());
  try {
    app.parse(int(arg_ptrs.size()), arg_ptrs.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "fusekilab: " << e.what() << "\n";
    return 2;
  }
  fuseki::install_stop_handlers();
  try {
    int rc = run();
    // What a command printed must have reached its destination (a full disk, a closed pipe):
    // `fusekilab config > my.toml` may not report success with a truncated file.
    std::cout.flush();
    errno = 0;
    if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout) {
      std::cerr << "fusekilab: cannot write standard output"
                << (errno ? std::string(": ") + std::strerror(errno) : std::string()) << "\n";
      return rc == 0 ? 1 : rc;
    }
    return rc;
  } catch (const fuseki::Interrupted& e) {
    // Everything finished is saved (journals, shards, checkpoints); the same command resumes.
    std::cerr << "fusekilab: " << e.what() << "; what was finished is saved, the same command "
              << "resumes\n";
    return 128 + e.signal();
  } catch (const std::runtime_error& e) {
    // Bad input of any command (rules, settings, files, another run's directory, an engine that
    // cannot play): one line naming it, exit 2.
    std::cerr << "fusekilab: " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    // A value that does not parse, found late (an engine spec inside a setting): bad input too.
    std::cerr << "fusekilab: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "fusekilab: error: " << e.what() << "\n";
    return 1;
  }
}
