#include "io/options.h"

#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "io/atomic_file.h"

namespace fuseki {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::runtime_error(where + ": " + what);
}

// The shortest text that reads back as the same double, with a '.' so TOML keeps it a float.
std::string number_text(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos && s.find_first_of("in") == std::string::npos)
    s += ".0";
  return s;
}

std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Parses all of `t` as an integer (no sign for unsigned), or fails naming it.
template <typename T>
T parse_integer(const std::string& t, const std::string& where, const char* what) {
  T v{};
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size())
    fail(where, "'" + t + "' is not " + what);
  return v;
}

// One option; its default is the field's value now.
Option make_option(const std::string& key, std::string help, Option::Type type, std::string allowed,
                   std::function<void(const std::string&, const std::string&)> set,
                   std::function<std::string()> get) {
  std::string default_value = get();
  return {key,
          std::move(help),
          type,
          std::move(allowed),
          std::move(default_value),
          std::move(set),
          std::move(get)};
}

template <typename T>
Option integer_option(const std::string& key, T& field, T lo, T hi, std::string help) {
  return make_option(
      key, std::move(help), Option::Type::Integer, std::to_string(lo) + " .. " + std::to_string(hi),
      [&field, lo, hi](const std::string& t, const std::string& where) {
        auto v = parse_integer<long long>(t, where, "an integer");
        if (v < (long long)lo || v > (long long)hi)
          fail(where, "value " + t + " out of range [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "]");
        field = T(v);
      },
      [&field] { return std::to_string(field); });
}

// A TOML value as the text its option parses, after checking its TOML type.
std::string node_text(const toml::node& n, Option::Type type, const std::string& where) {
  switch (type) {
    case Option::Type::Integer:
      if (!n.is_integer()) fail(where, "expected an integer");
      return std::to_string(*n.value<int64_t>());
    case Option::Type::Number:
      if (n.is_integer()) return std::to_string(*n.value<int64_t>());
      if (!n.is_floating_point()) fail(where, "expected a number");
      return number_text(*n.value<double>());
    case Option::Type::Boolean:
      if (!n.is_boolean()) fail(where, "expected true or false");
      return *n.value<bool>() ? "true" : "false";
    case Option::Type::String:
    case Option::Type::Path:
      break;
  }
  if (!n.is_string()) fail(where, "expected a string");
  return *n.value<std::string>();
}

OptionSection* find_section(const std::vector<OptionSection*>& sections, const std::string& name) {
  auto it = std::find_if(sections.begin(), sections.end(),
                         [&](const OptionSection* s) { return s->name() == name; });
  return it == sections.end() ? nullptr : *it;
}

const char* type_name(Option::Type t) {
  switch (t) {
    case Option::Type::Integer:
      return "integer";
    case Option::Type::Number:
      return "number";
    case Option::Type::Boolean:
      return "boolean";
    case Option::Type::Path:
      return "path";
    case Option::Type::String:
      break;
  }
  return "string";
}

}  // namespace

OptionSection& OptionSection::integer(const std::string& key, int& field, int lo, int hi,
                                      std::string help) {
  options_.push_back(integer_option(key, field, lo, hi, std::move(help)));
  return *this;
}

OptionSection& OptionSection::integer(const std::string& key, long& field, long lo, long hi,
                                      std::string help) {
  options_.push_back(integer_option(key, field, lo, hi, std::move(help)));
  return *this;
}

OptionSection& OptionSection::seed(const std::string& key, uint64_t& field, std::string help) {
  // TOML integers are signed 64-bit: a larger seed could not be read back from a run's config.
  options_.push_back(make_option(
      key, std::move(help), Option::Type::Integer, "0 .. 2^63-1",
      [&field](const std::string& t, const std::string& where) {
        uint64_t v = parse_integer<uint64_t>(t, where, "a non-negative integer");
        if (v > uint64_t(INT64_MAX)) fail(where, "value " + t + " out of range [0, 2^63-1]");
        field = v;
      },
      [&field] { return std::to_string(field); }));
  return *this;
}

