// Command flags built from option declarations (io/options.h): one flag per declared option, with
// its default and allowed values in the help, checked as it is parsed. The values are kept as
// "section.key=value" overrides and applied after any config file, so a flag wins over the file.
#pragma once

#include <CLI/CLI.hpp>
#include <list>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "io/options.h"

namespace fuseki::cli {

// Checks of a plain flag's value by the declared options' own (io/options.h), with their
// messages: "'abc' is not an integer", "value 70 out of range [0, 64]" (CLI11's Range calls both
// "not in range").
CLI::Validator integer_in(long lo, long hi);
CLI::Validator number_in(double lo, double hi);
// A seed: an integer in 0 .. 2^63-1, as the declared options' seeds.
CLI::Validator seed_value();

class OptionFlags {
 public:
  // Adds the flags of `sections`, which declare the options of `scratch` (a throwaway copy that
  // checks each value as it is parsed); options named in `skip` get no flag.
  template <class T>
  void add(CLI::App* app, std::shared_ptr<T> scratch, std::vector<OptionSection> sections,
           const std::set<std::string>& skip = {}) {
    keep_.push_back(scratch);
    add_sections(app, std::move(sections), skip);
  }
  // The flags given, as "section.key=value".
  const std::vector<std::string>& overrides() const { return overrides_; }
  // Applies them to the sections of the options a command runs with.
  void apply(std::vector<OptionSection>& sections) const;

 private:
  void add_sections(CLI::App* app, std::vector<OptionSection> sections,
                    const std::set<std::string>& skip);
  std::list<std::shared_ptr<void>> keep_;
  std::list<std::vector<OptionSection>> sections_;  // stable addresses: flags point into them
  std::vector<std::string> overrides_;
};

// An options struct resolved from its declarations: defaults, then the config file (when given),
// then the flags.
template <class T, class Declare>
T resolve_options(Declare declare, const std::string& config, const OptionFlags& flags) {
  T options;
  std::vector<OptionSection> sections = declare(options);
  if (!config.empty()) {
    std::vector<OptionSection*> all;
    for (OptionSection& s : sections) all.push_back(&s);
    read_toml(config, all);
  }
  flags.apply(sections);
  return options;
}

// A command whose flags are the declared options of T (with --config FILE when `config_file`:
// its section of a TOML config): when selected, `run` calls `body(options)`.
template <class T, class Declare, class Body>
void options_command(CLI::App* command, Runner& run, Declare declare, bool config_file, Body body) {
  struct State {
    OptionFlags flags;
    std::string config;
  };
  auto state = std::make_shared<State>();
  auto scratch = std::make_shared<T>();
  state->flags.add(command, scratch, declare(*scratch));
  if (config_file)
    command->add_option("--config", state->config,
                        "TOML config file: its section for this command is read; flags win");
  command->callback([&run, state, declare, body] {
    run = [state, declare, body] {
      return body(resolve_options<T>(declare, state->config, state->flags));
    };
  });
}

}  // namespace fuseki::cli
