#include "run/run_steps.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "eval/chart.h"
#include "eval/match_journal.h"
#include "eval/placement_maps.h"
#include "eval/placer_match.h"
#include "eval/stats.h"
#include "eval/strength.h"
#include "io/atomic_file.h"
#include "io/clock.h"
#include "io/journal.h"
#include "io/settings.h"
#include "io/stop.h"
#include "net/checkpoint.h"
#include "net/evaluator.h"
#include "selfplay/generator.h"
#include "selfplay/journal.h"
#include "selfplay/king_table.h"
#include "selfplay/network_placer.h"
#include "train/trainer.h"

namespace fuseki {

namespace fs = std::filesystem;
using nlohmann::json;

std::string gen_name(int g) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "gen-%04d", g);
  return buf;
}

void append_line(const fs::path& p, const std::string& line) {
  fs::create_directories(p.parent_path());
  append_log_line(p.string(), line);  // a line torn by a kill is not joined to the next
}

namespace {

// Settings that change where and how fast a run computes, not what it computes.
const std::set<std::string> kResourceKeys = {"run.device",
                                             "run.generations",
                                             "run.minutes",
                                             "selfplay.playout_threads",
                                             "selfplay.inference_threads",
                                             "train.threads"};

RunConfig without_resources(RunConfig c) {
  RunConfig d;
  c.device = d.device;
  c.generations = d.generations;
  c.minutes = d.minutes;
  c.playout_threads = d.playout_threads;
  c.inference_threads = d.inference_threads;
  c.train_threads = d.train_threads;
  return c;
}

TrainOptions train_options(const RunConfig& c) {
  TrainOptions o;
  o.batch_size = c.batch_size;
  o.learning_rate = c.learning_rate;
  o.weight_decay = c.weight_decay;
  o.value_weight = c.value_weight;
  o.entropy_weight = c.entropy_weight;
  o.q_weight = c.q_weight;
  o.device = c.device;
  o.threads = c.train_threads;
  o.precision = c.train_precision;
  o.target = c.train_target == "search" ? TrainTarget::Search : TrainTarget::PolicyGradient;
  o.reanalyse = c.reanalyse;
  if (c.placer == "rollout") o.reanalyse_before_ply = c.rollout_from_ply;
  o.mirror = c.mirror;
  o.c_visit = c.search_c_visit;
  o.c_scale = c.search_c_scale;
  return o;
}

json calibration_json(const EvalCalibration& e) {
  return {{"scale", e.scale}, {"bias", e.bias}, {"games", e.games}, {"log_loss", e.log_loss}};
}

EvalCalibration calibration_from_json(const json& e) {
  return {e.at("scale").get<double>(), e.at("bias").get<double>(), e.at("games").get<int>(),
          e.value("log_loss", 0.0)};
}

Publication read_publication(const fs::path& p, const RunPaths& paths) {
  json j;
  try {
    j = json::parse(read_file(p.string()));
    Publication pub;
    pub.generation = j.at("generation").get<int>();
    pub.name = j.at("name").get<std::string>();
    pub.file = (paths.models() / j.at("file").get<std::string>()).string();
    pub.hash = j.at("hash").get<std::string>();
    pub.best = j.value("best", pub.name);  // publications before gating: their own network
    if (j.contains("eval_calibration"))
      pub.calibration = calibration_from_json(j["eval_calibration"]);
    return pub;
  } catch (const json::exception& e) {
    throw std::runtime_error(p.string() + ": not a network publication (" + e.what() + ")");
  }
}

// The calibration generation g's self-play used: its publication's, else the config's scale.
EvalCalibration calibration_of(const RunConfig& c, const Publication& pub) {
  return pub.calibration ? *pub.calibration : EvalCalibration{c.eval_scale, 0, 0, 0};
}

SelfPlayOptions selfplay_options(const RunConfig& c, int generation, const KingPairTable* table) {
  SelfPlayOptions o;
  o.rules = c.rules;
  o.seed = Rng::derive(c.seed, 1000 + uint64_t(generation));  // each generation its own games
  o.batch = c.batch;
  o.temperature = c.temperature;
  if (c.placer == "gumbel")
    o.search = GumbelOptions{c.search_k, c.search_c_visit, c.search_c_scale};
  if (c.placer == "rollout") {
    RolloutOptions r;
    r.k = c.search_k;
    r.rollouts = c.rollouts;
    r.engine = c.eval_engine;
    r.nodes = uint64_t(c.rollout_nodes);
    r.scale = c.eval_scale;  // the worker sets the generation's fitted one
    r.own_temperature = c.rollout_temperature;
    r.opponent_temperature = c.temperature;
    r.uniform_opponent = c.rollout_opponent == "uniform";
    r.c_visit = c.search_c_visit;
    r.c_scale = c.search_c_scale;
    r.from_ply = c.rollout_from_ply;
    r.play_policy = c.rollout_play == "policy";
    o.rollout = r;
  }
  o.uniform_share = c.uniform_share;
  o.kings = *parse_king_source(c.kings);
  o.table = table;
  o.king_band = c.king_band;
  o.playout = c.playout;
  o.playout_threads = c.playout_threads;
  o.max_moves = c.max_moves;
  o.eval_nodes = uint64_t(c.eval_nodes);
  o.eval_engine = c.eval_engine;
  o.eval_scale = c.eval_scale;
  o.play_out = c.play_out;
  return o;
}

}  // namespace

