// Training subcommands: pipeline (generations of self-play, training and gating on one machine).
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "cli/commands.h"
#include "cli/run_config.h"
#include "eval/chart.h"
#include "eval/stats.h"
#include "net/atomic_file.h"
#include "net/evaluator.h"
#include "selfplay/generator.h"
#include "train/trainer.h"

namespace fuseki::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string gen_name(int g) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "gen-%04d", g);
  return buf;
}

struct RunPaths {
  fs::path root;
  fs::path models() const { return root / "models"; }
  fs::path checkpoint(int g) const { return models() / (gen_name(g) + ".ckpt"); }
  fs::path partial(int g) const { return models() / (gen_name(g) + ".partial.ckpt"); }
  fs::path selfplay(int g) const { return root / "selfplay" / gen_name(g); }
  fs::path metrics() const { return root / "train" / "metrics.jsonl"; }
  fs::path generations() const { return root / "generations.jsonl"; }
};

void append_line(const fs::path& p, const std::string& line) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::app);
  out << line << "\n";
  if (!out) throw std::runtime_error(p.string() + ": cannot append");
}

SelfPlayOptions selfplay_options(const RunConfig& c, int generation, const KingPairTable* table) {
  SelfPlayOptions o;
  o.rules = *parse_rule_set(c.rules);
  o.seed = Rng::derive(c.seed, 1000 + uint64_t(generation));  // each generation its own games
  o.batch = c.batch;
  o.temperature = c.temperature;
  o.kings = *parse_king_source(c.kings);
  o.table = table;
  o.king_band = c.king_band;
  o.playout = c.playout;
  o.playout_threads = c.playout_threads;
  o.max_moves = c.max_moves;
  o.eval_nodes = uint64_t(c.eval_nodes);
  o.eval_scale = c.eval_scale;
  o.play_out = c.play_out;
  return o;
}

// Progress on stderr: done / total, rates, ETA.
class Progress {
 public:
  Progress(std::string what, uint64_t total)
      : what_(std::move(what)), total_(total), start_(now()) {}
  void report(uint64_t done, const std::string& extra, bool force = false) {
    std::lock_guard<std::mutex> lock(mu_);
    double t = now() - start_;
    if (!force && t - last_ < 2.0) return;
    last_ = t;
    double rate = done / std::max(t, 1e-9);
    std::fprintf(stderr, "%s: %llu/%llu, %.2f/s, %s, ETA %.0f s\n", what_.c_str(),
                 (unsigned long long)done, (unsigned long long)total_, rate, extra.c_str(),
                 rate > 0 ? (total_ - done) / rate : 0.0);
  }

 private:
  std::string what_;
  uint64_t total_;
  double start_, last_ = -10;
  std::mutex mu_;
};

