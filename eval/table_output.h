// The king-pair table's outputs: JSON in the published layout (king_pair_table/1), CSV, an HTML
// report with the 36 x 36 heat map, and an HDF5 file with every game's result and seed.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "eval/eval_scores.h"
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
  // Scoring (eval table --score): "games", or "eval" / "both" with what the evaluation gave.
  std::string score = "games";
  long evaluations = 0;
  EvalCalibration calibration;  // eval, both: fitted to the games of evaluated placements
  EvalAgreement agreement;      // both: evaluation against games on the band
  bool band_precise = false;
};

TableReport make_report(const std::vector<PairTally>& tallies, int band,
                        std::map<std::string, std::string> settings);
// Pairs whose raw score and their mirror's differ by more than 1.96 combined standard errors.
int mirror_disagreements(const std::vector<PairTally>& tallies);
// Each pair's tally pooled with its mirror's (files reflected).
std::vector<PairTally> pool_mirrors(const std::vector<PairTally>& tallies);

// Per king square, what the site's heat maps show (table.json's black_king_value_pt and
// white_king_value_pt): the mean of Sente's v over the other king's 36 squares less the mean over
// all pairs, in percentage points; Sente's view for both kings. Index i is sente_king_square(i)
// and gote_king_square(i).
struct KingSquareValues {
  std::array<double, KING_SQUARES> sente{}, gote{};
};
KingSquareValues king_values_pt(const TableFit& fit);

std::string table_json(const TableReport& r);
std::string table_csv(const TableReport& r);
// The report as players read it (eval/table_html.cpp): each camp's king values on a board diagram,
// the 36 x 36 map, the band as a list and, with `earlier` (may be null: a table to compare
// against, e.g. the published pre-Nihikyo one), a scatter plot of the two tables' values.
std::string table_html(const TableReport& r, const KingPairTable* earlier);

}  // namespace fuseki