void init_run(const RunConfig& c) {
  RunPaths paths{c.dir};
  // The first network and the king table before anything is written: a bad network.init_from
  // or selfplay.king_table leaves no run behind to refuse the corrected command.
  if (c.kings == "table") KingPairTable::load(c.king_table);  // throws naming the file
  std::unique_ptr<Trainer> first;
  if (!fs::exists(paths.checkpoint(0)))
    first = std::make_unique<Trainer>(net_config(c), train_options(c), c.seed, c.init_from);
  fs::create_directories(paths.models());
  FileLock lock((paths.models() / "init.lock").string(), "another init of " + c.dir);
  if (fs::exists(paths.config())) {
    RunConfig before = load_run_config(paths.config().string(), {"run.dir=" + c.dir});
    std::string here = to_toml(without_resources(before)), asked = to_toml(without_resources(c));
    check_settings_text(paths.config().string(), here, asked, "use another --dir");
  }
  write_file_atomically(paths.config().string(), to_toml(c));
  if (!fs::exists(paths.checkpoint(0))) {
    if (!first)
      first = std::make_unique<Trainer>(net_config(c), train_options(c), c.seed, c.init_from);
    if (!first->init_note().empty())
      std::fprintf(stderr, "init: %s: %s\n", c.init_from.c_str(), first->init_note().c_str());
    first->save(paths.checkpoint(0).string(), 0);
  }
  if (!fs::exists(paths.publication(0)))
    publish(paths, 0, {gen_name(0), true, "the first network", std::nullopt});
}

std::string resource_settings() {
  std::string out;
  for (const std::string& key : kResourceKeys) out += (out.empty() ? "" : ", ") + key;
  return out;
}

RunConfig load_run(const std::string& dir, const std::vector<std::string>& overrides) {
  RunPaths paths{dir};
  if (!fs::exists(paths.config()))
    throw std::runtime_error(dir + ": no run here (no config.toml); start one with fusekilab init");
  for (const std::string& o : overrides) {
    std::string key = o.substr(0, o.find('='));
    if (!kResourceKeys.count(key))
      throw std::runtime_error("--set " + o + ": a run's settings are fixed by its config.toml; " +
                               "only " + resource_settings() + " may be set here");
  }
  std::vector<std::string> all = overrides;
  all.push_back("run.dir=" + dir);
  return load_run_config(paths.config().string(), all);
}

std::optional<int> second_stage_start(const RunPaths& paths) {
  if (!fs::exists(paths.stage())) return std::nullopt;
  std::ifstream in(paths.stage());
  try {
    return json::parse(in).at("generation").get<int>();
  } catch (const json::exception& e) {
    throw std::runtime_error(paths.stage().string() + ": not a stage record (" + e.what() + ")");
  }
}

RunConfig generation_config(const RunConfig& c, const RunPaths& paths, int g) {
  std::optional<int> start = second_stage_start(paths);
  return start && g >= *start ? second_stage(c) : c;
}

Publication publish(const RunPaths& paths, int g, const Selection& selection) {
  Publication pub;
  pub.generation = g;
  pub.name = gen_name(g);
  pub.best = selection.best;
  fs::path file = paths.models() / (selection.best + ".ckpt");
  pub.file = file.string();
  pub.hash = net::file_hash(file);
  json j = {{"generation", g},
            {"name", pub.name},
            {"file", file.filename().string()},
            {"hash", pub.hash},
            {"best", selection.best},
            {"candidate", pub.name},
            {"accepted", selection.accepted},
            {"why", selection.why}};
  if (selection.calibration) {
    pub.calibration = selection.calibration;
    j["eval_calibration"] = calibration_json(*selection.calibration);
  }
  std::string text = j.dump() + "\n";
  write_file_atomically(paths.publication(g).string(), text);
  std::optional<Publication> newest = newest_publication(paths);
  if (!newest || newest->generation <= g) write_file_atomically(paths.latest().string(), text);
  return pub;
}

std::optional<Publication> newest_publication(const RunPaths& paths) {
  if (!fs::exists(paths.latest())) return std::nullopt;
  return read_publication(paths.latest(), paths);
}

Publication checked_publication(const RunPaths& paths, int g) {
  if (!fs::exists(paths.publication(g))) {
    std::optional<Publication> newest = newest_publication(paths);
    throw std::runtime_error(gen_name(g) + " is not published in " + paths.root.string() +
                             " (newest: " + (newest ? newest->name : std::string("none")) + ")");
  }
  Publication pub = read_publication(paths.publication(g), paths);
  std::string now = net::file_hash(pub.file);
  if (now != pub.hash)
    throw std::runtime_error(pub.file + ": its hash " + now + " is not the published " + pub.hash +
                             " (the file changed after publication)");
  return pub;
}

