// The steps of a training run over a run directory, shared by the one-machine `pipeline` and the
// stateless cluster commands (`init`, `selfplay`, `train`): the directory is the only
// coordination. Layout (docs/cluster.md):
//   config.toml                  the run's resolved config, written once by init
//   models/gen-NNNN.ckpt         networks, each written atomically
//   models/gen-NNNN.json         its publication: the network generation N's self-play uses (the
//                                best so far: file, FNV-1a 64 of its bytes, which generation it
//                                is, whether gen-N's candidate was accepted and why)
//   models/latest.json           the newest publication (same content), replaced atomically
//   selfplay/gen-NNNN/           shards w<worker>-g<first>-n<games>.h5 (+ .records), journals,
//                                workers (the worker count the games are split over), locks
//   train/metrics.jsonl, generations.jsonl, report.html
//   stage.json                   where run.then's second stage began (second_stage_start)
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "eval/calibration.h"
#include "eval/chart.h"
#include "io/clock.h"
#include "io/file_lock.h"
#include "io/progress.h"
#include "run/run_config.h"
#include "selfplay/king_table.h"
#include "selfplay/shard.h"

namespace fuseki {

std::string gen_name(int g);

struct RunPaths {
  std::filesystem::path root;
  std::filesystem::path config() const { return root / "config.toml"; }
  std::filesystem::path models() const { return root / "models"; }
  std::filesystem::path checkpoint(int g) const { return models() / (gen_name(g) + ".ckpt"); }
  std::filesystem::path partial(int g) const { return models() / (gen_name(g) + ".partial.ckpt"); }
  std::filesystem::path publication(int g) const { return models() / (gen_name(g) + ".json"); }
  std::filesystem::path latest() const { return models() / "latest.json"; }
  // The finished games of generation g's gating match or strength measurement (`what`), kept
  // until the generation's line is written (eval/match_journal.h).
  std::filesystem::path journal(int g, const std::string& what) const {
    return models() / (gen_name(g) + "." + what + ".journal");
  }
  std::filesystem::path selfplay(int g) const { return root / "selfplay" / gen_name(g); }
  std::filesystem::path metrics() const { return root / "train" / "metrics.jsonl"; }
  std::filesystem::path generations() const { return root / "generations.jsonl"; }
  std::filesystem::path stage() const { return root / "stage.json"; }
};

// A published network.
struct Publication {
  int generation = 0;
  std::string name;  // gen-NNNN
  std::string file;  // path of the checkpoint self-play uses: the best network so far
  std::string hash;  // FNV-1a 64 of the checkpoint file's bytes, 16 hex digits
  std::string best;  // the generation whose network that is (gen-NNNN)
  // The move-41 evaluation's calibration for this generation's self-play (fitted to the games
  // before it); none: the config's eval_scale, bias 0.
  std::optional<EvalCalibration> calibration;
};

// What a generation's self-play uses: its own candidate, or the best before it.
struct Selection {
  std::string best;  // gen-NNNN
  bool accepted = true;
  std::string why;
  std::optional<EvalCalibration> calibration;
};

void append_line(const std::filesystem::path& p, const std::string& line);

// The settings a step of an existing run may change (--set): resources, not results.
std::string resource_settings();

// Starts a run in c.dir: writes config.toml and generation 0 (fresh, or network.init_from) and
// publishes it. Idempotent: a directory already holding this run is left as it is; one holding a
// run with other settings is refused (run.generations, run.device and thread counts may differ).
void init_run(const RunConfig& c);
// The config of the run in `dir` (its config.toml), with resource settings from `overrides`
// (run.device, run.generations and the thread counts only; anything else is refused).
RunConfig load_run(const std::string& dir, const std::vector<std::string>& overrides);

// Publishes gen-g: gen-g.json naming the network of `selection.best` (its checkpoint must exist),
// then latest.json, both atomically.
Publication publish(const RunPaths& paths, int g, const Selection& selection);
// The newest publication, or none when nothing is published yet.
std::optional<Publication> newest_publication(const RunPaths& paths);
// The publication of gen-g; throws when gen-g is not published or its file does not match.
Publication checked_publication(const RunPaths& paths, int g);

// Games worker `w` of `n` plays in a generation of `games`.
uint64_t worker_games(int games, int w, int n);
// Plays the shares of `worker_ids` (of `workers` in all) of generation g's self-play, one thread
// each, resuming what their journals and shards hold. Two processes never run one worker: each
// holds a lock on selfplay/gen-g/w<id>.lock. The worker count of a generation is fixed by its
// first worker (selfplay/gen-g/workers); another count is refused.
void run_selfplay(const RunConfig& c, const RunPaths& paths, int g, const KingPairTable* table,
                  const std::vector<int>& worker_ids, int workers);
// What is missing from generation g's self-play: one line per worker whose share is not all in
// shards (its games in shards and in its journal, whether a process holds it now); empty when
// every game is in a shard.
std::vector<std::string> incomplete_selfplay(const RunConfig& c, const RunPaths& paths, int g);
// Every game of generation g's finished shards.
std::vector<GameRow> generation_games(const RunPaths& paths, int g);

// run.then's second stage: the generation whose self-play begins it, once the run has reached
// it (stage.json, written when the generation before it is finished); none before.
std::optional<int> second_stage_start(const RunPaths& paths);
// The settings generation g runs with: the second stage's (second_stage) from its first
// generation on, else c.
RunConfig generation_config(const RunConfig& c, const RunPaths& paths, int g);

// Trains gen-g into gen-(g+1) (resuming a partial run exactly), without publishing it. The
// second stage's first training starts from the best network, and the second stage trains on
// its own games only.
nlohmann::json run_training(const RunConfig& c, const RunPaths& paths, int g);
// After self-play of gen-g: training, publication of gen-(g+1), gating, the generations.jsonl
// line and the report.
void finish_generation(const RunConfig& c, const RunPaths& paths, int g, const KingPairTable* table,
                       double selfplay_seconds);

// A match between two networks (or "uniform"), each taking both colours, stopped once decided:
// by the SPRT (gating.rule = sprt), else once the 95 % interval of A's score excludes 50 %.
// Its verdict: better, not better (SPRT H0), worse, or undecided. With `journal`, finished games
// are journalled there as they end (eval/match_journal.h): a stopped or killed match run again
// goes on from its last finished step of games (selfplay.batch pairs), with the same result.
nlohmann::json network_match(const RunConfig& c, const std::string& a_path,
                             const std::string& b_path, int games_per_colour, uint64_t seed,
                             const KingPairTable* table, const std::string& journal = {});

void write_report(const RunPaths& paths);
// Generation g's line of generations.jsonl (written when its training, gate and measurement are
// done, before its publication), if it is there.
std::optional<nlohmann::json> generation_line(const RunPaths& paths, int g);
// A run's strength measurements ([strength]), one series per reference ("vs uniform"), by
// generation and by the run's wall-clock minutes (each generation's wall_seconds: self-play,
// training, gate, measurement; runs from before it was recorded: the phases without the
// measurement).
struct StrengthCurves {
  std::map<std::string, Series> by_generation, by_minutes;
  double minutes = 0;       // of the whole run so far
  double last_minutes = 0;  // of its newest generation
  int generations = 0;
};
StrengthCurves strength_curves(const RunPaths& paths);
// fusekilab compare: the runs' Elo against `reference` by wall-clock minutes in one chart (SVG,
// written atomically to `out`), and a summary per run on stdout (generations, minutes, best
// network and its measured Elo, the highest measured). Throws naming a directory that is not a
// run or has no measurement against the reference. `starts` (empty, or one a run): the minute
// at which each run's clock begins, for a run that went on from another's network.
void compare_runs(const std::vector<std::string>& dirs, const std::vector<std::string>& labels,
                  const std::string& reference, const std::string& out,
                  const std::vector<double>& starts = {});

}  // namespace fuseki
