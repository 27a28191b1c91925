#include "cli/option_flags.h"

namespace fuseki::cli {

void OptionFlags::add_sections(CLI::App* app, std::vector<OptionSection> sections,
                               const std::set<std::string>& skip) {
  sections_.push_back(std::move(sections));
  for (const OptionSection& section : sections_.back()) {
    for (const Option& option : section.options()) {
      if (skip.count(option.key)) continue;
      std::string flag = section.flag(option);
      std::string override_prefix = section.name() + "." + option.key + "=";
      const Option* o = &option;
      CLI::Option* added = app->add_option_function<std::string>(
          flag,
          [this, o, flag, override_prefix](const std::string& value) {
            try {
              o->set(value, flag);
            } catch (const std::runtime_error& e) {
              throw CLI::ValidationError(e.what());
            }
            overrides_.push_back(override_prefix + value);
          },
          option.help + (option.allowed.empty() ? "" : " [" + option.allowed + "]"));
      // Text shown as it is typed on a command line, not as TOML.
      const std::string& d = option.default_value;
      bool quoted = d.size() >= 2 && d.front() == '"';
      added->default_str(quoted ? d.substr(1, d.size() - 2) : d);
      switch (option.type) {
        case Option::Type::Integer:
          added->type_name("INT");
          break;
        case Option::Type::Number:
          added->type_name("NUMBER");
          break;
        case Option::Type::Boolean:
          added->type_name("BOOL");
          break;
        case Option::Type::Path:
          added->type_name("PATH");
          break;
        case Option::Type::String:
          break;
      }
    }
  }
}

void OptionFlags::apply(std::vector<OptionSection>& sections) const {
  std::vector<OptionSection*> all;
  for (OptionSection& s : sections) all.push_back(&s);
  for (const std::string& o : overrides_) apply_override(o, all);
}

}  // namespace fuseki::cli
