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
#include "cli/option_flags.h"
#include "run/jobs.h"
#include "run/run_config.h"
#include "run/run_steps.h"

namespace fuseki::cli {
namespace {

// A flag for every run setting (--selfplay.games 64, as --set selfplay.games=64).
std::shared_ptr<OptionFlags> run_config_flags(CLI::App* command) {
  auto flags = std::make_shared<OptionFlags>();
  auto scratch = std::make_shared<RunConfig>();
  flags->add(command, scratch, run_config_sections(*scratch));
  return flags;
}

// --set values, then the flags (both over the config file).
std::vector<std::string> with_flags(std::vector<std::string> set, const OptionFlags& flags) {
  set.insert(set.end(), flags.overrides().begin(), flags.overrides().end());
  return set;
}

}  // namespace

void add_pipeline_commands(CLI::App& app, Runner& run) {
  struct MatchArgs {
    std::string config, a, b, out;
    std::vector<std::string> set;
    int games = 256;
  };
  auto m = std::make_shared<MatchArgs>();
  CLI::App* match = app.add_subcommand(
      "match", "Two placement networks against each other (A's score, 95 % interval)");
  match
      ->add_option("--a", m->a,
                   "Checkpoint or .onnx network A, or 'uniform' for a uniformly random placer")
      ->required();
  match->add_option("--b", m->b, "Checkpoint or .onnx network B, or 'uniform'")->required();
  match->add_option("--games", m->games, "Games per colour (at most; stops once decided)")
      ->check(integer_in(1, 10000000))
      ->capture_default_str();
  match->add_option("--config", m->config, "TOML run config for rules, kings, play-out, scoring");
  match->add_option("--set", m->set, "Override a setting: section.key=value (repeatable)");
  match->add_option("--out", m->out,
                    "Also write the result (JSON) to this file; its games are journalled beside "
                    "it (FILE.journal) until then, so a stopped match run again goes on where it "
                    "stopped");
  auto match_flags = run_config_flags(match);
  match->callback([&run, m, match_flags] {
    run = [m, match_flags] {
      return run_match(m->config, with_flags(m->set, *match_flags), m->a, m->b, m->games, m->out);
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
      ->check(integer_in(0, 100000));
  p->add_option("--init-from", a->init_from,
                "Start from this checkpoint or .onnx network (network.init_from)");
  p->add_option("--device", a->device,
                "cpu, cuda or cuda:N for inference and training (run.device)");
  auto pipeline_flags = run_config_flags(p);
  p->callback([&run, a, pipeline_flags] {
    run = [a, pipeline_flags] {
      std::vector<std::string> overrides = with_flags(a->set, *pipeline_flags);
      if (!a->dir.empty()) overrides.push_back("run.dir=" + a->dir);
      if (a->generations >= 0)
        overrides.push_back("run.generations=" + std::to_string(a->generations));
      if (!a->init_from.empty()) overrides.push_back("network.init_from=" + a->init_from);
      if (!a->device.empty()) overrides.push_back("run.device=" + a->device);
      return run_pipeline(a->config, overrides);
    };
  });

  // Runs side by side: Elo against a reference by wall-clock time.
  struct CompareArgs {
    std::vector<std::string> dirs, labels;
    std::vector<double> starts;
    std::string reference = "uniform", out = "compare.svg";
  };
  auto ca = std::make_shared<CompareArgs>();
  CLI::App* cmp = app.add_subcommand(
      "compare", "Runs side by side: each run's Elo against a reference by wall-clock minutes");
  cmp->add_option("runs", ca->dirs, "Run directories")->required();
  cmp->add_option("--label", ca->labels, "A name for each run in the chart (in order)");
  cmp->add_option("--start-minute", ca->starts,
                  "Where each run's clock starts in the chart (in order; default 0 each): a run "
                  "started from another run's network at that minute (network.init_from)")
      ->check(number_in(0.0, 1e7));
  cmp->add_option("--reference", ca->reference,
                  "The reference measured against ([strength] references)")
      ->capture_default_str();
  cmp->add_option("--out", ca->out, "The chart (SVG)")->capture_default_str();
  cmp->callback([&run, ca] {
    run = [ca] {
      compare_runs(ca->dirs, ca->labels, ca->reference, ca->out, ca->starts);
      return 0;
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
  auto init_flags = run_config_flags(init);
  init->callback([&run, ia, init_flags] {
    run = [ia, init_flags] {
      std::vector<std::string> overrides = with_flags(ia->set, *init_flags);
      overrides.push_back("run.dir=" + ia->dir);
      RunConfig c = load_run_config(ia->config, overrides);
      init_run(c);
      std::cout << "init: " << ia->dir << " holds the run; " << gen_name(0) << " published\n";
      return 0;
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
      ->check(integer_in(0, 100000));
  sp->add_flag("--follow", wa->follow,
               "Go on with each newer network the trainer publishes, until run.generations");
  sp->add_option("--poll", wa->poll, "Seconds between looks for a new network (--follow)")
      ->check(number_in(0.05, 3600.0))
      ->capture_default_str();
  sp->add_option("--timeout", wa->timeout,
                 "Give up (exit 3) when, waiting for a network, this many seconds pass without "
                 "any sign of the trainer (a new network, a metrics line); 0: never")
      ->check(number_in(0.0, 1e9))
      ->capture_default_str();
  sp->add_option("--device", wa->device, "cpu, cuda or cuda:N for inference (run.device)");
  sp->add_option("--set", wa->set,
                 "A resource setting, key=value (repeatable): " + resource_settings());
  sp->callback([&run, wa] {
    run = [wa] {
      std::vector<std::string> overrides = wa->set;
      if (!wa->device.empty()) overrides.push_back("run.device=" + wa->device);
      return run_worker(wa->dir, overrides, wa->worker, wa->generation, wa->follow, wa->poll,
                        wa->timeout);
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
      ->check(integer_in(0, 100000));
  tr->add_option("--poll", ta->poll, "Seconds between looks for new shards")
      ->check(number_in(0.05, 3600.0))
      ->capture_default_str();
  tr->add_option("--timeout", ta->timeout,
                 "Give up (exit 3) when, waiting for a generation's self-play, this many seconds "
                 "pass without a game finishing; 0: never")
      ->check(number_in(0.0, 1e9))
      ->capture_default_str();
  tr->add_flag("--no-wait", ta->no_wait,
               "Do not wait for self-play: when a generation's games are not all in shards, name "
               "each worker whose share is missing and exit 4 (for a trainer job that starts "
               "once the self-play array has ended, --dependency=afterany)");
  tr->add_option("--device", ta->device, "cpu, cuda or cuda:N for training (run.device)");
  tr->add_option("--set", ta->set,
                 "A resource setting, key=value (repeatable): " + resource_settings());
  tr->callback([&run, ta] {
    run = [ta] {
      std::vector<std::string> overrides = ta->set;
      if (ta->generations >= 0)
        overrides.push_back("run.generations=" + std::to_string(ta->generations));
      if (!ta->device.empty()) overrides.push_back("run.device=" + ta->device);
      return run_trainer(ta->dir, overrides, ta->poll, ta->timeout, ta->no_wait);
    };
  });
}

}  // namespace fuseki::cli
