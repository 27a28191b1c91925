#include "cli/option_flags.h"

#include <cstdint>
#include <memory>
#include <stdexcept>

namespace fuseki::cli {
namespace {

// A plain flag's value checked as a declared option of its kind is (io/options.h): the same
// parsing and messages. `section` holds that one option, declared over `field`.
CLI::Validator as_declared(std::shared_ptr<OptionSection> section, std::shared_ptr<void> field) {
  const std::string allowed = "[" + section->options().front().allowed + "]";
  return CLI::Validator(
      [section, field](std::string& v) -> std::string {
        const std::string where = "value";
        try {
          section->options().front().set(v, where);
        } catch (const std::runtime_error& e) {
          return std::string(e.what()).substr(where.size() + 2);  // CLI11 names the flag
        }
        return {};
      },
      allowed);
}

}  // namespace

CLI::Validator integer_in(long lo, long hi) {
  auto field = std::make_shared<long>(lo);
  auto section = std::make_shared<OptionSection>("flag", "");
  section->integer("value", *field, lo, hi, "");
  return as_declared(section, field);
}

CLI::Validator number_in(double lo, double hi) {
  auto field = std::make_shared<double>(lo);
  auto section = std::make_shared<OptionSection>("flag", "");
  section->number("value", *field, lo, hi, "");
  return as_declared(section, field);
}

CLI::Validator seed_value() {
  auto field = std::make_shared<uint64_t>(0);
  auto section = std::make_shared<OptionSection>("flag", "");
  section->seed("value", *field, "");
  return as_declared(section, field);
}

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
