#include "eval/table_options.h"

#include <stdexcept>

#include "engine/match.h"
#include "eval/king_pairs.h"

namespace fuseki {

std::vector<OptionSection> table_run_sections(TableRunOptions& o) {
  std::vector<OptionSection> s;
  s.emplace_back("eval", "The king-pair table (eval table): Sente's win rate for every pair.");
  s.back()
      .text("out", o.out,
            "Output directory, relative to the working directory (resumes a run found there)")
      .path("network", o.network, "Placement network checkpoint (empty: uniform random placement)")
      .custom(
          "rules", "Rule set: a Balance one (the table is of Balance Shogi)", "balance, balance-v1",
          [&o](const std::string& v) {
            RuleSet r = rule_set_or_throw(v);
            if (!rule_info(r).balance_kings)
              throw std::runtime_error("'" + v +
                                       "' is not a Balance rule set (the table is of Balance "
                                       "Shogi): balance or balance-v1");
            o.rules = r;
          },
          [&o] { return std::string(rule_info(o.rules).name); })
      .text("playout", o.playout, "Play-out engine from move 41 (see play --sente)",
            check_engine_spec)
      .seed("seed", o.seed, "Run seed; game j of a pair has a seed derived from it")
      .integer("first_pass", o.first_pass, 0, 1000000,
               "Games per pair in the first pass (score games; eval and both play one per pair "
               "to fit the calibration)")
      .integer("band", o.band, 1, KING_PAIRS, "Pairs closest to even to pin down")
      .number("halfwidth", o.halfwidth, 0.001, 0.5, "95 % half-width asked of each band pair")
      .integer("min_band_games", o.min_band_games, 0, 100000000,
               "... or at least this many games per band pair")
      .integer("round_games", o.round_games, 1, 100000000, "Games per adaptive round")
      .integer("max_games", o.max_games, 1L, 1000000000L, "Budget of games")
      .integer("threads", o.threads, 1, 1024, "Play-out threads")
      .integer("batch", o.batch, 1, 65536, "Games placed together (one forward pass per ply)")
      .number("temperature", o.temperature, 0.0, 100.0, "Placement temperature")
      .text("shard", o.shard,
            "i/n: play this slice of the pairs (uniformly); combine with eval merge. With "
            "--round: this slice of the round's games")
      .integer("plan", o.plan, 0, 100000,
               "M > 0: cluster rounds in --out: once every slice of --round R is finished (or "
               "before the first pass, without --round), write round R+1's schedule split into M "
               "slices, or, when the table is done, the table in --out/table (docs/cluster.md)")
      .integer("round", o.round, -1, 1000000,
               "Cluster rounds: with --shard i/M, play slice i of round R's schedule (written by "
               "--plan); with --plan, the round last played (-1: none)")
      .boolean("adaptive", o.adaptive,
               "Rounds after the first pass to pin down the band (false: the first pass only, "
               "as a set of --shard runs measures)")
      .choice("mirror", o.mirror, {"check", "pool", "off"},
              "The mirror-image pairs: check their agreement, pool them, or neither")
      .path("compare", o.compare, "An earlier table (king_pair_table/1 JSON) to compare against")
      .text("device", o.device, "cpu or cuda[:N]")
      .choice("precision", o.precision, {"fp32", "bf16", "fp16"},
              "Inference precision (fp16: CUDA only)")
      .choice("score", o.score, {"auto", "games", "eval", "both"},
              "games: real games only; eval: every pair by evaluating sampled placements at move "
              "41 (logistic scale fitted to one real game per pair); both: eval for every pair, "
              "the band re-measured with games (the site's way); auto: both with a network, "
              "games without it and for --shard, --plan and --round")
      .text("eval_engine", o.eval_engine,
            "score eval/both: the engine that evaluates move 41 (builtin, fairy-stockfish, "
            "usi:PATH; no budget), or value: the network's value head at the position after "
            "the kings, one batched pass (score both); auto: value for a network scored both, "
            "else builtin")
      .integer("eval_nodes", o.eval_nodes, 1, 1000000000, "score eval/both: nodes per evaluation")
      .integer("eval_samples", o.eval_samples, 1, 100000,
               "score eval/both: placements evaluated per pair");
  return s;
}

std::string table_scoring(const TableRunOptions& o) {
  if (o.score != "auto") return o.score;
  const bool sliced = !o.shard.empty() || o.plan > 0 || o.round >= 0;  // games only
  return o.network.empty() || sliced ? "games" : "both";
}

std::string table_eval_engine(const TableRunOptions& o) {
  if (o.eval_engine != "auto") return o.eval_engine;
  return !o.network.empty() && table_scoring(o) == "both" ? "value" : "builtin";
}

}  // namespace fuseki
