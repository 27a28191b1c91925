#include "cli/option_flags.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>

namespace fuseki::cli {
namespace {

std::string shown(double x) {
  std::ostringstream o;
  o << x;
  return o.str();
}

}  // namespace

CLI::Validator integer_in(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& v) -> std::string {
        long long x = 0;
        auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
        if (v.empty() || ec != std::errc() || end != v.data() + v.size())
          return "'" + v + "' is not an integer";
        if (x < lo || x > hi)
          return "'" + v + "' is not in " + std::to_string(lo) + " .. " + std::to_string(hi);
        return {};
      },
      "[" + std::to_string(lo) + " .. " + std::to_string(hi) + "]");
}

CLI::Validator number_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& v) -> std::string {
        char* end = nullptr;
        errno = 0;
        double x = v.empty() ? 0 : std::strtod(v.c_str(), &end);
        if (v.empty() || errno != 0 || end != v.c_str() + v.size() || !std::isfinite(x))
          return "'" + v + "' is not a number";
        if (x < lo || x > hi) return "'" + v + "' is not in " + shown(lo) + " .. " + shown(hi);
        return {};
      },
      "[" + shown(lo) + " .. " + shown(hi) + "]");
}

CLI::Validator seed_value() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        uint64_t x = 0;
        auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
        if (v.empty() || ec != std::errc() || end != v.data() + v.size() || x > uint64_t(INT64_MAX))
          return "'" + v + "' is not an integer in 0 .. 2^63-1";
        return {};
      },
      "[0 .. 2^63-1]");
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
