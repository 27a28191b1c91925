#include "run/run_config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>

#include "rules/ruleset.h"

namespace fuseki {
namespace {

namespace fs = std::filesystem;

// One declared setting: how to read it from TOML or text, how to print it.
struct Setting {
  std::function<void(const toml::node&, const std::string& where)> from_toml;
  std::function<void(const std::string& text, const std::string& where)> from_text;
  std::function<std::string()> to_text;
};

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::runtime_error(where + ": " + what);
}

Setting integer(int& field, int lo, int hi) {
  auto check = [&field, lo, hi](int64_t v, const std::string& where) {
    if (v < lo || v > hi)
      fail(where, "value " + std::to_string(v) + " out of range [" + std::to_string(lo) + ", " +
                      std::to_string(hi) + "]");
    field = int(v);
  };
  return {[check](const toml::node& n, const std::string& where) {
            auto v = n.value<int64_t>();
            if (!n.is_integer() || !v) fail(where, "expected an integer");
            check(*v, where);
          },
          [check](const std::string& t, const std::string& where) {
            size_t used = 0;
            int64_t v = 0;
            try {
              v = std::stoll(t, &used);
            } catch (const std::exception&) {
              used = 0;
            }
            if (used != t.size() || t.empty()) fail(where, "'" + t + "' is not an integer");
            check(v, where);
          },
          [&field] { return std::to_string(field); }};
}

Setting seed_setting(uint64_t& field) {
  return {[&field](const toml::node& n, const std::string& where) {
            auto v = n.value<int64_t>();
            if (!n.is_integer() || !v || *v < 0) fail(where, "expected a non-negative integer");
            field = uint64_t(*v);
          },
          [&field](const std::string& t, const std::string& where) {
            size_t used = 0;
            try {
              field = std::stoull(t, &used);
            } catch (const std::exception&) {
              used = 0;
            }
            if (used != t.size() || t.empty() || t[0] == '-')
              fail(where, "'" + t + "' is not a non-negative integer");
          },
          [&field] { return std::to_string(field); }};
}

Setting real(double& field, double lo, double hi) {
  auto check = [&field, lo, hi](double v, const std::string& where) {
    if (!(v >= lo && v <= hi)) {
      std::ostringstream o;
      o << "value " << v << " out of range [" << lo << ", " << hi << "]";
      fail(where, o.str());
    }
    field = v;
  };
  return {[check](const toml::node& n, const std::string& where) {
            auto v = n.value<double>();
            if (!(n.is_floating_point() || n.is_integer()) || !v) fail(where, "expected a number");
            check(*v, where);
          },
          [check](const std::string& t, const std::string& where) {
            size_t used = 0;
            double v = 0;
            try {
              v = std::stod(t, &used);
            } catch (const std::exception&) {
              used = 0;
            }
            if (used != t.size() || t.empty()) fail(where, "'" + t + "' is not a number");
            check(v, where);
          },
          [&field] {
            std::ostringstream o;
            o << field;
            std::string s = o.str();
            if (s.find_first_of(".e") == std::string::npos) s += ".0";
            return s;
          }};
}

Setting boolean(bool& field) {
  return {[&field](const toml::node& n, const std::string& where) {
            auto v = n.value<bool>();
            if (!n.is_boolean() || !v) fail(where, "expected true or false");
            field = *v;
          },
          [&field](const std::string& t, const std::string& where) {
            if (t != "true" && t != "false") fail(where, "'" + t + "' is not true or false");
            field = t == "true";
          },
          [&field] { return std::string(field ? "true" : "false"); }};
}

std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

Setting text(std::string& field,
             std::function<void(const std::string&, const std::string&)> validate = nullptr) {
  auto set = [&field, validate](const std::string& v, const std::string& where) {
    if (validate) validate(v, where);
    field = v;
  };
  return {[set](const toml::node& n, const std::string& where) {
            auto v = n.value<std::string>();
            if (!n.is_string() || !v) fail(where, "expected a string");
            set(*v, where);
          },
          set, [&field] { return toml_string(field); }};
}

using Table = std::vector<std::pair<std::string, Setting>>;

std::vector<std::pair<std::string, Table>> declare(RunConfig& c) {
  auto one_of = [](std::vector<std::string> allowed) {
    return [allowed](const std::string& v, const std::string& where) {
      for (auto& a : allowed)
        if (v == a) return;
      std::string list;
      for (auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      fail(where, "'" + v + "' is not one of " + list);
    };
  };
  auto rules_check = [](const std::string& v, const std::string& where) {
    if (!parse_rule_set(v))
      fail(where, "unknown rule set '" + v + "' (known: " + rule_set_names() + ")");
  };
  Setting text_device = text(c.device);
  return {
      {"run",
       {{"dir", text(c.dir)},
        {"seed", seed_setting(c.seed)},
        {"rules", text(c.rules, rules_check)},
        {"generations", integer(c.generations, 0, 100000)},
        {"device", text_device},
        {"precision", text(c.precision, one_of({"fp32", "bf16", "fp16"}))}}},
      {"network",
       {{"channels", integer(c.channels, 1, 1024)},
        {"blocks", integer(c.blocks, 0, 64)},
        {"init_from", text(c.init_from)}}},
      {"selfplay",
       {{"games", integer(c.games, 1, 100000000)},
        {"workers", integer(c.workers, 1, 1024)},
        {"batch", integer(c.batch, 1, 65536)},
        {"temperature", real(c.temperature, 0.0, 100.0)},
        {"kings", text(c.kings, one_of({"uniform", "table", "network"}))},
        {"king_table", text(c.king_table)},
        {"king_band", integer(c.king_band, 1, 1296)},
        {"playout", text(c.playout)},
        {"playout_threads", integer(c.playout_threads, 1, 1024)},
        {"max_moves", integer(c.max_moves, 1, 100000)},
        {"shard_games", integer(c.shard_games, 1, 1000000)},
        {"inference_threads", integer(c.inference_threads, 0, 1024)},
        {"eval_nodes", integer(c.eval_nodes, 0, 100000000)},
        {"eval_scale", real(c.eval_scale, 1.0, 100000.0)},
        {"play_out", boolean(c.play_out)}}},
      {"train",
       {{"steps", integer(c.steps, 0, 100000000)},
        {"batch_size", integer(c.batch_size, 1, 65536)},
        {"learning_rate", real(c.learning_rate, 0.0, 10.0)},
        {"weight_decay", real(c.weight_decay, 0.0, 10.0)},
        {"value_weight", real(c.value_weight, 0.0, 1000.0)},
        {"entropy_weight", real(c.entropy_weight, 0.0, 1000.0)},
        {"window_games", integer(c.window_games, 1, 100000000)},
        {"threads", integer(c.train_threads, 0, 1024)},
        {"log_every", integer(c.log_every, 1, 1000000)},
        {"reward", text(c.reward, one_of({"result", "eval", "mix"}))},
        {"reward_mix", real(c.reward_mix, 0.0, 1.0)},
        {"precision", text(c.train_precision, one_of({"fp32", "bf16"}))}}},
      {"gating",
       {{"games", integer(c.gating_games, 0, 1000000)},
        {"temperature", real(c.gating_temperature, 0.0, 100.0)},
        {"score", text(c.gating_score, one_of({"result", "eval"}))}}},
  };
}

}  // namespace

RunConfig load_run_config(const std::string& path, const std::vector<std::string>& overrides) {
  RunConfig c;
  auto sections = declare(c);
  if (!path.empty()) {
    toml::table root;
    try {
      root = toml::parse_file(path);
    } catch (const toml::parse_error& e) {
      std::ostringstream o;
      o << path << ":" << e.source().begin.line << ": " << e.description();
      throw std::runtime_error(o.str());
    }
    for (auto& [section_key, section_node] : root) {
      std::string section(section_key.str());
      auto it = std::find_if(sections.begin(), sections.end(),
                             [&](auto& s) { return s.first == section; });
      if (it == sections.end()) fail(path, "unknown section [" + section + "]");
      const toml::table* tbl = section_node.as_table();
      if (!tbl) fail(path, "'" + section + "' must be a [section]");
      for (auto& [key_node, value] : *tbl) {
        std::string key(key_node.str());
        std::string where = path + ": " + section + "." + key;
        auto kt = std::find_if(it->second.begin(), it->second.end(),
                               [&](auto& k) { return k.first == key; });
        if (kt == it->second.end()) fail(path, "unknown key " + section + "." + key);
        kt->second.from_toml(value, where);
      }
    }
    // Input files named in a config file are relative to that file (made absolute, so a run
    // directory's config.toml means the same from anywhere); --set values below are relative to
    // the working directory, as on any command line.
    fs::path base = fs::absolute(fs::path(path)).parent_path();
    for (std::string* file : {&c.king_table, &c.init_from})
      if (!file->empty()) *file = (base / *file).lexically_normal().string();
  }
  for (const std::string& o : overrides) {
    size_t eq = o.find('='), dot = o.find('.');
    if (eq == std::string::npos || dot == std::string::npos || dot > eq)
      fail("--set " + o, "expected section.key=value");
    std::string section = o.substr(0, dot), key = o.substr(dot + 1, eq - dot - 1),
                value = o.substr(eq + 1);
    auto it =
        std::find_if(sections.begin(), sections.end(), [&](auto& s) { return s.first == section; });
    if (it == sections.end()) fail("--set " + o, "unknown section '" + section + "'");
    auto kt =
        std::find_if(it->second.begin(), it->second.end(), [&](auto& k) { return k.first == key; });
    if (kt == it->second.end()) fail("--set " + o, "unknown key " + section + "." + key);
    kt->second.from_text(value, "--set " + section + "." + key);
  }
  if (c.kings == "table" && c.king_table.empty())
    fail("selfplay.kings", "'table' needs selfplay.king_table");
  if (c.gating_score == "eval" && c.eval_nodes == 0)
    fail("gating.score", "'eval' needs selfplay.eval_nodes > 0");
  if (c.reward != "result" && c.eval_nodes == 0)
    fail("train.reward", "'" + c.reward + "' needs selfplay.eval_nodes > 0");
  if (c.reward != "eval" && !c.play_out)
    fail("train.reward", "'" + c.reward + "' needs game results: selfplay.play_out = true");
  return c;
}

std::string to_toml(const RunConfig& config) {
  RunConfig c = config;
  auto sections = declare(c);
  std::ostringstream o;
  o << "# fusekilab resolved run config\n";
  for (auto& [section, keys] : sections) {
    o << "\n[" << section << "]\n";
    for (auto& [key, setting] : keys) o << key << " = " << setting.to_text() << "\n";
  }
  return o.str();
}

}  // namespace fuseki