// Self-play of one generation: `workers` threads, each with its own network copy and shards.
std::vector<GameRow> run_selfplay(const RunConfig& c, const RunPaths& paths, int g,
                                  const KingPairTable* table) {
  fs::path dir = paths.selfplay(g);
  fs::create_directories(dir);
  std::atomic<uint64_t> done{0}, decisions{0}, passes{0}, positions{0};
  uint64_t already = 0;
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(size_t(c.workers));
  Progress progress("selfplay " + gen_name(g), uint64_t(c.games));
  double started = now();
  std::mutex mu;
  for (int w = 0; w < c.workers; ++w) {
    uint64_t target = uint64_t(c.games / c.workers + (w < c.games % c.workers ? 1 : 0));
    std::map<std::string, std::string> attrs = {
        {"rules", c.rules},
        {"run_seed", std::to_string(c.seed)},
        {"generation", std::to_string(g)},
        {"network", paths.checkpoint(g).filename().string()},
        {"playout", c.playout},
        {"kings", c.kings}};
    auto writer = std::make_shared<ShardWriter>(dir.string(), w, c.shard_games, attrs);
    uint64_t start = std::min(writer->next_index(), target);
    already += start;
    done += start;
    threads.emplace_back([&, w, target, start, writer] {
      try {
        net::EvaluatorOptions eo;
        eo.device = c.device;
        eo.threads = c.inference_threads;
        net::Evaluator evaluator =
            net::Evaluator::from_checkpoint(paths.checkpoint(g).string(), eo);
        SelfPlayOptions o = selfplay_options(c, g, table);
        o.worker = w;
        SelfPlayGenerator gen(evaluator, o);
        uint64_t last_dec = 0, last_pass = 0, last_pos = 0;
        gen.play(start, target - start, [&](PlayedGame&& game) {
          writer->add(game);
          const SelfPlayStats& st = gen.stats();
          decisions += st.decisions - last_dec;
          passes += st.forward_passes - last_pass;
          positions += st.batch_positions - last_pos;
          last_dec = st.decisions;
          last_pass = st.forward_passes;
          last_pos = st.batch_positions;
          uint64_t d = ++done;
          char extra[160];
          double secs = std::max(now() - started, 1e-9);
          std::snprintf(extra, sizeof(extra), "%.0f decisions/s, batch fill %.0f%%",
                        double(decisions.load()) / secs,
                        passes ? 100.0 * double(positions) / double(passes) / c.batch : 0.0);
          progress.report(d - already, extra);
        });
        writer->flush();
      } catch (...) {
        errors[size_t(w)] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  std::vector<GameRow> rows;
  for (const std::string& shard : list_shards(dir.string())) {
    Shard s = read_shard(shard);
    rows.insert(rows.end(), s.games.begin(), s.games.end());
  }
  return rows;
}

// Training of one generation: from gen-g to gen-(g+1), resuming a partial run exactly.
json run_training(const RunConfig& c, const RunPaths& paths, int g) {
  TrainOptions o;
  o.batch_size = c.batch_size;
  o.learning_rate = c.learning_rate;
  o.weight_decay = c.weight_decay;
  o.value_weight = c.value_weight;
  o.entropy_weight = c.entropy_weight;
  o.device = c.device;
  o.threads = c.train_threads;
  fs::path start = fs::exists(paths.partial(g + 1)) ? paths.partial(g + 1) : paths.checkpoint(g);
  Trainer trainer({c.channels, c.blocks}, o, c.seed, start.string());
  uint64_t first_step = uint64_t(g) * uint64_t(c.steps);
  uint64_t target = first_step + uint64_t(c.steps);
  std::vector<std::string> shards;
  for (int k = 0; k <= g; ++k)
    for (const std::string& s : list_shards(paths.selfplay(k).string())) shards.push_back(s);
  RewardMode mode = c.reward == "eval"  ? RewardMode::Eval
                    : c.reward == "mix" ? RewardMode::Mix
                                        : RewardMode::Result;
  TrainingWindow window(mode, c.reward_mix);
  window.load(shards, c.window_games);
  Progress progress("train " + gen_name(g + 1), target - std::min(trainer.steps(), target));
  json last;
  uint64_t begun = trainer.steps();
  while (trainer.steps() < target && window.decisions() > 0) {
    StepMetrics m = trainer.step(window);
    if (m.step % uint64_t(c.log_every) == 0 || m.step == target) {
      last = {{"step", m.step},
              {"generation", g + 1},
              {"policy_loss", m.policy_loss},
              {"value_loss", m.value_loss},
              {"entropy", m.entropy},
              {"mean_value", m.mean_value},
              {"mean_reward", m.mean_reward},
              {"value_reward_corr", m.value_reward_corr},
              {"window_games", window.games()}};
      append_line(paths.metrics(), last.dump());
      char extra[96];
      std::snprintf(extra, sizeof(extra), "policy loss %.4f, value loss %.4f, entropy %.3f",
                    m.policy_loss, m.value_loss, m.entropy);
      progress.report(m.step - begun, extra);
    }
    if (m.step % 50 == 0 && m.step < target)
      trainer.save(paths.partial(g + 1).string(), uint64_t(g + 1));
  }
  trainer.save(paths.checkpoint(g + 1).string(), uint64_t(g + 1));
  fs::remove(paths.partial(g + 1));
  return last;
}

// A match between two networks, each taking both colours, with early stopping once the 95 %
// interval of A's score excludes 50 %. Scored by play-out results or by the evaluation at move 41.
json network_match(const RunConfig& c, const std::string& a_path, const std::string& b_path,
                   int games_per_colour, uint64_t seed, const KingPairTable* table) {
  net::EvaluatorOptions eo;
  eo.device = c.device;
  eo.threads = c.inference_threads;
  // "uniform": a placer that draws uniformly among the legal drops.
  std::unique_ptr<net::Evaluator> a_net, b_net;
  if (a_path != "uniform")
    a_net = std::make_unique<net::Evaluator>(net::Evaluator::from_checkpoint(a_path, eo));
  if (b_path != "uniform")
    b_net = std::make_unique<net::Evaluator>(net::Evaluator::from_checkpoint(b_path, eo));
  net::Evaluator* a = a_net.get();
  net::Evaluator* b = b_net.get();
  SelfPlayOptions o = selfplay_options(c, 0, table);
  o.seed = seed;
  o.temperature = c.gating_temperature;
  if (o.kings == KingSource::Network) o.kings = KingSource::Uniform;
  bool by_eval = c.gating_score == "eval";
  if (by_eval) o.play_out = false;
  double points = 0;
  int n = 0, played_each = 0;
  double low = 0, high = 1;
  bool stopped_early = false;
  Progress progress("match", uint64_t(2 * games_per_colour));
  while (played_each < games_per_colour) {
    int chunk = std::min(c.batch, games_per_colour - played_each);
    for (int side = 0; side < 2; ++side) {
      // The same seeds in both colour orders: each king pair is played with both colours.
      o.worker = 0;
      SelfPlayGenerator gen(side == 0 ? a : b, side == 0 ? b : a, o);
      gen.play(uint64_t(played_each), uint64_t(chunk), [&](PlayedGame&& game) {
        int a_side = side;
        if (by_eval) {
          if (game.row.sente_eval < 0) return;
          points += a_side == 0 ? game.row.sente_eval : 1.0 - game.row.sente_eval;
        } else {
          if (game.row.winner > 2) return;
          points += game.row.winner == 2 ? 0.5 : game.row.winner == a_side ? 1.0 : 0.0;
        }
        ++n;
      });
    }
    played_each += chunk;
    wilson_interval(points, n, low, high);
    char extra[96];
    std::snprintf(extra, sizeof(extra), "score %.3f [%.3f, %.3f]", n ? points / n : 0.0, low, high);
    progress.report(uint64_t(2 * played_each), extra, true);
    if (low > 0.5 || high < 0.5) {
      stopped_early = played_each < games_per_colour;
      break;
    }
  }
  return {{"games", n},
          {"scored_by", c.gating_score},
          {"score", n ? points / n : 0.0},
          {"ci95", {low, high}},
          {"stopped_early", stopped_early},
          {"verdict", low > 0.5    ? "better"
                      : high < 0.5 ? "worse"
                                   : "undecided"}};
}

json run_gating(const RunConfig& c, const RunPaths& paths, int g, const KingPairTable* table) {
  json r = network_match(c, paths.checkpoint(g + 1).string(), paths.checkpoint(g).string(),
                         c.gating_games, Rng::derive(c.seed, 5000 + uint64_t(g)), table);
  r["a"] = gen_name(g + 1);
  r["b"] = gen_name(g);
  return r;
}

// A number from a metrics line; NaN (written as null) or a missing key reads as NaN.
double number(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : std::nan("");
}

void write_report(const RunPaths& paths) {
  // Training curves.
  std::map<uint64_t, json> by_step;
  std::ifstream in(paths.metrics());
  for (std::string line; std::getline(in, line);) {
    try {
      json j = json::parse(line);
      by_step[j.at("step").get<uint64_t>()] =
          j;  // a resumed run may log a step twice: keep the last
    } catch (const json::exception&) {
    }
  }
  Series pl{"policy loss", {}}, vl{"value loss", {}}, en{"entropy", {}},
      corr{"value/result corr.", {}};
  for (auto& [step, j] : by_step) {
    pl.points.push_back({double(step), number(j, "policy_loss")});
    vl.points.push_back({double(step), number(j, "value_loss")});
    en.points.push_back({double(step), number(j, "entropy")});
    corr.points.push_back({double(step), number(j, "value_reward_corr")});
  }
  std::string curves = line_chart_svg("Training", "step", {pl, vl, corr});
  std::string entropy = line_chart_svg("Policy entropy", "step", {en});
  // Per-generation statistics.
  Series sente{"Sente score", {}}, ruling{"ruling41 rate", {}}, stack_s{"stack rate Sente", {}},
      stack_g{"stack rate Gote", {}}, gating{"gating score", {}};
  std::ifstream gin(paths.generations());
  for (std::string line; std::getline(gin, line);) {
    try {
      json j = json::parse(line);
      double g = j.at("generation").get<double>();
      const json& s = j.at("selfplay");
      sente.points.push_back({g, number(s, "sente_score")});
      ruling.points.push_back({g, number(s, "ruling41_rate")});
      stack_s.points.push_back({g, number(s, "stack_rate_sente")});
      stack_g.points.push_back({g, number(s, "stack_rate_gote")});
      if (j.contains("gating")) gating.points.push_back({g + 1, number(j["gating"], "score")});
    } catch (const json::exception&) {
    }
  }
  std::string gens = line_chart_svg("Self-play by generation", "generation",
                                    {sente, ruling, stack_s, stack_g, gating});
  net::write_file_atomically((paths.root / "train" / "curves.svg").string(), curves);
  std::string html =
      "<!doctype html><meta charset=\"utf-8\"><title>fusekilab run</title>\n<h1>fusekilab run: " +
      paths.root.string() + "</h1>\n" + curves + entropy + gens +
      "<p>Files: generations.jsonl, train/metrics.jsonl, models/, selfplay/.</p>\n";
  net::write_file_atomically((paths.root / "report.html").string(), html);
}

int run_pipeline(const std::string& config_path, const std::vector<std::string>& overrides) {
  RunConfig c = load_run_config(config_path, overrides);
  RunPaths paths{c.dir};
  fs::create_directories(paths.models());
  net::write_file_atomically((paths.root / "config.toml").string(), to_toml(c));
  std::unique_ptr<KingPairTable> table;
  if (c.kings == "table")
    table = std::make_unique<KingPairTable>(KingPairTable::load(c.king_table));

  // Generation 0: a fresh network, or the one named by init_from.
  if (!fs::exists(paths.checkpoint(0))) {
    TrainOptions o;
    o.device = c.device;
    Trainer init({c.channels, c.blocks}, o, c.seed, c.init_from);
    init.save(paths.checkpoint(0).string(), 0);
  }
  for (int g = 0; g < c.generations; ++g) {
    if (fs::exists(paths.checkpoint(g + 1))) continue;  // finished before an interruption
    double t0 = now();
    std::vector<GameRow> games = run_selfplay(c, paths, g, table.get());
    GenerationStats stats = generation_stats(games);
    double t1 = now();
    json trained = run_training(c, paths, g);
    double t2 = now();
    json line = {{"generation", g},
                 {"network", gen_name(g)},
                 {"selfplay", json::parse(to_json(stats))},
                 {"selfplay_seconds", t1 - t0},
                 {"train", trained},
                 {"train_seconds", t2 - t1}};
    if (c.gating_games > 0) line["gating"] = run_gating(c, paths, g, table.get());
    append_line(paths.generations(), line.dump());
    std::fprintf(stderr, "%s: Sente %.3f, ruling41 %.3f, %.1f moves, stacks %.3f/%.3f\n",
                 gen_name(g).c_str(), stats.sente_score, stats.ruling41_rate, stats.mean_moves,
                 stats.stack_rate[0], stats.stack_rate[1]);
    write_report(paths);
  }
  write_report(paths);
  std::cout << "pipeline: " << c.generations << " generations in " << paths.root.string()
            << ", newest network " << paths.checkpoint(c.generations).string() << ", report "
            << (paths.root / "report.html").string() << "\n";
  return 0;
}

}  // namespace

int run_match(const std::string& config_path, const std::vector<std::string>& overrides,
              const std::string& a, const std::string& b, int games) {
  RunConfig c = load_run_config(config_path, overrides);
  std::unique_ptr<KingPairTable> table;
  if (c.kings == "table")
    table = std::make_unique<KingPairTable>(KingPairTable::load(c.king_table));
  json r = network_match(c, a, b, games, Rng::derive(c.seed, 9000), table.get());
  r["a"] = a;
  r["b"] = b;
  std::cout << r.dump() << "\n";
  return 0;
}

void add_pipeline_commands(CLI::App& app, Runner& run) {
  struct MatchArgs {
    std::string config, a, b;
    std::vector<std::string> set;
    int games = 256;
  };
  auto m = std::make_shared<MatchArgs>();
  CLI::App* match = app.add_subcommand(
      "match", "Two placement networks against each other (A's score, 95 % interval)");
  match->add_option("--a", m->a, "Checkpoint A, or 'uniform' for a uniformly random placer")
      ->required();
  match->add_option("--b", m->b, "Checkpoint B, or 'uniform'")->required();
  match->add_option("--games", m->games, "Games per colour (at most; stops once decided)")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  match->add_option("--config", m->config, "TOML run config for rules, kings, play-out, scoring");
  match->add_option("--set", m->set, "Override a setting: section.key=value (repeatable)");
  match->callback([&run, m] {
    run = [m] {
      try {
        return run_match(m->config, m->set, m->a, m->b, m->games);
      } catch (const std::runtime_error& e) {
        std::cerr << "fusekilab: " << e.what() << "\n";
        return 2;
      }
    };
  });

  struct Args {
    std::string config;
    std::vector<std::string> set;
    std::string dir;
    int generations = -1;
    std::string init_from;
  };
  auto a = std::make_shared<Args>();
  CLI::App* p = app.add_subcommand("pipeline",
                                   "Generations of self-play, training and gating on one machine");
  p->add_option("--config", a->config, "TOML run config (see configs/)");
  p->add_option("--set", a->set, "Override a setting: section.key=value (repeatable)");
  p->add_option("--dir", a->dir, "Run directory (run.dir)");
  p->add_option("--generations", a->generations, "Generations to reach (run.generations)")
      ->check(CLI::Range(0, 100000));
  p->add_option("--init-from", a->init_from, "Start from this checkpoint (network.init_from)");
  p->callback([&run, a] {
    run = [a] {
      std::vector<std::string> overrides = a->set;
      if (!a->dir.empty()) overrides.push_back("run.dir=" + a->dir);
      if (a->generations >= 0)
        overrides.push_back("run.generations=" + std::to_string(a->generations));
      if (!a->init_from.empty()) overrides.push_back("network.init_from=" + a->init_from);
      try {
        return run_pipeline(a->config, overrides);
      } catch (const std::runtime_error& e) {
        std::cerr << "fusekilab: " << e.what() << "\n";
        return 2;
      }
    };
  });
}

}  // namespace fuseki::cli
