// Training subcommands over a run directory: pipeline (everything on one machine), and the
// stateless steps a cluster runs as separate jobs: init, selfplay (one worker of many) and train
// (waits for a generation's self-play, trains and publishes the next network). See run_steps.h.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/commands.h"
#include "cli/run_config.h"
#include "cli/run_steps.h"
#include "io/stop.h"
#include "selfplay/journal.h"

namespace fuseki::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::unique_ptr<KingPairTable> king_table_of(const RunConfig& c) {
  if (c.kings != "table") return nullptr;
  return std::make_unique<KingPairTable>(KingPairTable::load(c.king_table));
}

int run_pipeline(const std::string& config_path, const std::vector<std::string>& overrides) {
  RunConfig c = load_run_config(config_path, overrides);
  RunPaths paths{c.dir};
  init_run(c);
  std::unique_ptr<KingPairTable> table = king_table_of(c);
  std::vector<int> all(size_t(c.workers));
  for (int w = 0; w < c.workers; ++w) all[size_t(w)] = w;
  for (int g = 0; g < c.generations; ++g) {
    if (fs::exists(paths.publication(g + 1))) continue;  // finished before an interruption
    double t0 = now_seconds();
    run_selfplay(c, paths, g, table.get(), all, c.workers);
    finish_generation(c, paths, g, table.get(), now_seconds() - t0);
  }
  write_report(paths);
  std::cout << "pipeline: " << c.generations << " generations in " << paths.root.string()
            << ", newest network " << paths.checkpoint(c.generations).string() << ", report "
            << (paths.root / "report.html").string() << "\n";
  return 0;
}

// Games finished in generation g: in shards and in the workers' journals.
uint64_t games_finished(const RunPaths& paths, int g) {
  std::string dir = paths.selfplay(g).string();
  uint64_t n = games_in_shards(dir);
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir)) {
      std::string name = e.path().filename().string();
      int w = -1;
      if (name.size() == 12 && name.compare(4, 8, ".journal") == 0 &&
          std::sscanf(name.c_str(), "w%3d", &w) == 1)
        n += games_in_journal(dir, w);
    }
  return n;
}

// What a waiting worker sees of a run's progress after generation g's self-play: games, the
// trainer's metrics and generation lines, the networks (any change is a sign of life).
std::string run_activity(const RunPaths& paths, int g) {
  std::string out = std::to_string(games_finished(paths, g));
  std::error_code ec;
  for (const fs::path& p : {paths.metrics(), paths.generations()})
    out += " " + std::to_string(fs::file_size(p, ec));
  if (fs::is_directory(paths.models()))
    for (const auto& e : fs::directory_iterator(paths.models()))
      out += " " + e.path().filename().string() + ":" + std::to_string(fs::file_size(e.path(), ec));
  return out;
}

// "i/n" from --worker, or from Slurm's array variables when --worker is not given.
void parse_worker(const std::string& text, int& id, int& count) {
  std::string t = text;
  if (t.empty()) {
    const char* i = std::getenv("SLURM_ARRAY_TASK_ID");
    const char* n = std::getenv("SLURM_ARRAY_TASK_COUNT");
    if (!i || !n)
      throw std::runtime_error(
          "--worker i/n not given and not in a Slurm array (no SLURM_ARRAY_TASK_ID/COUNT)");
    t = std::string(i) + "/" + n;
  }
  char tail = 0;
  if (std::sscanf(t.c_str(), "%d/%d%c", &id, &count, &tail) != 2 || count < 1 || id < 0 ||
      id >= count)
    throw std::runtime_error("--worker '" + t + "': expected i/n with 0 <= i < n");
}

// One worker's share of a generation; with `follow`, of every generation as the trainer publishes
// it, until run.generations is reached (a long-running worker, as in KataGo's self-play).
int run_worker(const std::string& dir, const std::vector<std::string>& overrides,
               const std::string& worker, int generation, bool follow, double poll,
               double timeout) {
  RunConfig c = load_run(dir, overrides);
  RunPaths paths{c.dir};
  int id = 0, count = 1;
  parse_worker(worker, id, count);
  auto newest = [&] {
    std::optional<Publication> p = newest_publication(paths);
    if (!p) throw std::runtime_error(dir + ": no network is published yet");
    return p->generation;
  };
  if (generation < 0) generation = newest();
  std::unique_ptr<KingPairTable> table = king_table_of(c);
  while (true) {
    double t0 = now_seconds();
    run_selfplay(c, paths, generation, table.get(), {id}, count);
    std::cout << "selfplay: worker " << id << "/" << count << " finished its "
              << worker_games(c.games, id, count) << " games of " << gen_name(generation) << " in "
              << paths.selfplay(generation).string() << " (" << now_seconds() - t0 << " s)"
              << std::endl;
    if (!follow || generation + 1 >= c.generations) return 0;
    // Wait for the trainer to publish the next network, as long as the run shows signs of life.
    std::string seen = run_activity(paths, generation);
    double quiet_since = now_seconds();
    while (newest() <= generation) {
      std::string now = run_activity(paths, generation);
      if (now != seen) {
        seen = now;
        quiet_since = now_seconds();
      }
      if (timeout > 0 && now_seconds() - quiet_since > timeout) {
        std::cerr << "fusekilab: selfplay: timed out waiting for " << gen_name(generation + 1)
                  << " to be published: no sign of the trainer for " << timeout << " s\n";
        return 3;
      }
      if (!sleep_unless_stopped(poll)) throw_if_stopped();
    }
    generation = newest();
  }
}