namespace {

// selfplay/gen-NNNN/w<id>.lock: held by the process running worker `w`.
std::string worker_lock(const fs::path& dir, int w) {
  std::string name = "w";  // (built in steps: GCC 12 warns falsely on "w" + std::to_string(w))
  name += std::to_string(w);
  name += ".lock";
  return (dir / name).string();
}

}  // namespace

uint64_t worker_games(int games, int w, int n) {
  return uint64_t(games / n + (w < games % n ? 1 : 0));
}

void run_selfplay(const RunConfig& c, const RunPaths& paths, int g, const KingPairTable* table,
                  const std::vector<int>& worker_ids, int workers) {
  fs::path dir = paths.selfplay(g);
  fs::create_directories(dir);
  Publication pub = checked_publication(paths, g);
  // The split of the generation's games over workers is fixed by the first worker to start.
  {
    fs::path count_file = dir / "workers";
    // Workers of an array start at once: exactly one creates the file.
    create_file_atomically(count_file.string(), std::to_string(workers) + "\n");
    int before = std::atoi(read_file(count_file.string()).c_str());
    if (before != workers)
      throw std::runtime_error(dir.string() + ": this generation's games are split over " +
                               std::to_string(before) + " workers, not " + std::to_string(workers));
  }
  std::vector<std::unique_ptr<FileLock>> locks;
  for (int w : worker_ids) {
    if (w < 0 || w >= workers)
      throw std::runtime_error("worker " + std::to_string(w) + " of " + std::to_string(workers) +
                               ": expected 0 <= id < count");
    locks.push_back(std::make_unique<FileLock>(
        worker_lock(dir, w), "worker " + std::to_string(w) + " of " + gen_name(g)));
  }
  uint64_t total = 0;
  for (int w : worker_ids) total += worker_games(c.games, w, workers);
  std::atomic<uint64_t> done{0}, decisions{0}, passes{0}, positions{0};
  // Each worker's shards first: the games a resumed generation already has are left out of the
  // progress's total and rate (its ETA is for the games still to play).
  uint64_t already = 0;
  std::vector<std::shared_ptr<ShardWriter>> writers;
  std::vector<uint64_t> starts, targets;
  for (int w : worker_ids) {
    std::map<std::string, std::string> attrs = {{"rules", rule_info(c.rules).name},
                                                {"run_seed", std::to_string(c.seed)},
                                                {"generation", std::to_string(g)},
                                                {"network", pub.name + ".ckpt"},
                                                {"network_hash", pub.hash},
                                                {"workers", std::to_string(workers)},
                                                {"playout", c.playout},
                                                {"kings", c.kings}};
    writers.push_back(std::make_shared<ShardWriter>(dir.string(), w, c.shard_games, attrs));
    targets.push_back(worker_games(c.games, w, workers));
    starts.push_back(std::min(writers.back()->next_index(), targets.back()));
    already += starts.back();
  }
  done = already;
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(worker_ids.size());
  Progress progress("selfplay " + gen_name(g), total - already);
  double started = now_seconds();
  for (size_t k = 0; k < worker_ids.size(); ++k) {
    const int w = worker_ids[k];
    const uint64_t target = targets[k], start = starts[k];
    std::shared_ptr<ShardWriter> writer = writers[k];
    threads.emplace_back([&, k, w, target, start, writer] {
      try {
        net::EvaluatorOptions eo;
        eo.device = c.device;
        eo.threads = c.inference_threads;
        eo.precision = c.precision;
        net::Evaluator evaluator = net::Evaluator::from_checkpoint(pub.file, eo);
        SelfPlayOptions o = selfplay_options(c, g, table);
        o.worker = w;
        EvalCalibration calibration = calibration_of(c, pub);
        o.eval_scale = calibration.scale;
        o.eval_bias = calibration.bias;
        if (o.rollout) o.rollout->scale = calibration.scale;
        SelfPlayGenerator gen(evaluator, o);
        test_point("start");
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
          double secs = std::max(now_seconds() - started, 1e-9);
          // Positions a forward pass: up to selfplay.batch for the policy; a search's passes
          // also hold its candidates' children (up to batch x (search_k + 1)).
          std::snprintf(extra, sizeof(extra), "%.0f decisions/s, %.0f positions a pass",
                        double(decisions.load()) / secs,
                        passes ? double(positions) / double(passes) : 0.0);
          progress.report(d - already, extra);
        });
        writer->flush();
      } catch (...) {
        errors[k] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

std::vector<std::string> incomplete_selfplay(const RunConfig& c, const RunPaths& paths, int g) {
  fs::path dir = paths.selfplay(g);
  fs::path count_file = dir / "workers";
  if (!fs::exists(count_file))
    return {"no self-play worker of " + gen_name(g) + " has started (" + count_file.string() +
            " is missing)"};
  int workers = std::atoi(read_file(count_file.string()).c_str());
  std::map<int, uint64_t> have = games_by_worker(dir.string());
  std::vector<std::string> out;
  for (int w = 0; w < workers; ++w) {
    uint64_t want = worker_games(c.games, w, workers);
    if (have[w] >= want) continue;
    // Held by a live process? Its lock says (flock is released when a process dies).
    LockState lock = lock_state(worker_lock(dir, w));
    std::string state = lock == LockState::Absent ? "it never started"
                        : lock == LockState::Free ? "no process is running it"
                                                  : "a process is still running it";
    out.push_back("worker " + std::to_string(w) + "/" + std::to_string(workers) + " of " +
                  gen_name(g) + ": " + std::to_string(have[w]) + " of " + std::to_string(want) +
                  " games in shards, " + std::to_string(games_in_journal(dir.string(), w)) +
                  " more in its journal; " + state);
  }
  return out;
}

std::vector<GameRow> generation_games(const RunPaths& paths, int g) {
  std::vector<GameRow> rows;
  for (const std::string& shard : list_shards(paths.selfplay(g).string())) {
    Shard s = read_shard(shard);
    rows.insert(rows.end(), s.games.begin(), s.games.end());
  }
  return rows;
}

nlohmann::json run_training(const RunConfig& c, const RunPaths& paths, int g) {
  TrainOptions o = train_options(c);
  const std::optional<int> stage = second_stage_start(paths);
  const bool in_stage = stage && g >= *stage;
  const fs::path base =
      in_stage && g == *stage ? fs::path(checked_publication(paths, g).file) : paths.checkpoint(g);
  const bool resumed = fs::exists(paths.partial(g + 1));
  Trainer trainer(net_config(c), o, c.seed, (resumed ? paths.partial(g + 1) : base).string());
  // Reanalysis takes its prior from the network that played generation g (the gate's best).
  if (o.target == TrainTarget::Search && o.reanalyse && fs::exists(paths.publication(g)))
    trainer.set_behaviour(checked_publication(paths, g).file);
  // train.steps steps from where the generation's network stands, whatever its count: a run
  // started from another run's checkpoint (network.init_from) carries that run's steps.
  const uint64_t first_step =
      resumed ? net::load_checkpoint(base.string()).state.train_step : trainer.steps();
  const uint64_t target = first_step + uint64_t(c.steps);
  std::vector<std::string> shards;
  for (int k = in_stage ? *stage : 0; k <= g; ++k)
    for (const std::string& s : list_shards(paths.selfplay(k).string())) shards.push_back(s);
  RewardMode mode = c.reward == "eval"  ? RewardMode::Eval
                    : c.reward == "mix" ? RewardMode::Mix
                                        : RewardMode::Result;
  TrainingWindow window(mode, c.reward_mix, o.target == TrainTarget::Search);
  window.load(shards, c.window_games);
  Progress progress("train " + gen_name(g + 1), target - std::min(trainer.steps(), target));
  json last;
  uint64_t begun = trainer.steps();
  while (trainer.steps() < target && window.decisions() > 0) {
    if (stop_requested()) {
      // Saved where it stopped: the next run resumes from this step exactly.
      if (trainer.steps() > begun) trainer.save(paths.partial(g + 1).string(), uint64_t(g + 1));
      throw_if_stopped();
    }
    if (trainer.steps() == begun + 3) test_point("train");
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
      if (std::isfinite(m.q_loss)) {
        last["q_loss"] = m.q_loss;
        last["q_corr"] = m.q_corr;
      }
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

namespace {

// What must be the same for a journal's games to be this match's: the two networks (by their
// bytes), the seed, the games, the rules, and the settings of self-play and the gate (its play-out
// and stopping rule), the king table by its bytes too. Not a run's directory, its resources or its
// training: a run moved, or resumed with other threads, still resumes its match.
json match_journal_header(const RunConfig& c, const std::string& a_path, const std::string& b_path,
                          int games_per_colour, uint64_t seed) {
  RunConfig copy = without_resources(c);
  json settings = json::object();
  for (const OptionSection& section : run_config_sections(copy))
    if (section.name() == "selfplay" || section.name() == "gating")
      for (const Option& o : section.options()) settings[section.name() + "." + o.key] = o.get();
  settings["selfplay.king_table"] = journal_identity(c.king_table);
  settings["run.rules"] = rule_info(c.rules).name;
  settings["run.precision"] = c.precision;
  return {{"match_journal", 2},
          {"a", journal_identity(a_path)},
          {"b", journal_identity(b_path)},
          {"games", games_per_colour},
          {"seed", seed},
          {"settings", settings}};
}

}  // namespace

nlohmann::json network_match(const RunConfig& c, const std::string& a_path,
                             const std::string& b_path, int games_per_colour, uint64_t seed,
                             const KingPairTable* table, const std::string& journal_path) {
  net::EvaluatorOptions eo;
  eo.device = c.device;
  eo.threads = c.inference_threads;
  eo.precision = c.precision;
  SelfPlayOptions o = selfplay_options(c, 0, table);
  o.search.reset();  // a match measures the policy network itself
  o.rollout.reset();
  o.seed = seed;
  o.worker = 0;
  o.temperature = c.gating_temperature;
  // Scored by result, the match plays its games out with self-play's engine even where
  // self-play itself does not (selfplay.play_out = false); by eval, it never does.
  const bool by_eval = c.gating_score == "eval";
  o.play_out = !by_eval;
  NamedPlacer a = make_named_placer(a_path, o.temperature, eo);
  NamedPlacer b = make_named_placer(b_path, o.temperature, eo);
  PlacerMatch match(*a.placer, *b.placer, o);
  const Sprt sprt{0, c.gating_elo, c.gating_alpha, c.gating_alpha};
  const bool sequential = c.gating_rule == "sprt";
  MatchTally tally;
  const Score& score = by_eval ? tally.evals : tally.score;
  Sprt::Decision decision = Sprt::Decision::Continue;
  auto decided = [&] {
    if (sequential) return (decision = sprt.decide(score)) != Sprt::Decision::Continue;
    StrengthEstimate e = strength_estimate(score);
    return e.low > 0.5 || e.high < 0.5;
  };
  MatchJournal journal(journal_path,
                       match_journal_header(c, a_path, b_path, games_per_colour, seed), "match");
  const int played_each = play_journalled(match, journal, 0, games_per_colour, tally, score,
                                          {"match", "match", c.batch, true}, {}, decided);
  // Stopped before the cap only when decided (decided() set `decision` when the SPRT rules).
  const bool stopped_early = played_each < games_per_colour;
  StrengthEstimate e = strength_estimate(score);
  const GateVerdict verdict = gate_verdict(sequential, decision, e, c.gating_at_cap == "interval");
  json r = {{"games", score.games()},
            {"seed", seed},  // the match's games: the same seed, the same games (on CPU)
            {"scored_by", c.gating_score},
            {"score", e.score},
            {"ci95", {e.low, e.high}},
            {"elo", e.elo},
            {"elo_ci95", {e.elo_low, e.elo_high}},
            {"wins", tally.score.wins},
            {"draws", tally.score.draws},
            {"losses", tally.score.losses},
            {"void", tally.voids},
            {"rule", c.gating_rule},
            {"stopped_early", stopped_early},
            {"verdict", verdict.verdict},
            {"decided_by", verdict.by}};
  if (sequential)
    r["sprt"] = {{"elo0", sprt.elo0},
                 {"elo1", sprt.elo1},
                 {"alpha", sprt.alpha},
                 {"beta", sprt.beta},
                 {"llr", sprt.llr(score)},
                 {"bounds", {sprt.lower(), sprt.upper()}},
                 {"decision", sprt_decision_name(decision)}};
  return r;
}

namespace {

// A number from a metrics line; NaN (written as null) or a missing key reads as NaN.
double number(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : std::nan("");
}

}  // namespace

StrengthCurves strength_curves(const RunPaths& paths) {
  StrengthCurves out;
  double run_seconds = 0;
  auto add = [&](const json& m, double g, double seconds) {
    for (const json& r : m.at("references")) {
      std::string name = "vs " + r.at("reference").get<std::string>();
      for (auto* series : {&out.by_generation[name], &out.by_minutes[name]}) {
        series->name = name;
        series->points.push_back(
            {series == &out.by_generation[name] ? g : seconds / 60, number(r, "elo")});
        series->bars.push_back(
            {r.at("elo_ci95")[0].get<double>(), r.at("elo_ci95")[1].get<double>()});
      }
    }
  };
  std::ifstream in(paths.generations());
  for (std::string line; std::getline(in, line);) {
    try {
      json j = json::parse(line);
      double g = j.at("generation").get<double>();
      if (j.contains("strength_start")) add(j["strength_start"], g, run_seconds);
      // The generation's wall clock; runs before it was recorded: the phases but the
      // measurement.
      const double seconds =
          j.contains("wall_seconds")
              ? number(j, "wall_seconds")
              : number(j, "selfplay_seconds") + number(j, "train_seconds") +
                    (j.contains("gating_seconds") ? number(j, "gating_seconds") : 0.0);
      run_seconds += seconds;
      out.minutes = run_seconds / 60;
      out.last_minutes = seconds / 60;
      out.generations = int(g) + 1;
      if (j.contains("strength")) add(j["strength"], g + 1, run_seconds);
    } catch (const json::exception&) {
    }
  }
  return out;
}

void compare_runs(const std::vector<std::string>& dirs, const std::vector<std::string>& labels,
                  const std::string& reference, const std::string& out,
                  const std::vector<double>& starts) {
  if (dirs.empty()) throw std::runtime_error("compare: name at least one run directory");
  if (!labels.empty() && labels.size() != dirs.size())
    throw std::runtime_error("compare: " + std::to_string(labels.size()) + " labels for " +
                             std::to_string(dirs.size()) + " runs");
  if (!starts.empty() && starts.size() != dirs.size())
    throw std::runtime_error("compare: " + std::to_string(starts.size()) + " start minutes for " +
                             std::to_string(dirs.size()) + " runs");
  const std::string name = "vs " + reference;
  std::vector<Series> chart;
  std::string table = "run  generations  minutes  best  Elo of the best (95 %)  highest measured\n";
  for (size_t i = 0; i < dirs.size(); ++i) {
    RunPaths paths{dirs[i]};
    if (!fs::exists(paths.generations()))
      throw std::runtime_error("compare: " + dirs[i] + " is not a run (no generations.jsonl)");
    StrengthCurves c = strength_curves(paths);
    auto it = c.by_minutes.find(name);
    if (it == c.by_minutes.end())
      throw std::runtime_error("compare: " + dirs[i] + " has no strength measured " + name);
    Series series = it->second;
    series.name = labels.empty() ? dirs[i] : labels[i];
    const double start = starts.empty() ? 0.0 : starts[i];
    for (auto& point : series.points) point.first += start;
    chart.push_back(series);
    // The best network (latest.json) and its measurement; the highest measured.
    std::string best = "-", best_elo = "not measured";
    if (fs::exists(paths.latest()))
      best = json::parse(read_file(paths.latest().string())).value("best", "-");
    const Series& by_gen = c.by_generation.at(name);
    size_t top = 0;
    for (size_t k = 0; k < by_gen.points.size(); ++k) {
      if (by_gen.points[k].second > by_gen.points[top].second) top = k;
      if (gen_name(int(by_gen.points[k].first)) == best) {
        char b[96];
        std::snprintf(b, sizeof(b), "%+.0f [%+.0f, %+.0f]", by_gen.points[k].second,
                      by_gen.bars[k].first, by_gen.bars[k].second);
        best_elo = b;
      }
    }
    char row[512];
    std::snprintf(row, sizeof(row), "%s  %d  %.1f  %s  %s  %+.0f (%s)\n", series.name.c_str(),
                  c.generations, start + c.minutes, best.c_str(), best_elo.c_str(),
                  by_gen.points[top].second, gen_name(int(by_gen.points[top].first)).c_str());
    table += row;
  }
  std::string svg = line_chart_svg("Elo " + name + " by wall-clock time",
                                   "minutes of the run (wall clock)", chart, 800, 400);
  if (!out.empty()) write_file_atomically(out, svg);
  std::fputs(table.c_str(), stdout);
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
  Series pl{"policy loss", {}, {}}, vl{"value loss", {}, {}}, en{"entropy", {}, {}},
      corr{"value/result corr.", {}, {}};
  for (auto& [step, j] : by_step) {
    pl.points.push_back({double(step), number(j, "policy_loss")});
    vl.points.push_back({double(step), number(j, "value_loss")});
    en.points.push_back({double(step), number(j, "entropy")});
    corr.points.push_back({double(step), number(j, "value_reward_corr")});
  }
  std::string curves = line_chart_svg("Training", "step", {pl, vl, corr});
  std::string entropy = line_chart_svg("Policy entropy", "step", {en});
  // Per-generation statistics, the gate's decisions, and strength against the references by
  // generation and by the run's wall-clock time (strength_curves).
  Series sente{"Sente score", {}, {}}, ruling{"ruling41 rate", {}, {}},
      stack_s{"stack rate Sente", {}, {}}, stack_g{"stack rate Gote", {}, {}},
      gating{"gating score", {}, {}};
  StrengthCurves curves_of_strength = strength_curves(paths);
  std::map<std::string, Series>& elo_by_gen = curves_of_strength.by_generation;
  std::map<std::string, Series>& elo_by_time = curves_of_strength.by_minutes;
  std::string gate_rows;
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
      char row[512];
      std::snprintf(
          row, sizeof(row), "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
          (gen_name(int(g) + 1) + (j.value("stage", 1) == 2 ? " (run.then)" : "")).c_str(),
          j.value("accepted", true) ? "accepted" : "<b>rejected</b>",
          j.value("best", gen_name(int(g) + 1)).c_str(), j.value("why", std::string("")).c_str());
      gate_rows += row;
    } catch (const json::exception&) {
    }
  }
  std::string gens = line_chart_svg("Self-play by generation", "generation",
                                    {sente, ruling, stack_s, stack_g, gating});
  std::string strength;
  if (!elo_by_gen.empty()) {
    std::vector<Series> by_gen, by_time;
    for (auto& [name, series] : elo_by_gen) by_gen.push_back(series);
    for (auto& [name, series] : elo_by_time) by_time.push_back(series);
    strength =
        "<h2>Strength</h2>\n<p>Elo of each network against the references (95 % "
        "intervals; [strength] in config.toml: games, referee).</p>\n" +
        line_chart_svg("Elo by generation", "generation", by_gen) +
        line_chart_svg("Elo by wall-clock time", "minutes of the run (wall clock)", by_time);
    write_file_atomically((paths.root / "strength.svg").string(),
                          line_chart_svg("Elo by generation", "generation", by_gen));
  }
  // Placement heat maps, newest generation first (written as each generation finishes).
  std::string maps;
  std::vector<fs::path> svgs;
  if (fs::exists(paths.root / "selfplay"))
    for (const auto& entry : fs::directory_iterator(paths.root / "selfplay"))
      if (fs::exists(entry.path() / "placements.svg")) svgs.push_back(entry.path());
  std::sort(svgs.rbegin(), svgs.rend());  // gen-NNNN: newest first
  for (const fs::path& dir : svgs)
    maps += std::string(maps.empty() ? "<details open>" : "<details>") + "<summary>" +
            dir.filename().string() + "</summary>\n" +
            read_file((dir / "placements.svg").string()) + "</details>\n";
  if (!maps.empty()) maps = "<h2>Where the policy places its pieces</h2>\n" + maps;
  std::string gate =
      gate_rows.empty()
          ? ""
          : "<h2>Gate</h2>\n<table border=\"1\" cellpadding=\"3\"><tr><th>candidate</th>"
            "<th>decision</th><th>best after it</th><th>why</th></tr>\n" +
                gate_rows + "</table>\n";
  fs::create_directories(paths.root / "train");  // none yet when no step was trained
  write_file_atomically((paths.root / "train" / "curves.svg").string(), curves);
  std::string html =
      "<!doctype html><meta charset=\"utf-8\"><title>fusekilab run</title>\n<h1>fusekilab run: " +
      paths.root.string() + "</h1>\n" + strength + gate + curves + entropy + gens + maps +
      "<p>Files: generations.jsonl, train/metrics.jsonl, models/, selfplay/.</p>\n";
  write_file_atomically((paths.root / "report.html").string(), html);
}

std::optional<json> generation_line(const RunPaths& paths, int g) {
  std::ifstream in(paths.generations());
  for (std::string line; std::getline(in, line);) {
    try {
      json j = json::parse(line);
      if (j.at("generation").get<int>() == g) return j;
    } catch (const json::exception&) {
    }
  }
  return std::nullopt;
}

namespace {

// Begins run.then's second stage with generation g + 1 when its time or generation has come.
// The run's clock is the report's (strength_curves: the generations' wall_seconds so far, g's the
// last, since gen-(g+1) is not yet published), so a resumed run decides the same.
void begin_second_stage_if_due(const RunConfig& c, const RunPaths& paths, int g) {
  if (c.then.empty() || second_stage_start(paths)) return;
  const double clock = 60 * strength_curves(paths).minutes;
  const bool by_generation = c.then_generation > 0 && g + 1 >= c.then_generation;
  const bool by_time = c.then_minutes > 0 && clock >= 60 * c.then_minutes;
  if (!by_generation && !by_time) return;
  json j = {{"generation", g + 1},
            {"minutes", clock / 60},
            {"why", by_generation ? "run.then_generation" : "run.then_minutes"},
            {"then", c.then}};
  write_file_atomically(paths.stage().string(), j.dump() + "\n");
  std::fprintf(stderr, "second stage (run.then) from %s's self-play, after %.1f minutes: %s\n",
               gen_name(g + 1).c_str(), clock / 60, c.then.c_str());
}

// The last line of train/metrics.jsonl that generation g's training logged (null: none), as
// run_training returned it.
json last_metrics(const RunPaths& paths, int g) {
  json last;
  std::ifstream in(paths.metrics());
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line, nullptr, false);  // a line torn by a kill: skipped
    if (j.is_object() && j.value("generation", -1) == g) last = std::move(j);
  }
  return last;
}

json measure(const RunConfig& c, const RunPaths& paths, int g, const KingPairTable* table) {
  StrengthSetup setup;
  setup.rules = c.rules;
  setup.seed = Rng::derive(c.seed, 7000);  // every generation the same games: comparable
  setup.table = c.kings == "table" ? table : nullptr;
  setup.king_band = c.king_band;
  setup.device = c.device;
  setup.precision = c.precision;
  setup.journal = paths.journal(g, "strength").string();
  json r = measure_strength(paths.checkpoint(g).string(), c.strength, setup);
  r["network"] = gen_name(g);
  std::fprintf(stderr, "strength of %s (referee %s):\n%s", gen_name(g).c_str(),
               c.strength.referee.c_str(), strength_text(r).c_str());
  return r;
}

}  // namespace

void finish_generation(const RunConfig& c, const RunPaths& paths, int g, const KingPairTable* table,
                       double selfplay_seconds) {
  if (fs::exists(paths.publication(g + 1))) return;  // finished before an interruption
  const double started = now_seconds() - selfplay_seconds;
  // The best network so far: what generation g's self-play used.
  const Publication current = checked_publication(paths, g);
  std::vector<GameRow> games = generation_games(paths, g);
  GenerationStats stats = generation_stats(games);
  // Where each side put each piece: the report shows these by generation.
  write_file_atomically(
      (paths.selfplay(g) / "placements.svg").string(),
      placement_heatmaps_svg(count_placements(games), gen_name(g) + " self-play placements"));
  std::optional<json> done = generation_line(paths, g);
  json line;
  if (done) {
    line = *done;  // decided before an interruption: publish what it says
  } else {
    double t1 = now_seconds();
    json trained;
    if (!fs::exists(paths.checkpoint(g + 1)))
      trained = run_training(c, paths, g);
    else  // trained before a stop (in the gate, say): its summary is its last metrics line
      trained = last_metrics(paths, g + 1);
    double t2 = now_seconds();
    line = {{"generation", g},
            {"network", current.best},
            {"selfplay", json::parse(to_json(stats))},
            {"selfplay_seconds", selfplay_seconds},
            {"train", trained},
            {"train_seconds", t2 - t1}};
    if (std::optional<int> stage = second_stage_start(paths); stage && g >= *stage)
      line["stage"] = 2;  // run.then's settings
    // The gate: the candidate against the best so far.
    bool accepted = true;
    std::string why;
    if (c.gating_games > 0) {
      json r = network_match(c, paths.checkpoint(g + 1).string(), current.file, c.gating_games,
                             Rng::derive(c.seed, 5000 + uint64_t(g)), table,
                             paths.journal(g + 1, "gating").string());
      r["a"] = gen_name(g + 1);
      r["b"] = current.best;
      line["gating"] = r;
      line["gating_seconds"] = now_seconds() - t2;
      const std::string verdict = r["verdict"].get<std::string>();
      char text[256];
      std::snprintf(text, sizeof(text), "%s against %s: %.3f [%.3f, %.3f] over %d games, %s",
                    gen_name(g + 1).c_str(), current.best.c_str(), r["score"].get<double>(),
                    r["ci95"][0].get<double>(), r["ci95"][1].get<double>(), r["games"].get<int>(),
                    verdict.c_str());
      why = text;
      if (c.gating_rule == "sprt")
        why += " (SPRT H0 0 Elo / H1 " + json(c.gating_elo).dump() + " Elo, alpha " +
               json(c.gating_alpha).dump() +
               (r["decided_by"] == "sprt"      ? ")"
                : r["decided_by"] == "the cap" ? "; at the cap, undecided: rejected)"
                                               : "; at the cap, by the 95 % interval)");
      accepted = c.gating_rule == "always" || verdict == "better";
      if (c.gating_rule == "always") why += "; rule always: the newest is taken";
    } else {
      why = "no gating match (gating.games = 0): the newest is taken";
    }
    line["accepted"] = accepted;
    line["best"] = accepted ? gen_name(g + 1) : current.best;
    line["why"] = why;
    if (c.eval_nodes > 0 && c.play_out) {
      // The move-41 evaluation against what the play-outs decided: its scale and bias, recorded
      // always, used by the next generation with selfplay.eval_fit. Games decided by the ruling
      // at move 41 have no evaluation to fit.
      const EvalCalibration used = calibration_of(c, current);
      std::vector<std::pair<double, double>> data;
      for (const GameRow& game : games)
        if (game.sente_eval > 0 && game.sente_eval < 1 && scored(game.winner) &&
            game.reason != Reason::Ruling41) {
          double p = game.sente_eval;
          data.push_back(
              {(std::log(p / (1 - p)) - used.bias) * used.scale, score_of(game.winner, BLACK)});
        }
      EvalCalibration fit = fit_calibration(data, used);
      line["eval_calibration"] = calibration_json(fit);
      std::fprintf(stderr, "move-41 evaluation fitted to %d results: scale %.0f, bias %+.3f\n",
                   fit.games, fit.scale, fit.bias);
    }
    if (c.strength.games > 0 &&
        ((g + 1) % c.strength.every == 0 || line.value("accepted", true) || g + 1 == 1)) {
      double t3 = now_seconds();
      if (g == 0) line["strength_start"] = measure(c, paths, 0, table);
      line["strength"] = measure(c, paths, g + 1, table);
      line["strength_seconds"] = now_seconds() - t3;
    }
    // All of the generation: self-play, training, gate, measurement, files (the run's clock).
    line["wall_seconds"] = now_seconds() - started;
    append_line(paths.generations(), line.dump());
  }
  // The generation's matches are in its line: their journals are done with.
  for (const fs::path& j : {paths.journal(g + 1, "gating"), paths.journal(g + 1, "strength"),
                            paths.journal(0, "strength")})
    fs::remove(j);
  begin_second_stage_if_due(c, paths, g);
  Selection selection{line.value("best", gen_name(g + 1)), line.value("accepted", true),
                      line.value("why", std::string()), current.calibration};
  if (c.eval_fit && line.contains("eval_calibration"))
    selection.calibration = calibration_from_json(line["eval_calibration"]);
  Publication pub = publish(paths, g + 1, selection);
  std::fprintf(stderr,
               "%s: Sente %.3f, ruling41 %.3f, %.1f moves, stacks %.3f/%.3f; %s %s; published %s "
               "with %s (%s)\n",
               gen_name(g).c_str(), stats.sente_score, stats.ruling41_rate, stats.mean_moves,
               stats.stack_rate[0], stats.stack_rate[1], gen_name(g + 1).c_str(),
               selection.accepted ? "accepted" : "rejected", pub.name.c_str(), pub.best.c_str(),
               pub.hash.c_str());
  write_report(paths);
}

}  // namespace fuseki
