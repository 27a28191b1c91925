#include "selfplay/king_table.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "rules/notation.h"
#include "rules/variant.h"

namespace fuseki {

std::string KingPairTable::key(Square sente, Square gote) {
  return square_name(sente) + "," + square_name(gote);
}

KingPairTable KingPairTable::load(const std::string& path) {
  if (std::filesystem::is_directory(path))
    throw TableError(path + ": a directory, not a king-pair table");
  std::ifstream in(path);
  if (!in) throw TableError(path + ": cannot open king-pair table");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw TableError(path + ": not valid JSON (" + std::string(e.what()) + ")");
  }
  if (!j.is_object() || j.value("format", "") != "king_pair_table/1")
    throw TableError(path + ": not a king_pair_table/1 file (format field)");
  if (!j.contains("pairs") || !j["pairs"].is_object())
    throw TableError(path + ": no 'pairs' object");
  const Variant& v = shogi_variant();
  KingPairTable t;
  t.source_ = path;
  for (auto& [k, entry] : j["pairs"].items()) {
    size_t comma = k.find(',');
    Square s = comma == std::string::npos ? SQ_NONE : parse_square(k.substr(0, comma), v);
    Square g = comma == std::string::npos ? SQ_NONE : parse_square(k.substr(comma + 1), v);
    if (s == SQ_NONE || g == SQ_NONE || !test(v.camp[BLACK], s) || !test(v.camp[WHITE], g))
      throw TableError(path + ": pair key '" + k +
                       "' is not '<Sente camp square>,<Gote camp square>'");
    if (!entry.is_object() || !entry.contains("v") || !entry["v"].is_number())
      throw TableError(path + ": pair '" + k + "' has no numeric 'v'");
    KingPairEntry e;
    e.sente = s;
    e.gote = g;
    e.v = entry["v"].get<double>();
    if (!(e.v >= 0 && e.v <= 1)) throw TableError(path + ": pair '" + k + "' has v outside [0, 1]");
    e.se = entry.value("se", 0.0);
    e.n = entry.value("n", 0);
    t.index_[{s, g}] = t.entries_.size();
    t.entries_.push_back(e);
  }
  if (t.entries_.empty()) throw TableError(path + ": the table has no pairs");
  return t;
}

const KingPairEntry* KingPairTable::find(Square sente, Square gote) const {
  auto it = index_.find({sente, gote});
  return it == index_.end() ? nullptr : &entries_[it->second];
}

std::vector<KingPairEntry> KingPairTable::closest_to_even(int n) const {
  std::vector<KingPairEntry> sorted = entries_;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const KingPairEntry& a, const KingPairEntry& b) {
                     return std::abs(a.v - 0.5) < std::abs(b.v - 0.5);
                   });
  sorted.resize(std::min<size_t>(sorted.size(), size_t(std::max(n, 1))));
  return sorted;
}

KingPairEntry KingPairTable::draw_near_even(int n, Rng& rng) const {
  std::vector<KingPairEntry> band = closest_to_even(n);
  return band[rng.below(uint32_t(band.size()))];
}

}  // namespace fuseki
