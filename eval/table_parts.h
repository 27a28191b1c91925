// What eval table's one-process run (table_run.cpp) and its rounds on a cluster
// (table_rounds.cpp) share: the settings, the allocation, the games, the report and the outputs.
// One definition of each, so that a table planned round by round on a cluster is the one-process
// table byte for byte.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/placer.h"
#include "eval/table_builder.h"
#include "eval/table_options.h"
#include "eval/table_output.h"
#include "selfplay/generator.h"

namespace fuseki {

namespace net {
class Evaluator;
}
class PlacementGames;

// The run's settings as recorded in settings.json and in the table (adaptive "off" included).
std::map<std::string, std::string> settings_of(const TableRunOptions& a);
std::map<std::string, std::string> table_settings(const TableRunOptions& a);
// The builder's allocation settings (all pairs).
AllocationOptions table_allocation(const TableRunOptions& a);
// The site's name of the placement network: iterN for a checkpoint of generation N.
std::string model_name(const std::string& network);
// The table of what `builder` holds.
TableReport table_report(const TableBuilder& builder, const TableRunOptions& a,
                         const std::map<std::string, std::string>& settings);
// table.json, table.csv, report.html and games.h5 in `out`, each written atomically (`compare`,
// an earlier table for the report, read before any of them).
void write_outputs(const std::filesystem::path& out, const TableReport& report,
                   const std::vector<PairResult>& results, const std::string& compare);
// A result's journal line (read back by read_table_journal).
std::string table_result_line(const PairResult& r);

// The table's real games with the run's placement (--network, or uniform) and play-out.
class TableGames : public GameSource {
 public:
  explicit TableGames(const TableRunOptions& a);  // loads the network: throws on a bad one
  ~TableGames() override;
  void play(const std::vector<PairGame>& games,
            const std::function<void(const PairResult&)>& done) override;
  bool has_network() const { return eval_ != nullptr; }
  // Sente's expected score for each pair by the network's value head at the position after the
  // kings (one batched pass); needs has_network().
  std::vector<double> value_prior(RuleSet rules) const;
  // The same placement played to move 41 only, and evaluated there (eval table --score eval|both).
  std::unique_ptr<PlacementGames> evaluator(const TableRunOptions& a) const;

 private:
  std::unique_ptr<net::Evaluator> eval_;
  std::unique_ptr<Placer> placer_;
  std::unique_ptr<PlacementGames> games_;
  SelfPlayOptions options_;
};

// eval table --plan M / --round R (table_rounds.cpp): the rounds of an adaptive table played by
// arrays of processes.
int run_table_rounds(const TableRunOptions& a);

}  // namespace fuseki
