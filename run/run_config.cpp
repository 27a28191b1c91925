#include "run/run_config.h"

#include <sstream>
#include <stdexcept>

#include "engine/match.h"
#include "eval/king_pairs.h"
#include "eval/stats.h"
#include "io/options.h"
#include "net/encode.h"
#include "net/net_config.h"
#include "rules/ruleset.h"
#include "selfplay/king_table.h"

namespace fuseki {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::runtime_error(where + ": " + what);
}

}  // namespace

std::vector<OptionSection> run_config_sections(RunConfig& c) {
  std::vector<OptionSection> s;
  s.emplace_back("run", "The run: where it lives, its seed, rules, length and device.");
  s.back()
      .text("dir", c.dir,
            "Run directory (networks, shards, metrics, report), relative to the working "
            "directory like every output")
      .seed("seed", c.seed, "Run seed: with it every game on CPU is reproducible")
      .custom(
          "rules", "Rule set (with a placement phase)", placement_rule_set_names(),
          [&c](const std::string& v) { c.rules = placement_rule_set_or_throw(v); },
          [&c] { return std::string(rule_info(c.rules).name); })
      .integer("generations", c.generations, 0, 100000, "Generations to reach")
      .number("minutes", c.minutes, 0.0, 1e7,
              "pipeline: the run ends by this many minutes of its generations' wall clock: no "
              "generation starts that would end after it, taking as long as the last (0: none)")
      .text("device", c.device, "cpu, cuda, cuda:N or auto, for inference and training")
      .choice("precision", c.precision, {"fp32", "bf16", "fp16"},
              "Self-play and gating inference precision (fp16: CUDA only)")
      .text("then", c.then,
            "A second stage: settings \"section.key=value\" separated by spaces (not of [run] "
            "or [network]) that apply from the generation run.then_minutes or "
            "run.then_generation starts; training then continues from the best network on the "
            "second stage's games only")
      .number("then_minutes", c.then_minutes, 0.0, 1e7,
              "run.then begins with the first generation after this many minutes of the run's "
              "clock (0: not by time)")
      .integer("then_generation", c.then_generation, 0, 100000,
               "run.then begins with this generation's self-play (0: not by generation)");
  s.emplace_back("network", "The placement network built at generation 0.");
  s.back()
      .integer("channels", c.channels, 1, net::kMaxChannels, "Width of the residual trunk")
      .integer("blocks", c.blocks, 0, net::kMaxBlocks, "Residual blocks")
      .integer("value_channels", c.value_channels, 1, net::kMaxValueChannels,
               "Planes of the value head's 1x1 convolution (1: AlphaZero's head)")
      .integer("value_hidden", c.value_hidden, 0, net::kMaxChannels,
               "Hidden units of the value head's dense layer (0: as many as channels)")
      .choice("format", c.format, {"native", "site"},
              "Inputs and labels: native (36 planes, 288 drops) or site (the fusekishogi.com "
              "front end's 62 + 59 planes and 648 labels, docs/network.md)")
      .path("init_from", c.init_from,
            "A checkpoint to start from instead (e.g. one trained under balance-v1), or an "
            ".onnx network of fusekilab's shape, such as the site's (docs/deploy.md)");
  s.emplace_back("selfplay", "Self-play: placement by the network, then the play-out.");
  s.back()
      .integer("games", c.games, 1, 100000000, "Games per generation")
      .integer("workers", c.workers, 1, 1024, "Self-play workers sharing a generation")
      .integer("batch", c.batch, 1, 65536, "Games placed together (one forward pass per ply)")
      .number("temperature", c.temperature, 0.0, 100.0,
              "Placement sampling temperature (placer \"policy\")")
      .choice("placer", c.placer, {"policy", "gumbel", "rollout"},
              "policy: drops sampled from the policy; gumbel: a Gumbel top-k search over the "
              "drops with the value head one ply deep (two forward passes per ply); rollout: "
              "the same candidates each valued by completed placements and eval_engine at "
              "move 41 (expert iteration; about 100 times gumbel's cost)")
      .integer("search_k", c.search_k, 1, net::kPolicySize,
               "gumbel, rollout: candidate drops evaluated per decision")
      .number("search_c_visit", c.search_c_visit, 0.0, 1e6,
              "gumbel, rollout: sigma(q) = (c_visit + 1) * c_scale * (q + 1) / 2")
      .number("search_c_scale", c.search_c_scale, 0.0, 1e6, "gumbel: see search_c_visit")
      .integer("rollouts", c.rollouts, 1, 100000,
               "rollout: completions of the placement per candidate (their mean is its value)")
      .integer("rollout_nodes", c.rollout_nodes, 1, 100000000,
               "rollout: eval_engine's budget valuing each completion at move 41 (logistic at "
               "the run's eval scale)")
      .number("rollout_temperature", c.rollout_temperature, 0.0, 100.0,
              "rollout: temperature of the mover's own later drops in a completion")
      .choice("rollout_opponent", c.rollout_opponent, {"network", "uniform"},
              "rollout: the opponent's later drops in a completion: the network at "
              "selfplay.temperature, or uniform")
      .choice("rollout_play", c.rollout_play, {"search", "policy"},
              "rollout: the drop played: the look-ahead's choice (search), or one sampled from "
              "the network at rollout_temperature (policy: the positions the network reaches "
              "itself, DAgger); the target is the look-ahead's either way")
      .integer("rollout_from_ply", c.rollout_from_ply, 0, 40,
               "rollout: only the drops from this ply on (plies played: 32 = the last 8 drops) "
               "look ahead by completions; earlier ones are the Gumbel search's with the value "
               "head")
      .number("uniform_share", c.uniform_share, 0.0, 1.0,
              "Share of the games with a uniform placer on one side (its colour drawn per "
              "game): the network also meets an opponent unlike itself; only its drops are "
              "trained on")
      .choice("kings", c.kings, {"uniform", "table", "network"},
              "Where Balance's kings and side choice come from")
      .path("king_table", c.king_table, "king_pair_table/1 JSON for kings = \"table\"")
      .integer("king_band", c.king_band, 1, KING_PAIRS,
               "Kings drawn among this many pairs closest to even")
      .text("playout", c.playout, "Play-out engine from move 41 (see play --sente)",
            check_engine_spec)
      .integer("playout_threads", c.playout_threads, 1, 1024, "Play-out threads")
      .integer("max_moves", c.max_moves, 1, 100000, "Moves of ordinary play before a draw")
      .integer("shard_games", c.shard_games, 1, 1000000, "Games per HDF5 shard")
      .integer("inference_threads", c.inference_threads, 0, 1024,
               "Torch threads of the forward pass (0: torch's default)")
      .integer("eval_nodes", c.eval_nodes, 0, 100000000,
               "Engine search at move 41 for the evaluation reward (0: none)")
      .text("eval_engine", c.eval_engine,
            "Engine of the move-41 evaluation, without a budget (builtin, fairy-stockfish, "
            "usi:PATH...): eval_nodes is its budget",
            [](const std::string& v) {
              if (v.empty() || v.find("nodes=") != std::string::npos ||
                  v.find("depth=") != std::string::npos || v.find("movetime=") != std::string::npos)
                throw std::runtime_error("'" + v +
                                         "': an engine spec without a budget (eval_nodes is it)");
              check_engine_spec(v);
            })
      .number("eval_scale", c.eval_scale, 1.0, 100000.0,
              "Centipawns to win probability, 1 / (1 + exp(-(bias + cp / scale))), until fitted")
      .boolean("eval_fit", c.eval_fit,
               "Use the scale and bias fitted to each generation's results (always fitted and "
               "recorded in generations.jsonl) for the next generation's evaluations")
      .boolean("play_out", c.play_out, "Play each game out (false: the evaluation alone)");
  s.emplace_back("train", "Training of the policy and value heads over a window of games.");
  s.back()
      .integer("steps", c.steps, 0, 100000000, "Optimizer steps per generation")
      .integer("batch_size", c.batch_size, 1, 65536, "Positions per step")
      .number("learning_rate", c.learning_rate, 0.0, 10.0, "Adam learning rate")
      .number("weight_decay", c.weight_decay, 0.0, 10.0, "Adam weight decay")
      .number("value_weight", c.value_weight, 0.0, 1000.0, "Weight of the value loss")
      .number("entropy_weight", c.entropy_weight, 0.0, 1000.0,
              "Weight of the entropy bonus (policy_gradient)")
      .number("q_weight", c.q_weight, 0.0, 1000.0,
              "Weight of the value head's regression on the look-ahead's measured values of the "
              "drops it tried (selfplay.placer = \"rollout\" and train.target = \"search\"; 0: "
              "none)")
      .integer("window_games", c.window_games, 1, 100000000, "Newest games trained on")
      .integer("threads", c.train_threads, 0, 1024, "Torch threads (0: torch's default)")
      .integer("log_every", c.log_every, 1, 1000000, "Steps between metrics lines")
      .choice("target", c.train_target, {"policy_gradient", "search"},
              "policy_gradient: the reward times log pi of the drop played; search: "
              "cross-entropy toward the search's improved policy (selfplay.placer = \"gumbel\")")
      .boolean("reanalyse", c.reanalyse,
               "search: each step remakes its samples' improved policy with the network being "
               "trained, over the drops self-play's search evaluated (false: the stored one, made "
               "by self-play's network, which the gate may hold generations behind)")
      .boolean("mirror", c.mirror,
               "Mirror each sample left to right with probability 1/2 (planes, legal drops, the "
               "drop and its target): the game's symmetry, taught by the data")
      .choice("reward", c.reward, {"result", "eval", "mix"},
              "Training signal: the game result, the move-41 evaluation, or a mix")
      .number("reward_mix", c.reward_mix, 0.0, 1.0, "Weight of the evaluation in \"mix\"")
      .choice("precision", c.train_precision, {"fp32", "bf16"}, "Training precision (autocast)");
  s.emplace_back("gating", "The match of each new network against the one before.");
  s.back()
      .integer("games", c.gating_games, 0, 1000000, "Games per colour (0: no match)")
      .number("temperature", c.gating_temperature, 0.0, 100.0, "Placement temperature")
      .choice("score", c.gating_score, {"result", "eval"},
              "result: play-outs; eval: expected score at move 41")
      .choice("rule", c.gating_rule, {"sprt", "interval", "always"},
              "Which candidate self-play takes: sprt (the SPRT shows it better), interval (the "
              "95 % interval above 50 %), always (the newest, AlphaZero)")
      .choice("at_cap", c.gating_at_cap, {"interval", "reject"},
              "sprt: a match that reaches gating.games with the SPRT undecided: interval (the "
              "candidate is taken when its 95 % interval is above 50 %) or reject")
      .number("elo", c.gating_elo, 1.0, 1000.0, "sprt: the Elo gain of H1 (H0: none)")
      .number("alpha", c.gating_alpha, 0.001, 0.5,
              "sprt: the error rates (taking a candidate that is no better; missing one that is)");
  for (OptionSection& more : strength_sections(c.strength)) s.push_back(std::move(more));
  for (OptionSection& section : s) section.qualified_flags();
  return s;
}

