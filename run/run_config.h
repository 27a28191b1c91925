// Run configs (TOML): every setting of a self-play / training / pipeline run, declared once with
// its default and range. An unknown key or an out-of-range value is an error naming it; flags
// override the file (--set section.key=value); the resolved config is written beside the outputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/player.h"
#include "eval/strength.h"
#include "io/options.h"
#include "net/net_config.h"
#include "rules/ruleset.h"
#include "selfplay/king_table.h"

namespace fuseki {

struct RunConfig {
  // [run]
  std::string dir = "runs/default";
  uint64_t seed = 1;
  RuleSet rules = RuleSet::Balance;
  int generations = 2;
  double minutes = 0;  // no new generation starts after this much wall-clock time; 0: no limit
  std::string device = "cpu";
  std::string precision = "fp32";  // of self-play and gating inference: fp32 | bf16 | fp16 (CUDA)
  // A second stage: "section.key=value ..." applied from the first generation that starts after
  // then_minutes of the run's clock or at then_generation (docs/training.md, "Two stages").
  std::string then;
  double then_minutes = 0;
  int then_generation = 0;
  // [network]
  int channels = net::NetConfig().channels;
  int blocks = net::NetConfig().blocks;
  int value_channels = net::NetConfig().value_channels;
  int value_hidden = net::NetConfig().value_hidden;
  std::string format = "native";  // native | site (net/net_config.h: with_format)
  std::string init_from;          // a checkpoint to start from (e.g. trained under balance-v1)
  // [selfplay]
  int games = 128;  // per generation
  int workers = 1;
  int batch = 64;
  double temperature = 1.0;
  std::string placer = "policy";  // policy | gumbel (a search with the value head) | rollout
  int search_k = 16;
  double search_c_visit = 50;
  double search_c_scale = 1.0;
  int rollouts = 8;          // rollout: completions per candidate
  int rollout_nodes = 2000;  // rollout: the engine's budget valuing each completion
  double rollout_temperature = 0.5;
  std::string rollout_opponent = "network";  // network | uniform
  std::string rollout_play = "search";       // search | policy (DAgger: the network's own drops)
  int rollout_from_ply = 0;                  // rollout: earlier drops are the Gumbel search's
  double uniform_share = 0;                  // games with a uniform placer on one side
  std::string kings = "uniform";             // uniform | table | network
  std::string king_table;
  int king_band = kKingBand;
  std::string playout = kDefaultPlayout;
  int playout_threads = 2;
  int max_moves = 320;
  int shard_games = 64;
  int inference_threads = 1;
  int eval_nodes = 0;  // engine search at move 41 for the evaluation reward; 0: none
  std::string eval_engine = "builtin";  // a player spec without a budget
  double eval_scale = 600;              // until fitted (eval_fit)
  // Use the scale and bias fitted to each generation's results for the next one (always fitted
  // and recorded). Off: it compressed the policy gradient's rewards and trained weaker networks
  // (docs/benchmarks.md).
  bool eval_fit = false;
  bool play_out = true;
  // [train]
  int steps = 100;  // per generation
  int batch_size = 256;
  double learning_rate = 1e-3;
  double weight_decay = 1e-4;
  double value_weight = 1.0;
  double entropy_weight = 0.01;
  double q_weight = 0;
  int window_games = 20000;
  int train_threads = 0;
  int log_every = 10;
  std::string train_target = "policy_gradient";  // policy_gradient | search
  bool reanalyse = false;                        // search: targets from the trained network
  bool mirror = false;                           // each sample mirrored left-right half the time
  std::string reward = "result";                 // result | eval | mix
  double reward_mix = 0.5;
  std::string train_precision = "fp32";  // fp32 | bf16 (autocast)
  // [gating]
  int gating_games = 0;  // per colour, at most; 0 = no match
  double gating_temperature = 0.5;
  std::string gating_score = "result";  // result: play-outs; eval: expected score at move 41
  // sprt: accepted when the SPRT (H0 0 Elo, H1 gating_elo, error rates gating_alpha) accepts H1;
  // interval: when the 95 % interval is above 50 % (the match stops once it excludes 50 %);
  // always: every candidate (AlphaZero), the match only measured.
  std::string gating_rule = "sprt";
  // sprt, a match that reaches gating_games undecided: interval (taken when its 95 % interval is
  // above 50 %) or reject.
  std::string gating_at_cap = "interval";
  double gating_elo = 30;
  double gating_alpha = 0.05;
  // [strength]
  StrengthSettings strength;
};

// The declarations of every setting above: [run], [network], [selfplay], [train], [gating],
// [strength], with flags named --section.key. The sections refer to `c`.
std::vector<OptionSection> run_config_sections(RunConfig& c);

// The network generation 0 is built with ([network] channels, blocks, value head, format).
inline net::NetConfig net_config(const RunConfig& c) {
  net::NetConfig n{c.channels, c.blocks};
  n.value_channels = c.value_channels;
  n.value_hidden = c.value_hidden;
  return net::with_format(n, c.format);
}

// Reads `path` (empty: defaults only), then applies `overrides` ("section.key=value").
// Throws std::runtime_error naming the file, key and problem.
RunConfig load_run_config(const std::string& path, const std::vector<std::string>& overrides);
// The resolved config as TOML.
std::string to_toml(const RunConfig& c);
// The settings of run.then's second stage: `c` with run.then's overrides applied and checked as
// a config is (c itself when run.then is empty). They may not touch [run] or [network].
RunConfig second_stage(const RunConfig& c);

}  // namespace fuseki
