// Settings declared once. Each layer's options struct declares its keys in an OptionSection —
// key, default (the struct's initial value), range or choices, help line — and everything else is
// built from that declaration: the TOML sections of a config file (unknown keys and bad values are
// errors naming them), the flags of each command (cli/option_flags.h), "section.key=value"
// overrides, the resolved config written beside a run, and docs/config.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fuseki {

struct Option {
  enum class Type { Integer, Number, Boolean, String, Path };
  std::string key;  // TOML key; its flag is --key with '_' as '-'
  std::string help;
  Type type = Type::String;
  std::string allowed;        // for the docs: "1 .. 1024", "fp32, bf16", ""
  std::string default_value;  // as TOML, taken when declared
  // Parses, checks and stores a value given as text (a flag, an override, a TOML value); throws
  // std::runtime_error "<where>: <problem>".
  std::function<void(const std::string& text, const std::string& where)> set;
  // The current value as TOML.
  std::function<std::string()> get;
};

class OptionSection {
 public:
  OptionSection(std::string name, std::string help)
      : name_(std::move(name)), help_(std::move(help)) {}

  OptionSection& integer(const std::string& key, int& field, int lo, int hi, std::string help);
  OptionSection& integer(const std::string& key, long& field, long lo, long hi, std::string help);
  OptionSection& seed(const std::string& key, uint64_t& field, std::string help);
  OptionSection& number(const std::string& key, double& field, double lo, double hi,
                        std::string help);
  OptionSection& boolean(const std::string& key, bool& field, std::string help);
  // Any text; `check` (optional) throws std::runtime_error for a bad one.
  OptionSection& text(const std::string& key, std::string& field, std::string help,
                      std::function<void(const std::string&)> check = nullptr);
  OptionSection& choice(const std::string& key, std::string& field,
                        std::vector<std::string> choices, std::string help);
  // An input file: in a config file, relative to that file.
  OptionSection& path(const std::string& key, std::string& field, std::string help);
  // A typed value with its own parser and printer (an enum, a rule set).
  OptionSection& custom(const std::string& key, std::string help, std::string allowed,
                        std::function<void(const std::string&)> parse,
                        std::function<std::string()> print);

  // Flags named --section.key (commands that read several sections, like a run's) instead of
  // --key.
  OptionSection& qualified_flags() {
    qualified_ = true;
    return *this;
  }
  // The flag of an option: --key or --section.key, '_' written '-'.
  std::string flag(const Option& o) const;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<Option>& options() const { return options_; }
  const Option* find(const std::string& key) const;

 private:
  std::string name_, help_;
  std::vector<Option> options_;
  bool qualified_ = false;
};

// Every section name of the program's config files: a file may hold sections of several
// commands, and each command checks the sections of the others (tests/option_docs checks this list
// against the declarations).
const std::vector<std::string>& config_section_names();

// Every section of the program's config files, declared over scratch values: calls `use` with
// them (alive for the call). What the sections a command does not read are checked against.
using EveryConfigSection =
    std::function<void(const std::function<void(const std::vector<OptionSection*>&)>& use)>;
// Set once by the program (cli/main.cpp); until then other commands' sections go unchecked.
void set_every_config_section(EveryConfigSection every);

// Reads a TOML file into the sections: every key must be declared; a section not among them is
// another command's when config_section_names() has it, an error otherwise. Another command's
// section is checked key by key as that command would read it (unknown keys, types, ranges),
// then skipped; checks between settings (strength.games even, a king table for kings = "table")
// are the reading command's alone. Path options are made absolute relative to the file.
void read_toml(const std::string& file, const std::vector<OptionSection*>& sections);
// "section.key=value" onto the sections; throws naming the override.
void apply_override(const std::string& text, const std::vector<OptionSection*>& sections);
// The sections' current values as TOML (one [section] each).
std::string to_toml(const std::vector<const OptionSection*>& sections);
// The sections as Markdown: a table per section (key, type, default, allowed, meaning).
std::string to_markdown(const std::vector<const OptionSection*>& sections);

}  // namespace fuseki
