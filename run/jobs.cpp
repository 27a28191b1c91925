// The jobs of a training run, as the commands run them: the one-machine pipeline, one self-play
// worker of many (optionally following the trainer's networks), the trainer, and a match between
// two placers. The CLI (cli/cmd_pipeline.cpp) only declares flags and calls these.
#include "run/jobs.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "io/clock.h"
#include "io/slice.h"
#include "io/stop.h"
#include "run/run_steps.h"
#include "selfplay/journal.h"

namespace fuseki {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::unique_ptr<KingPairTable> king_table_of(const RunConfig& c) {
  if (c.kings != "table") return nullptr;
  return std::make_unique<KingPairTable>(KingPairTable::load(c.king_table));
}

}  // namespace

namespace {

// The run's own progress once generation g + 1 is published (each step reports its own):
// generations and minutes on the run's clock, and an ETA at the mean generation's pace, capped
// by run.minutes.
void report_run_progress(const char* who, const RunConfig& c, const RunPaths& paths, int g) {
  const StrengthCurves clock = strength_curves(paths);
  const double pace = clock.minutes / std::max(clock.generations, 1);
  double eta = (c.generations - (g + 1)) * pace;
  if (c.minutes > 0) eta = std::min(eta, std::max(c.minutes - clock.minutes, 0.0));
  char of_minutes[48] = "";
  if (c.minutes > 0) std::snprintf(of_minutes, sizeof(of_minutes), " of %g", c.minutes);
  std::fprintf(stderr,
               "%s: %s of %d published, %.1f minutes%s, %.2f minutes a generation, ETA %.1f "
               "minutes\n",
               who, gen_name(g + 1).c_str(), c.generations, clock.minutes, of_minutes, pace, eta);
}

}  // namespace

int run_pipeline(const std::string& config_path, const std::vector<std::string>& overrides) {
  RunConfig c = load_run_config(config_path, overrides);
  RunPaths paths{c.dir};
  init_run(c);
  std::unique_ptr<KingPairTable> table = king_table_of(c);
  int reached = 0;
  for (int g = 0; g < c.generations; ++g, reached = g) {
    if (fs::exists(paths.publication(g + 1))) continue;  // finished before an interruption
    // run.minutes on the run's clock (its generations' wall_seconds, as run.then_minutes counts,
    // so a resumed run stops where an uninterrupted one would): no generation starts that would
    // end past it if it took as long as the one before. A generation whose line is written (it
    // was interrupted before its publication) is finished, only published: its time is already
    // on the clock.
    if (c.minutes > 0 && !generation_line(paths, g)) {
      const StrengthCurves clock = strength_curves(paths);
      if (clock.minutes + clock.last_minutes > c.minutes) {
        std::printf(
            "pipeline: run.minutes = %g: %.1f minutes run, the last generation took %.1f; "
            "stopping before %s's self-play\n",
            c.minutes, clock.minutes, clock.last_minutes, gen_name(g).c_str());
        break;
      }
    }
    double t0 = now_seconds();
    const RunConfig cg = generation_config(c, paths, g);  // run.then's from its generation
    std::vector<int> all(size_t(cg.workers));
    for (int w = 0; w < cg.workers; ++w) all[size_t(w)] = w;
    run_selfplay(cg, paths, g, table.get(), all, cg.workers);
    finish_generation(cg, paths, g, table.get(), now_seconds() - t0);
    report_run_progress("pipeline", c, paths, g);
  }
  write_report(paths);
  std::cout << "pipeline: " << reached << " generations in " << paths.root.string()
            << ", newest network " << paths.checkpoint(reached).string() << ", report "
            << (paths.root / "report.html").string() << "\n";
  return 0;
}

namespace {

// A sign of generation g's self-play progress that changes whenever a game finishes: the games
// in shards and the bytes of the workers' journals. Names and sizes only (the trainer and waiting
// workers poll it every few seconds, on clusters with hundreds of workers and long journals).
uint64_t selfplay_activity(const RunPaths& paths, int g) {
  std::string dir = paths.selfplay(g).string();
  uint64_t n = games_in_shards(dir);
  std::error_code ec;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (name.size() <= 8 || name.compare(name.size() - 8, 8, ".journal") != 0) continue;
      uintmax_t bytes = fs::file_size(e.path(), ec);
      if (!ec) n += bytes;
    }
  return n;
}

