// Evaluation subcommands: eval table (measure the king-pair table), eval merge (combine shards),
// place and choose (the Balance AI's decisions from a table).
#include <cstdio>
#include <sstream>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "eval/strength.h"
#include "eval/table_run.h"
#include "rules/notation.h"
#include "rules/record.h"
#include "selfplay/king_table.h"

namespace fuseki::cli {

void add_eval_commands(CLI::App& app, Runner& run) {
  CLI::App* eval = eval_command(app);
  eval->require_subcommand(1);
  CLI::App* table = eval->add_subcommand(
      "table", "Sente's win rate for every king pair, with intervals and a fit");
  options_command<TableRunOptions>(table, run, table_run_sections, true,
                                   [](const TableRunOptions& o) { return run_table(o); });

  options_command<StrengthCommand>(
      eval->add_subcommand("strength",
                           "A network's score and Elo against reference placers (uniform, "
                           "checkpoints): fixed games, both colours, a referee play-out"),
      run, strength_command_sections, true, run_strength_command);

  struct MergeArgs {
    std::string out;
    std::vector<std::string> shards;
    int band = kKingBand;
    std::string compare;
  };
  auto m = std::make_shared<MergeArgs>();
  CLI::App* merge = eval->add_subcommand(
      "merge", "Combine the shard directories of eval table --shard into one table");
  merge->add_option("--out", m->out, "Output directory")->required();
  merge->add_option("shards", m->shards, "Shard directories")->required();
  merge->add_option("--band", m->band, "Pairs closest to even")->check(integer_in(1, KING_PAIRS));
  merge->add_option("--compare", m->compare, "An earlier table to compare against");
  merge->callback(
      [&run, m] { run = [m] { return run_merge(m->out, m->shards, m->band, m->compare); }; });

  auto table_path = std::make_shared<std::string>();
  auto band = std::make_shared<int>(kKingBand);
  auto seed = std::make_shared<uint64_t>(1);
  CLI::App* place =
      app.add_subcommand("place", "The Balance AI's kings: a pair drawn from the band of a table");
  place->add_option("--table", *table_path, "king_pair_table/1 JSON")->required();
  place->add_option("--band", *band, "Draw among this many pairs closest to even")
      ->check(integer_in(1, KING_PAIRS))
      ->capture_default_str();
  place->add_option("--seed", *seed, "Seed of the draw")
      ->check(seed_value())
      ->capture_default_str();
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
      std::istringstream tokens(*moves);
      int count = 0;
      for (std::string token; tokens >> token;) ++count;
      play_record(pos, *moves);
      if (pos.ply() != 2 || count != 2)
        throw RulesError("--moves must be exactly the two king drops, e.g. \"K*5i K*5a\"");
      const KingPairEntry* e = t.find(pos.king_square(BLACK), pos.king_square(WHITE));
      if (!e) throw RulesError("the table has no value for this pair");
      std::printf("%s\n", e->v > 0.5 ? "choose:sente" : "choose:gote");
      return 0;
    };
  });
}

}  // namespace fuseki::cli
