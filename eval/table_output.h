// The king-pair table's outputs: JSON in the published layout (king_pair_table/1), CSV, an HTML
// report with the 36 x 36 heat map, and an HDF5 file with every game's result and seed.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "eval/table_builder.h"
#include "selfplay/king_table.h"

namespace fuseki {

struct TableReport {
  std::map<std::string, std::string> settings;  // rules, network, play-out, seed, ...
  std::vector<PairTally> tallies;
  TableFit fit;
  std::vector<int> band;
  long games = 0;
  long uniform_equivalent = 0;
  int rounds = 0;
  int mirror_disagreements =
      -1;  // pairs whose mirror disagrees beyond the intervals; -1: unchecked
  // The placement network as the fusekishogi.com front end names it: "iterN", N the checkpoint's
  // generation (the site matches it against the iterN in the network's file name); "uniform"
  // without a network.
  std::string model = "uniform";
};

TableReport make_report(const std::vector<PairTally>& tallies, int band,
                        std::map<std::string, std::string> settings);
// Pairs whose raw score and their mirror's differ by more than 1.96 combined standard errors.
int mirror_disagreements(const std::vector<PairTally>& tallies);
// Each pair's tally pooled with its mirror's (files reflected).
std::vector<PairTally> pool_mirrors(const std::vector<PairTally>& tallies);

std::string table_json(const TableReport& r);
std::string table_csv(const TableReport& r);
// `earlier` (may be null): a table to compare against, e.g. the published pre-Nihikyo one.
std::string table_html(const TableReport& r, const KingPairTable* earlier);

}  // namespace fuseki