// What a waiting worker sees of a run's progress after generation g's self-play: games, the
// trainer's metrics and generation lines, the networks (any change is a sign of life).
std::string run_activity(const RunPaths& paths, int g) {
  std::string out = std::to_string(selfplay_activity(paths, g));
  std::error_code ec;
  // (Appended piece by piece: GCC 12 warns falsely on " " + std::to_string(...).)
  for (const fs::path& p : {paths.metrics(), paths.generations()}) {
    out += ' ';
    out += std::to_string(fs::file_size(p, ec));
  }
  if (fs::is_directory(paths.models()))
    for (const auto& e : fs::directory_iterator(paths.models())) {
      out += ' ';
      out += e.path().filename().string();
      out += ':';
      out += std::to_string(fs::file_size(e.path(), ec));
    }
  return out;
}

}  // namespace

// One worker's share of a generation; with `follow`, of every generation as the trainer publishes
// it, until run.generations is reached (a long-running worker, as in KataGo's self-play).
int run_worker(const std::string& dir, const std::vector<std::string>& overrides,
               const std::string& worker, int generation, bool follow, double poll,
               double timeout) {
  RunConfig c = load_run(dir, overrides);
  RunPaths paths{c.dir};
  Slice slice = worker.empty() ? slice_from_slurm("--worker") : parse_slice(worker, "--worker");
  int id = slice.index, count = slice.count;
  auto newest = [&] {
    std::optional<Publication> p = newest_publication(paths);
    if (!p) throw std::runtime_error(dir + ": no network is published yet");
    return p->generation;
  };
  if (generation < 0) generation = newest();
  std::unique_ptr<KingPairTable> table = king_table_of(c);
  while (true) {
    double t0 = now_seconds();
    const RunConfig cg = generation_config(c, paths, generation);
    run_selfplay(cg, paths, generation, table.get(), {id}, count);
    std::cout << "selfplay: worker " << id << "/" << count << " finished its "
              << worker_games(cg.games, id, count) << " games of " << gen_name(generation) << " in "
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

namespace {

// Waits until generation g's shards hold all its games: 0 when they do; 3 after `timeout`
// seconds in which no game finished (0: never); with `no_wait`, 4 at once when games are
// missing, naming each worker whose share is not in shards.
int wait_for_selfplay(const RunConfig& c, const RunPaths& paths, int g, double poll, double timeout,
                      bool no_wait) {
  double start = now_seconds(), last_report = -1e9, quiet_since = start;
  uint64_t first = games_in_shards(paths.selfplay(g).string());
  uint64_t activity = selfplay_activity(paths, g);
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
    if (uint64_t now = selfplay_activity(paths, g); now != activity) {
      activity = now;
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

}  // namespace

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
    const RunConfig cg = generation_config(c, paths, g);
    if (int rc = wait_for_selfplay(cg, paths, g, poll, timeout, no_wait)) return rc;
    finish_generation(cg, paths, g, table.get(), now_seconds() - t0);
    report_run_progress("train", c, paths, g);
  }
  write_report(paths);
  std::cout << "train: " << dir << " at " << gen_name(std::max(c.generations, newest->generation))
            << " (" << paths.latest().string() << ")\n";
  return 0;
}

int run_match(const std::string& config_path, const std::vector<std::string>& overrides,
              const std::string& a, const std::string& b, int games, const std::string& out) {
  check_output_path("match: --out", out);
  check_outputs_apart("match",
                      {{"--out", out}, {"--out's journal", out.empty() ? "" : out + ".journal"}},
                      {{"--a", a}, {"--b", b}, {"--config", config_path}});
  RunConfig c = load_run_config(config_path, overrides);
  std::unique_ptr<KingPairTable> table = king_table_of(c);
  const std::string journal = out.empty() ? "" : out + ".journal";
  json r = network_match(c, a, b, games, Rng::derive(c.seed, 9000), table.get(), journal);
  r["a"] = a;
  r["b"] = b;
  std::cout << r.dump() << "\n";
  if (!out.empty()) {
    write_file_atomically(out, r.dump(1) + "\n");
    fs::remove(journal);  // its games are in the result
  }
  return 0;
}

}  // namespace fuseki