// Waits until generation g's shards hold all its games: 0 when they do; 3 after `timeout`
// seconds in which no game finished (0: never); with `no_wait`, 4 at once when games are
// missing, naming each worker whose share is not in shards.
int wait_for_selfplay(const RunConfig& c, const RunPaths& paths, int g, double poll, double timeout,
                      bool no_wait) {
  double start = now_seconds(), last_report = -1e9, quiet_since = start;
  uint64_t first = games_in_shards(paths.selfplay(g).string());
  uint64_t finished = games_finished(paths, g);
  while (true) {
    uint64_t have = games_in_shards(paths.selfplay(g).string());
    if (have > uint64_t(c.games))
      throw std::runtime_error(paths.selfplay(g).string() + ": " + std::to_string(have) +
                               " games in shards, more than the " + std::to_string(c.games) +
                               " of a generation");
    if (have == uint64_t(c.games)) return 0;
    if (no_wait) {
      std::cerr << "fusekilab: train: the self-play of " << gen_name(g) << " is incomplete ("
                << have << " of " << c.games << " games in shards in " << paths.selfplay(g).string()
                << "):\n";
      for (const std::string& line : incomplete_selfplay(c, paths, g))
        std::cerr << "  " << line << "\n";
      std::cerr << "fusekilab: train: run the missing workers again (fusekilab selfplay --dir "
                << paths.root.string() << " --generation " << g << " --worker i/n), then train\n";
      return 4;
    }
    uint64_t now_finished = games_finished(paths, g);
    if (now_finished != finished) {
      finished = now_finished;
      quiet_since = now_seconds();
    }
    double t = now_seconds() - start;
    if (timeout > 0 && now_seconds() - quiet_since > timeout) {
      std::cerr << "fusekilab: train: timed out: no self-play game of " << gen_name(g)
                << " finished in " << timeout << " s (" << have << " of " << c.games
                << " games in shards in " << paths.selfplay(g).string() << ")\n";
      for (const std::string& line : incomplete_selfplay(c, paths, g))
        std::cerr << "  " << line << "\n";
      return 3;
    }
    if (t - last_report >= 10) {
      double rate = double(have - first) / std::max(t, 1e-9);
      std::fprintf(stderr,
                   "train: waiting for self-play of %s: %llu/%d games in shards, %.2f/s, "
                   "ETA %s\n",
                   gen_name(g).c_str(), (unsigned long long)have, c.games, rate,
                   rate > 0 ? (std::to_string(int((c.games - have) / rate)) + " s").c_str() : "?");
      last_report = t;
    }
    if (!sleep_unless_stopped(poll)) throw_if_stopped();
  }
}

int run_trainer(const std::string& dir, const std::vector<std::string>& overrides, double poll,
                double timeout, bool no_wait) {
  RunConfig c = load_run(dir, overrides);
  RunPaths paths{c.dir};
  FileLock lock(paths.models() / "trainer.lock", "a trainer of " + dir);
  std::unique_ptr<KingPairTable> table = king_table_of(c);
  std::optional<Publication> newest = newest_publication(paths);
  if (!newest) throw std::runtime_error(dir + ": no network is published yet");
  for (int g = newest->generation; g < c.generations; ++g) {
    double t0 = now_seconds();
    if (int rc = wait_for_selfplay(c, paths, g, poll, timeout, no_wait)) return rc;
    finish_generation(c, paths, g, table.get(), now_seconds() - t0);
  }
  write_report(paths);
  std::cout << "train: " << dir << " at " << gen_name(std::max(c.generations, newest->generation))
            << " (" << paths.latest().string() << ")\n";
  return 0;
}

}  // namespace

