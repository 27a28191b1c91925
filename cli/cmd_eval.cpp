// Evaluation subcommands: eval table (measure the king-pair table), eval merge (combine shards),
// place and choose (the Balance AI's decisions from a table).
#include <cstdio>

#include "cli/commands.h"
#include "eval/table_run.h"
#include "rules/notation.h"
#include "rules/record.h"
#include "selfplay/king_table.h"

namespace fuseki::cli {

void add_eval_commands(CLI::App& app, Runner& run) {
  CLI::App* eval = eval_command(app);
  eval->require_subcommand(1);
  auto a = std::make_shared<TableRunOptions>();
  CLI::App* table = eval->add_subcommand(
      "table", "Sente's win rate for every king pair, with intervals and a fit");
  table->add_option("--out", a->out, "Output directory (resumes a run found there)")
      ->capture_default_str();
  table->add_option("--network", a->network,
                    "Placement network checkpoint (default: uniform random placement)");
  table->add_option("--rules", a->rules, "balance or balance-v1")->capture_default_str();
  table->add_option("--playout", a->playout, "Play-out engine (see play --sente)")
      ->capture_default_str();
  table->add_option("--seed", a->seed, "Run seed; game j of a pair has a seed derived from it")
      ->capture_default_str();
  table->add_option("--first-pass", a->first_pass, "Games per pair in the first pass")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  table->add_option("--band", a->band, "Pairs closest to even to pin down")
      ->check(CLI::Range(1, KING_PAIRS))
      ->capture_default_str();
  table->add_option("--halfwidth", a->halfwidth, "95 % half-width asked of each band pair")
      ->check(CLI::Range(0.001, 0.5))
      ->capture_default_str();
  table
      ->add_option("--min-band-games", a->min_band_games,
                   "... or at least this many games per band pair")
      ->check(CLI::Range(0, 100000000));
  table->add_option("--round-games", a->round_games, "Games per adaptive round")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  table->add_option("--max-games", a->max_games, "Budget")
      ->check(CLI::Range(1L, 1000000000L))
      ->capture_default_str();
  table->add_option("--threads", a->threads, "Play-out threads")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  table->add_option("--temperature", a->temperature, "Placement temperature")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  table->add_option("--shard", a->shard,
                    "i/n: play this slice of the pairs (uniformly); combine with eval merge");
  table
      ->add_option("--adaptive", a->adaptive,
                   "true: rounds after the first pass to pin down the band; false: the first "
                   "pass only (as a set of --shard runs measures)")
      ->capture_default_str();
  table->add_option("--mirror", a->mirror, "check, pool or off")
      ->check(CLI::IsMember({"check", "pool", "off"}))
      ->capture_default_str();
  table->add_option("--compare", a->compare,
                    "An earlier table (king_pair_table/1 JSON) to compare against");
  table->add_option("--device", a->device, "cpu or cuda[:N]")->capture_default_str();
  table
      ->add_option("--precision", a->precision, "Inference precision: fp32, bf16, fp16 (CUDA only)")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}))
      ->capture_default_str();
  table->callback([&run, a] { run = [a] { return run_table(*a); }; });

  struct MergeArgs {
    std::string out;
    std::vector<std::string> shards;
    int band = 48;
    std::string compare;
  };
  auto m = std::make_shared<MergeArgs>();
  CLI::App* merge = eval->add_subcommand(
      "merge", "Combine the shard directories of eval table --shard into one table");
  merge->add_option("--out", m->out, "Output directory")->required();
  merge->add_option("shards", m->shards, "Shard directories")->required();
  merge->add_option("--band", m->band, "Pairs closest to even")->check(CLI::Range(1, KING_PAIRS));
  merge->add_option("--compare", m->compare, "An earlier table to compare against");
  merge->callback(
      [&run, m] { run = [m] { return run_merge(m->out, m->shards, m->band, m->compare); }; });

  auto table_path = std::make_shared<std::string>();
  auto band = std::make_shared<int>(48);
  auto seed = std::make_shared<uint64_t>(1);
  CLI::App* place =
      app.add_subcommand("place", "The Balance AI's kings: a pair drawn from the band of a table");
  place->add_option("--table", *table_path, "king_pair_table/1 JSON")->required();
  place->add_option("--band", *band, "Draw among this many pairs closest to even")
      ->check(CLI::Range(1, KING_PAIRS))
      ->capture_default_str();
  place->add_option("--seed", *seed, "Seed of the draw")->capture_default_str();
  place->callback([&run, table_path, band, seed] {
    run = [table_path, band, seed] {
      KingPairTable t = KingPairTable::load(*table_path);
      Rng rng(*seed);
      KingPairEntry e = t.draw_near_even(*band, rng);
      std::printf("K*%s K*%s\n", square_name(e.sente).c_str(), square_name(e.gote).c_str());
      return 0;
    };
  });
  auto moves = std::make_shared<std::string>();
  auto choose_table = std::make_shared<std::string>();
  CLI::App* choose = app.add_subcommand(
      "choose", "The Balance AI's side choice after the kings: Sente above 50 %");
  choose->add_option("--table", *choose_table, "king_pair_table/1 JSON")->required();
  choose->add_option("--moves", *moves, "The two king drops, e.g. \"K*5i K*5a\"")->required();
  choose->callback([&run, choose_table, moves] {
    run = [choose_table, moves] {
      KingPairTable t = KingPairTable::load(*choose_table);
      Position pos = Position::start(RuleSet::Balance);
      play_record(pos, *moves);
      if (pos.ply() != 2) throw RulesError("--moves must be exactly the two king drops");
      const KingPairEntry* e = t.find(pos.king_square(BLACK), pos.king_square(WHITE));
      if (!e) throw RulesError("the table has no value for this pair");
      std::printf("%s\n", e->v > 0.5 ? "choose:sente" : "choose:gote");
      return 0;
    };
  });
}

}  // namespace fuseki::cli