OptionSection& OptionSection::number(const std::string& key, double& field, double lo, double hi,
                                     std::string help) {
  options_.push_back(make_option(
      key, std::move(help), Option::Type::Number, number_text(lo) + " .. " + number_text(hi),
      [&field, lo, hi](const std::string& t, const std::string& where) {
        size_t used = 0;
        double v = 0;
        try {
          v = std::stod(t, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != t.size() || t.empty()) fail(where, "'" + t + "' is not a number");
        if (!(v >= lo && v <= hi)) {
          std::ostringstream m;
          m << "value " << t << " out of range [" << lo << ", " << hi << "]";
          fail(where, m.str());
        }
        field = v;
      },
      [&field] { return number_text(field); }));
  return *this;
}

OptionSection& OptionSection::boolean(const std::string& key, bool& field, std::string help) {
  options_.push_back(make_option(
      key, std::move(help), Option::Type::Boolean, "true, false",
      [&field](const std::string& t, const std::string& where) {
        if (t != "true" && t != "false") fail(where, "'" + t + "' is not true or false");
        field = t == "true";
      },
      [&field] { return std::string(field ? "true" : "false"); }));
  return *this;
}

OptionSection& OptionSection::text(const std::string& key, std::string& field, std::string help,
                                   std::function<void(const std::string&)> check) {
  options_.push_back(make_option(
      key, std::move(help), Option::Type::String, "",
      [&field, check](const std::string& t, const std::string& where) {
        if (check) {
          try {
            check(t);
          } catch (const std::runtime_error& e) {
            fail(where, e.what());
          }
        }
        field = t;
      },
      [&field] { return toml_string(field); }));
  return *this;
}

OptionSection& OptionSection::choice(const std::string& key, std::string& field,
                                     std::vector<std::string> choices, std::string help) {
  std::string list;
  for (auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  text(key, field, std::move(help), [choices, list](const std::string& v) {
    if (std::find(choices.begin(), choices.end(), v) == choices.end())
      throw std::runtime_error("'" + v + "' is not one of " + list);
  });
  options_.back().allowed = list;
  return *this;
}

OptionSection& OptionSection::path(const std::string& key, std::string& field, std::string help) {
  text(key, field, std::move(help));
  options_.back().type = Option::Type::Path;
  return *this;
}

OptionSection& OptionSection::custom(const std::string& key, std::string help, std::string allowed,
                                     std::function<void(const std::string&)> parse,
                                     std::function<std::string()> print) {
  options_.push_back(make_option(
      key, std::move(help), Option::Type::String, std::move(allowed),
      [parse](const std::string& t, const std::string& where) {
        try {
          parse(t);
        } catch (const std::runtime_error& e) {
          fail(where, e.what());
        }
      },
      [print] { return toml_string(print()); }));
  return *this;
}

const Option* OptionSection::find(const std::string& key) const {
  for (const Option& o : options_)
    if (o.key == key) return &o;
  return nullptr;
}

const std::vector<std::string>& config_section_names() {
  static const std::vector<std::string> names = {"run",        "network",      "selfplay", "train",
                                                 "gating",     "strength",     "eval",     "play",
                                                 "first_move", "eval_strength"};
  return names;
}

std::string OptionSection::flag(const Option& o) const {
  std::string f = "--" + (qualified_ ? name_ + "." : std::string()) + o.key;
  std::replace(f.begin() + 2, f.end(), '_', '-');
  return f;
}

namespace {

EveryConfigSection& every_config_section() {
  static EveryConfigSection every;
  return every;
}

// The keys of a config file's [section] into `section`.
void read_section(const std::string& file, const fs::path& base, OptionSection& section,
                  const toml::table& tbl) {
  for (auto& [key_node, value] : tbl) {
    std::string key(key_node.str());
    const Option* o = section.find(key);
    if (!o) fail(file, "unknown key " + section.name() + "." + key);
    std::string where = file + ": " + section.name() + "." + key;
    std::string text = node_text(value, o->type, where);
    if (o->type == Option::Type::Path && !text.empty())
      text = (base / text).lexically_normal().string();
    o->set(text, where);
  }
}

}  // namespace

void set_every_config_section(EveryConfigSection every) {
  every_config_section() = std::move(every);
}

void read_toml(const std::string& file, const std::vector<OptionSection*>& sections) {
  const std::vector<std::string>& other_sections = config_section_names();
  toml::table root;
  try {
    root = toml::parse(read_file(file), file);  // read_file: one error for a directory too
  } catch (const toml::parse_error& e) {
    std::ostringstream o;
    o << file << ":" << e.source().begin.line << ": " << e.description();
    throw std::runtime_error(o.str());
  }
  // Input files named in a config file are relative to that file (made absolute, so a run
  // directory's config.toml means the same from anywhere); overrides and flags are relative to
  // the working directory, as on any command line.
  fs::path base = fs::absolute(fs::path(file)).parent_path();
  for (auto& [section_key, section_node] : root) {
    std::string name(section_key.str());
    if (!section_node.is_table())
      fail(file, "'" + name + "' is a key outside any section: put it under its [section]");
    const toml::table& tbl = *section_node.as_table();
    if (OptionSection* section = find_section(sections, name)) {
      read_section(file, base, *section, tbl);
      continue;
    }
    if (std::find(other_sections.begin(), other_sections.end(), name) == other_sections.end())
      fail(file, "unknown section [" + name + "]");
    if (const EveryConfigSection& every = every_config_section())
      every([&](const std::vector<OptionSection*>& all) {
        if (OptionSection* other = find_section(all, name)) read_section(file, base, *other, tbl);
      });
  }
}

void apply_override(const std::string& text, const std::vector<OptionSection*>& sections) {
  size_t eq = text.find('='), dot = text.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq)
    fail("--set " + text, "expected section.key=value");
  std::string name = text.substr(0, dot), key = text.substr(dot + 1, eq - dot - 1),
              value = text.substr(eq + 1);
  OptionSection* section = find_section(sections, name);
  if (!section) fail("--set " + text, "unknown section '" + name + "'");
  const Option* o = section->find(key);
  if (!o) fail("--set " + text, "unknown key " + name + "." + key);
  o->set(value, "--set " + name + "." + key);
}

std::string to_toml(const std::vector<const OptionSection*>& sections) {
  std::ostringstream o;
  for (const OptionSection* s : sections) {
    o << "\n[" << s->name() << "]\n";
    for (const Option& opt : s->options()) o << opt.key << " = " << opt.get() << "\n";
  }
  return o.str();
}

std::string to_markdown(const std::vector<const OptionSection*>& sections) {
  auto cell = [](std::string s) {
    std::string out;
    for (char c : s) {
      if (c == '|') out += '\\';
      out += c;
    }
    return out;
  };
  std::ostringstream o;
  for (const OptionSection* s : sections) {
    o << "\n## [" << s->name() << "]\n\n" << s->help() << "\n\n";
    o << "| key | flag | type | default | allowed | meaning |\n|---|---|---|---|---|---|\n";
    for (const Option& opt : s->options()) {
      o << "| `" << opt.key << "` | `" << s->flag(opt) << "` | " << type_name(opt.type) << " | `"
        << cell(opt.default_value) << "` | " << cell(opt.allowed) << " | " << cell(opt.help)
        << " |\n";
    }
  }
  return o.str();
}

}  // namespace fuseki