int run_match(const std::string& config_path, const std::vector<std::string>& overrides,
              const std::string& a, const std::string& b, int games) {
  RunConfig c = load_run_config(config_path, overrides);
  std::unique_ptr<KingPairTable> table = king_table_of(c);
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
    std::string init_from, device;
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
  p->add_option("--device", a->device,
                "cpu, cuda or cuda:N for inference and training (run.device)");
  p->callback([&run, a] {
    run = [a] {
      std::vector<std::string> overrides = a->set;
      if (!a->dir.empty()) overrides.push_back("run.dir=" + a->dir);
      if (a->generations >= 0)
        overrides.push_back("run.generations=" + std::to_string(a->generations));
      if (!a->init_from.empty()) overrides.push_back("network.init_from=" + a->init_from);
      if (!a->device.empty()) overrides.push_back("run.device=" + a->device);
      try {
        return run_pipeline(a->config, overrides);
      } catch (const std::runtime_error& e) {
        std::cerr << "fusekilab: " << e.what() << "\n";
        return 2;
      }
    };
  });

  // The cluster steps. Each is stateless: killed or requeued, it is simply started again.
  struct InitArgs {
    std::string config, dir;
    std::vector<std::string> set;
  };
  auto ia = std::make_shared<InitArgs>();
  CLI::App* init = app.add_subcommand(
      "init", "Start a run directory: its config and the published generation-0 network");
  init->add_option("--config", ia->config, "TOML run config (see configs/)");
  init->add_option("--set", ia->set, "Override a setting: section.key=value (repeatable)");
  init->add_option("--dir", ia->dir, "Run directory (run.dir)")->required();
  init->callback([&run, ia] {
    run = [ia] {
      std::vector<std::string> overrides = ia->set;
      overrides.push_back("run.dir=" + ia->dir);
      try {
        RunConfig c = load_run_config(ia->config, overrides);
        init_run(c);
        std::cout << "init: " << ia->dir << " holds the run; " << gen_name(0) << " published\n";
        return 0;
      } catch (const std::runtime_error& e) {
        std::cerr << "fusekilab: " << e.what() << "\n";
        return 2;
      }
    };
  });

  struct WorkerArgs {
    std::string dir, worker, device;
    std::vector<std::string> set;
    int generation = -1;
    bool follow = false;
    double poll = 2, timeout = 0;
  };
  auto wa = std::make_shared<WorkerArgs>();
  CLI::App* sp = app.add_subcommand(
      "selfplay", "One self-play worker of a run directory: plays its share of a generation");
  sp->add_option("--dir", wa->dir, "Run directory (made by init)")->required();
  sp->add_option("--worker", wa->worker,
                 "i/n: this worker's id and the worker count (default: from a Slurm array, "
                 "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT)");
  sp->add_option("--generation", wa->generation,
                 "Generation to play (default: the newest published network)")
      ->check(CLI::Range(0, 100000));
  sp->add_flag("--follow", wa->follow,
               "Go on with each newer network the trainer publishes, until run.generations");
  sp->add_option("--poll", wa->poll, "Seconds between looks for a new network (--follow)")
      ->check(CLI::Range(0.05, 3600.0))
      ->capture_default_str();
  sp->add_option("--timeout", wa->timeout,
                 "Give up (exit 3) when, waiting for a network, this many seconds pass without "
                 "any sign of the trainer (a new network, a metrics line); 0: never")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  sp->add_option("--device", wa->device, "cpu, cuda or cuda:N for inference (run.device)");
  sp->add_option("--set", wa->set,
                 "Resource setting: run.device, selfplay.playout_threads, "
                 "selfplay.inference_threads (repeatable)");
  sp->callback([&run, wa] {
    run = [wa] {
      try {
        std::vector<std::string> overrides = wa->set;
        if (!wa->device.empty()) overrides.push_back("run.device=" + wa->device);
        return run_worker(wa->dir, overrides, wa->worker, wa->generation, wa->follow, wa->poll,
                          wa->timeout);
      } catch (const std::runtime_error& e) {
        std::cerr << "fusekilab: " << e.what() << "\n";
        return 2;
      }
    };
  });

  struct TrainArgs {
    std::string dir, device;
    std::vector<std::string> set;
    int generations = -1;
    double poll = 2, timeout = 0;
    bool no_wait = false;
  };
  auto ta = std::make_shared<TrainArgs>();
  CLI::App* tr = app.add_subcommand(
      "train",
      "The trainer of a run directory: waits for each generation's self-play, trains, "
      "publishes the next network");
  tr->add_option("--dir", ta->dir, "Run directory (made by init)")->required();
  tr->add_option("--generations", ta->generations,
                 "Train until this generation is published (default: run.generations)")
      ->check(CLI::Range(0, 100000));
  tr->add_option("--poll", ta->poll, "Seconds between looks for new shards")
      ->check(CLI::Range(0.05, 3600.0))
      ->capture_default_str();
  tr->add_option("--timeout", ta->timeout,
                 "Give up (exit 3) when, waiting for a generation's self-play, this many seconds "
                 "pass without a game finishing; 0: never")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  tr->add_flag("--no-wait", ta->no_wait,
               "Do not wait for self-play: when a generation's games are not all in shards, name "
               "each worker whose share is missing and exit 4 (for a trainer job that starts "
               "once the self-play array has ended, --dependency=afterany)");
  tr->add_option("--device", ta->device, "cpu, cuda or cuda:N for training (run.device)");
  tr->add_option("--set", ta->set, "Resource setting: run.device, train.threads (repeatable)");
  tr->callback([&run, ta] {
    run = [ta] {
      std::vector<std::string> overrides = ta->set;
      if (ta->generations >= 0)
        overrides.push_back("run.generations=" + std::to_string(ta->generations));
      if (!ta->device.empty()) overrides.push_back("run.device=" + ta->device);
      try {
        return run_trainer(ta->dir, overrides, ta->poll, ta->timeout, ta->no_wait);
      } catch (const std::runtime_error& e) {
        std::cerr << "fusekilab: " << e.what() << "\n";
        return 2;
      }
    };
  });
}

}  // namespace fuseki::cli
