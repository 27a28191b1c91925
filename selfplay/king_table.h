// King-pair tables in the published layout (king_pair_table/1): Sente's win rate for each pair of
// king squares (36 Sente squares x 36 Gote squares), keyed "<sente sq>,<gote sq>", e.g. "5i,5a".
// Balance Shogi's placer draws a pair from the N closest to even; the chooser takes Sente when
// the pair's value is above 50 %.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "rules/rng.h"
#include "rules/types.h"

namespace fuseki {

// The band: how many pairs closest to even the Balance AI draws its kings from (the site's 48),
// the default of every command and setting that names one.
constexpr int kKingBand = 48;

struct KingPairEntry {
  Square sente = SQ_NONE, gote = SQ_NONE;
  double v = 0.5;  // Sente's win rate (draws half)
  double se = 0;   // its standard error
  int n = 0;       // games (or rollouts) behind it
};

struct TableError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class KingPairTable {
 public:
  // Reads a king_pair_table/1 JSON file; throws TableError naming the file and the problem.
  static KingPairTable load(const std::string& path);
  static std::string key(Square sente, Square gote);  // "5i,5a"

  const KingPairEntry* find(Square sente, Square gote) const;
  const std::vector<KingPairEntry>& entries() const { return entries_; }
  // The n pairs whose value is closest to 50 %, closest first.
  std::vector<KingPairEntry> closest_to_even(int n) const;
  // The placer's draw: one of the n pairs closest to even, uniformly.
  KingPairEntry draw_near_even(int n, Rng& rng) const;
  const std::string& source() const { return source_; }

 private:
  std::vector<KingPairEntry> entries_;
  std::map<std::pair<Square, Square>, size_t> index_;
  std::string source_;
};

}  // namespace fuseki
