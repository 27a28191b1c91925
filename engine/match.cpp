#include "engine/match.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "engine/placer.h"
#include "io/stop.h"
#include "rules/ruleset.h"

namespace fuseki {

Game play_game(const Game& initial, Player& sente, Player& gote, uint64_t seed, int retries) {
  std::string failure;
  for (int attempt = 0; attempt <= retries; ++attempt) {
    Game game = initial;
    sente.new_game(Rng::derive(seed, 1));
    gote.new_game(Rng::derive(seed, 2));
    bool failed = false;
    for (int moves = 0; !game.over(); ++moves) {
      // A stop request abandons the game unfinished; the caller replays it with the same seed.
      if (stop_requested()) return game;
      if (moves == 30) test_point("game");
      Player& p = game.position().side_to_move() == BLACK ? sente : gote;
      Decision d = p.decide(game);
      if (d.kind == Decision::Play)
        game.play_text(d.move);
      else if (d.kind == Decision::Declare)
        game.declare();
      else if (d.kind == Decision::Resign)
        game.resign();
      else {
        failure = p.name() + ": " + d.error;
        failed = true;
        break;
      }
    }
    if (!failed) return game;
    // An engine killed with the job is no reason to retry or void the game.
    if (stop_requested()) return game;
  }
  Game game = initial;
  game.set_void(failure + " (after " + std::to_string(retries + 1) + " tries)");
  return game;
}

void random_placement(Game& game, uint64_t game_seed) {
  UniformPlacer uniform;
  UniformChooser chooser;
  Rng rng = placement_rng(game_seed);
  PlacingGame g{&game, &rng};
  place_games({&g, 1}, Placers{&uniform, &chooser, {&uniform, &uniform}});
}

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  path += ":/usr/games:/usr/local/games";  // Debian puts game engines here, often off root's PATH
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    std::string dir =
        path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!dir.empty()) {
      std::string candidate = dir + "/" + name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return name;
}

std::optional<UsiConfig> fairy_stockfish_oracle() {
  UsiConfig c = default_engines().at("fairy-stockfish");
  if (const char* env = std::getenv("FUSEKILAB_FSF"); env && *env) c.path = env;
  if (access(c.path.c_str(), X_OK) != 0) return std::nullopt;
  c.nodes = 0;
  return c;
}

EngineRegistry default_engines() {
  EngineRegistry r;
  UsiConfig fsf;
  fsf.name = "fairy-stockfish";
  fsf.path = find_program("fairy-stockfish");
  fsf.options = {{"Threads", "1"}, {"Hash", "16"}};  // (its option is Hash: USI_Hash it ignores)
  fsf.variant_option = "UCI_Variant";
  fsf.nodes = 1000;
  r[fsf.name] = fsf;
  UsiConfig gps;
  gps.name = "gpsusi";
  gps.path = find_program("gpsusi");
  gps.options = {{"Thread", "1"}, {"BookDepth", "0"}};
  gps.movetime_ms = 100;  // gpsusi knows no "go nodes"
  r[gps.name] = gps;
  return r;
}

namespace {

std::vector<std::string> split_colon(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t end = s.find(':', start);
    out.push_back(s.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

long long parse_number(const std::string& spec, const std::string& key, const std::string& value) {
  size_t used = 0;
  long long n = -1;
  try {
    n = std::stoll(value, &used);
  } catch (const std::exception&) {
  }
  if (used != value.size() || n < 0)
    throw std::invalid_argument("engine '" + spec + "': " + key + "=" + value +
                                " is not a non-negative integer");
  return n;
}

}  // namespace

void check_engine_spec(const std::string& spec) {
  try {
    make_player(spec, default_engines());
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
}

std::unique_ptr<Player> make_player(const std::string& spec, const EngineRegistry& engines,
                                    RuleSet rules) {
  std::vector<std::string> parts = split_colon(spec);
  std::string kind = parts[0];
  size_t first_option = 1;
  if (kind == "random") {
    if (parts.size() > 1) throw std::invalid_argument("engine 'random' takes no options");
    return std::make_unique<RandomPlayer>();
  }
  UsiConfig usi;
  bool is_usi = false;
  if (kind == "usi") {
    if (parts.size() < 2 || parts[1].empty())
      throw std::invalid_argument("engine '" + spec + "': usi:PATH needs a path");
    usi.name = parts[1];
    usi.path = parts[1];
    first_option = 2;
    is_usi = true;
  } else if (kind != "builtin") {
    auto it = engines.find(kind);
    if (it == engines.end()) {
      std::string known = "builtin, random, usi:PATH";
      for (auto& [name, cfg] : engines) known += ", " + name;
      throw std::invalid_argument("unknown engine '" + kind + "' (known: " + known + ")");
    }
    usi = it->second;
    is_usi = true;
  }
  SearchLimits limits;
  int noise = 0;
  bool budget_given = false;
  for (size_t i = first_option; i < parts.size(); ++i) {
    size_t eq = parts[i].find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument("engine '" + spec + "': option '" + parts[i] +
                                  "' is not key=value");
    std::string key = parts[i].substr(0, eq), value = parts[i].substr(eq + 1);
    bool budget = key == "nodes" || key == "depth" || key == "movetime" || key == "timeout" ||
                  (key == "noise" && !is_usi);
    if (is_usi && !budget) {  // any other key is the engine's own option: setoption name K value V
      if (key.empty())
        throw std::invalid_argument("engine '" + spec + "': an option without a name");
      auto same = std::find_if(usi.options.begin(), usi.options.end(),
                               [&](const auto& o) { return o.first == key; });
      if (same != usi.options.end())
        same->second = value;
      else
        usi.options.emplace_back(key, value);
      continue;
    }
    long long n = parse_number(spec, key, value);
    if (key == "nodes" || key == "depth" || key == "movetime") {
      if (!budget_given) {  // the first budget given replaces the default one
        limits = {};
        usi.nodes = 0;
        usi.depth = 0;
        usi.movetime_ms = 0;
        budget_given = true;
      }
    }
    if (key == "nodes") {
      limits.nodes = uint64_t(n);
      usi.nodes = uint64_t(n);
    } else if (key == "depth") {
      limits.depth = int(n);
      usi.depth = int(n);
    } else if (key == "movetime") {
      limits.seconds = double(n) / 1000.0;
      usi.movetime_ms = int(n);
    } else if (key == "noise" && !is_usi) {
      noise = int(n);
    } else if (key == "timeout" && is_usi) {
      usi.move_timeout = double(n);
    } else {
      throw std::invalid_argument("engine '" + spec + "': unknown option '" + key + "'");
    }
  }
  if (is_usi) {
    usi.variant = rule_info(rules).usi_variant;
    return std::make_unique<UsiPlayer>(usi);
  }
  if (!budget_given) limits.nodes = 1000;
  return std::make_unique<BuiltinPlayer>(limits, noise);
}

}  // namespace fuseki
