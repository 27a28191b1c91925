// Subcommands of the fusekilab program; each file registers its own with CLI11.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <vector>

#include "io/options.h"

namespace fuseki::cli {

// A registered subcommand runs through this when selected; it returns the exit code.
using Runner = std::function<int()>;

void add_rules_commands(CLI::App& app, Runner& run);
void add_play_commands(CLI::App& app, Runner& run);
void add_pipeline_commands(CLI::App& app, Runner& run);   // with LibTorch only
void add_eval_commands(CLI::App& app, Runner& run);       // with LibTorch only
void add_export_command(CLI::App& app, Runner& run);      // with LibTorch only
void add_config_command(CLI::App& app, Runner& run);      // with LibTorch only
void add_first_move_command(CLI::App& app, Runner& run);  // eval first-move
// Every config section of the program (io/options.h: set_every_config_section); with LibTorch
// only (a run's sections).
void every_config_section(const std::function<void(const std::vector<OptionSection*>&)>& use);
// The "eval" subcommand, made on first use (its subcommands come from several files).
CLI::App* eval_command(CLI::App& app);

}  // namespace fuseki::cli