namespace {

// The checks across settings, for a config and for its second stage.
void check_run_config(const RunConfig& c) {
  if (c.kings == "table" && c.king_table.empty())
    fail("selfplay.kings", "'table' needs selfplay.king_table");
  if (c.gating_score == "eval" && c.eval_nodes == 0)
    fail("gating.score", "'eval' needs selfplay.eval_nodes > 0");
  if (c.reward != "result" && c.eval_nodes == 0)
    fail("train.reward", "'" + c.reward + "' needs selfplay.eval_nodes > 0");
  if (c.train_target == "search" && c.placer == "policy")
    fail("train.target",
         "'search' trains toward a search's improved policy: it needs selfplay.placer = "
         "\"gumbel\" or \"rollout\", not \"policy\"");
  if (c.placer == "rollout" && c.kings == "network")
    fail("selfplay.placer",
         "'rollout' does not place Balance's kings: selfplay.kings = \"uniform\" or \"table\"");
  if (c.placer == "rollout" && c.train_target == "search" && c.reanalyse && c.rollout_from_ply == 0)
    fail("train.reanalyse",
         "true remakes the targets from the value head, discarding the rollouts' values: set it "
         "false with selfplay.placer = \"rollout\", or look ahead only from "
         "selfplay.rollout_from_ply > 0 (the earlier drops' targets are remade)");
  if (c.q_weight > 0 && (c.placer != "rollout" || c.train_target != "search"))
    fail("train.q_weight",
         "the look-ahead's measured values come from selfplay.placer = \"rollout\" with "
         "train.target = \"search\"");
  if (c.gating_rule == "sprt" && c.gating_games > 0 && 2 * c.gating_games < Sprt::kMinGames)
    fail("gating.games",
         std::to_string(c.gating_games) + " per colour is under the " +
             std::to_string(Sprt::kMinGames / 2) +
             " the SPRT (gating.rule = \"sprt\") plays before it decides: every candidate would "
             "be rejected; play more, or set gating.rule = \"interval\" or \"always\"");
  if (c.strength.games % 2)
    fail("strength.games", std::to_string(c.strength.games) +
                               ": an even number (half with each colour), or 0 for none");
  if (c.strength.games > 0) strength_references(c.strength.references);  // throws naming one
  if (c.reward != "eval" && !c.play_out)
    fail("train.reward", "'" + c.reward + "' needs game results: selfplay.play_out = true");
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

RunConfig second_stage(const RunConfig& config) {
  RunConfig c = config;
  std::vector<OptionSection> sections = run_config_sections(c);
  std::vector<OptionSection*> all;
  for (OptionSection& section : sections) all.push_back(&section);
  for (const std::string& o : words(config.then)) {
    if (o.rfind("run.", 0) == 0 || o.rfind("network.", 0) == 0)
      fail("run.then", "'" + o + "': a second stage keeps the run's [run] and [network] settings");
    try {
      apply_override(o, all);
    } catch (const std::exception& e) {
      fail("run.then", e.what());
    }
  }
  if (c.kings != config.kings || c.king_table != config.king_table)
    fail("run.then", "a second stage keeps the run's kings (selfplay.kings, selfplay.king_table)");
  try {
    check_run_config(c);
  } catch (const std::exception& e) {
    fail("run.then", std::string("in the second stage, ") + e.what());
  }
  return c;
}

RunConfig load_run_config(const std::string& path, const std::vector<std::string>& overrides) {
  RunConfig c;
  std::vector<OptionSection> sections = run_config_sections(c);
  std::vector<OptionSection*> all;
  for (OptionSection& section : sections) all.push_back(&section);
  if (!path.empty()) read_toml(path, all);
  for (const std::string& o : overrides) apply_override(o, all);
  check_run_config(c);
  if (!c.then.empty()) {
    if (c.then_minutes == 0 && c.then_generation == 0)
      fail("run.then", "a second stage needs run.then_minutes or run.then_generation to begin");
    second_stage(c);  // throws naming a bad setting
  } else if (c.then_minutes > 0 || c.then_generation > 0) {
    fail(c.then_minutes > 0 ? "run.then_minutes" : "run.then_generation",
         "begins a second stage, but run.then gives it no settings");
  }
  return c;
}

std::string to_toml(const RunConfig& config) {
  RunConfig c = config;
  std::vector<OptionSection> sections = run_config_sections(c);
  std::vector<const OptionSection*> all;
  for (const OptionSection& section : sections) all.push_back(&section);
  return "# fusekilab resolved run config\n" + to_toml(all);
}

}  // namespace fuseki
