// report.html of the king-pair table, read back as a player would: each camp's board diagram
// shows table.json's per-square values on the right squares, the 36 x 36 map labels every square
// and outlines the band, the band list shows each band pair's value, interval and games (and a
// second score when the pair has one), the comparison plots every pair shared with the earlier
// table and states the right mean |dv| and correlation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "eval/simulate.h"
#include "eval/table_output.h"
#include "rules/notation.h"

using namespace fuseki;
using nlohmann::json;

namespace {

// A table of `games_per_pair` simulated games per pair; one `rates` seed, one kind of table.
TableReport simulated_report(uint64_t rates, uint64_t seed, int games_per_pair) {
  AllocationOptions o;
  o.adaptive = false;
  o.first_pass = games_per_pair;
  TableBuilder b(o, seed);
  SimulatedGames sim(simulated_rates(rates));
  b.run(sim, nullptr, nullptr);
  return make_report(b.tallies(), kKingBand, {{"seed", std::to_string(seed)}});
}

// The text from `start` to the end of its element (`end`), or "" when `start` is missing.
std::string section(const std::string& html, const std::string& start,
                    const std::string& end = "</svg>") {
  size_t a = html.find(start);
  if (a == std::string::npos) return "";
  size_t b = html.find(end, a);
  return html.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

std::vector<std::smatch> matches(const std::string& text, const std::string& pattern) {
  std::regex re(pattern);
  return {std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()};
}

// A king_pair_table/1 file for `--compare`, with `drop` pairs left out.
KingPairTable earlier_table(const TableReport& r, int drop, const std::string& name) {
  json j = json::parse(table_json(r));
  for (int p = 0; p < drop; ++p) j["pairs"].erase(pair_key(p * 7));
  std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << j.dump();
  KingPairTable t = KingPairTable::load(path);
  std::filesystem::remove(path);
  return t;
}

void check_board(const std::string& html, const json& table, bool sente) {
  const std::string board =
      section(html, sente ? "<svg id=\"board-sente\"" : "<svg id=\"board-gote\"");
  ASSERT_FALSE(board.empty());
  const json& values = table[sente ? "black_king_value_pt" : "white_king_value_pt"];
  auto squares =
      matches(board,
              "<g class=\"king-square\" data-square=\"([1-9][a-i])\"><rect x=\"([0-9.]+)\" "
              "y=\"([0-9.]+)\"[^>]*/><text[^>]*>([^<]*)</text>");
  ASSERT_EQ(squares.size(), 36u);
  std::set<std::string> seen;
  std::map<std::string, std::pair<double, double>> at;  // square -> (x, y)
  for (const std::smatch& m : squares) {
    const std::string sq = m[1];
    seen.insert(sq);
    at[sq] = {std::stod(m[2]), std::stod(m[3])};
    ASSERT_TRUE(values.contains(sq)) << sq;
    // The shown value is table.json's, to the one decimal shown.
    EXPECT_NEAR(std::stod(m[4]), values[sq].get<double>(), 0.05 + 1e-9) << sq;
  }
  EXPECT_EQ(seen.size(), 36u);
  for (const std::string& sq : seen)
    EXPECT_NE(std::string(sente ? "fghi" : "abcd").find(sq[1]), std::string::npos) << sq;
  // As a shogi diagram: file 9 on the left, file 1 on the right; the camp's ranks from the top.
  const std::string top = sente ? "f" : "a", bottom = sente ? "i" : "d";
  EXPECT_LT(at["9" + top].first, at["5" + top].first);
  EXPECT_LT(at["5" + top].first, at["1" + top].first);
  EXPECT_EQ(at["9" + top].second, at["1" + top].second);
  EXPECT_LT(at["5" + top].second, at["5" + bottom].second);
  std::string files, ranks;
  for (const std::smatch& m : matches(board, "class=\"file-label\"[^>]*>([1-9])<")) files += m[1];
  for (const std::smatch& m : matches(board, "class=\"rank-label\"[^>]*>([a-i])<")) ranks += m[1];
  EXPECT_EQ(files, "987654321");
  EXPECT_EQ(ranks, sente ? "fghi" : "abcd");
}

}  // namespace

TEST(TableReport, BoardDiagramsShowEachSquaresValueFromTableJson) {
  const TableReport r = simulated_report(21, 1, 6);
  const std::string html = table_html(r, nullptr);
  const json table = json::parse(table_json(r));
  check_board(html, table, true);
  check_board(html, table, false);
  // The value itself: Sente's mean v with the king on 5i, less the mean over all pairs.
  double all = 0, on_5i = 0;
  const int s5i =
      pair_index(parse_square("5i", shogi_variant()), gote_king_square(0)) / KING_SQUARES;
  for (int p = 0; p < KING_PAIRS; ++p) {
    all += r.fit.pairs[size_t(p)].v / KING_PAIRS;
    if (p / KING_SQUARES == s5i) on_5i += r.fit.pairs[size_t(p)].v / KING_SQUARES;
  }
  EXPECT_NEAR(table["black_king_value_pt"]["5i"].get<double>(), 100 * (on_5i - all), 1e-9);
  // Both boards and their colour legend in one section.
  const std::string kings = section(html, "<section id=\"kings\"", "</section>");
  EXPECT_NE(kings.find("id=\"board-gote\""), std::string::npos);
  EXPECT_NE(kings.find("id=\"board-sente\""), std::string::npos);
  EXPECT_NE(kings.find("class=\"legend\""), std::string::npos);
}

TEST(TableReport, TheMapLabelsEverySquareOnBothAxesAndOutlinesTheBand) {
  const TableReport r = simulated_report(22, 1, 6);
  const std::string map = section(table_html(r, nullptr), "<svg id=\"map-v\"");
  ASSERT_FALSE(map.empty());
  std::vector<std::string> rows, columns;
  for (const std::smatch& m :
       matches(map, "class=\"row-label\" x=\"[0-9.]+\" y=\"[0-9.]+\"[^>]*>([1-9][a-i])<"))
    rows.push_back(m[1]);
  for (const std::smatch& m : matches(map, "class=\"col-label\"[^>]*>([1-9][a-i])<"))
    columns.push_back(m[1]);
  ASSERT_EQ(rows.size(), 36u);
  ASSERT_EQ(columns.size(), 36u);
  std::set<std::string> sente, gote;
  for (int i = 0; i < KING_SQUARES; ++i) {
    sente.insert(square_name(sente_king_square(i)));
    gote.insert(square_name(gote_king_square(i)));
  }
  EXPECT_EQ(std::set<std::string>(rows.begin(), rows.end()), sente);
  EXPECT_EQ(std::set<std::string>(columns.begin(), columns.end()), gote);
  // Read as the board: ranks from the top, files 9..1.
  EXPECT_EQ(rows.front(), "9f");
  EXPECT_EQ(rows.back(), "1i");
  EXPECT_EQ(columns.front(), "9a");
  EXPECT_EQ(columns.back(), "1d");
  EXPECT_EQ(matches(map, "<rect [^>]*><title>").size(), size_t(KING_PAIRS));
  // Each outline sits on a band pair: its row and column name the pair.
  auto cells =
      matches(map, "<rect x=\"([0-9.]+)\" y=\"([0-9.]+)\"[^>]*><title>([1-9][a-i]),([1-9][a-i]):");
  ASSERT_EQ(cells.size(), size_t(KING_PAIRS));
  std::map<std::pair<std::string, std::string>, std::string> key_at;
  for (const std::smatch& m : cells)
    key_at[{m[1], m[2]}] = std::string(m[3]) + "," + std::string(m[4]);
  std::set<std::string> outlined, band;
  for (const std::smatch& m : matches(map, "class=\"band-mark\" x=\"([0-9.]+)\" y=\"([0-9.]+)\""))
    outlined.insert(key_at[{m[1], m[2]}]);
  for (int p : r.band) band.insert(pair_key(p));
  EXPECT_EQ(band.size(), size_t(kKingBand));
  EXPECT_EQ(outlined, band);
  EXPECT_NE(map.find("class=\"legend\""), std::string::npos);
}

TEST(TableReport, TheBandListShowsEachPairsValueIntervalAndGames) {
  TableReport r = simulated_report(23, 1, 8);
  std::string list = section(table_html(r, nullptr), "<table id=\"band-list\"", "</table>");
  auto rows =
      matches(list,
              "<tr class=\"band-pair\" data-key=\"([^\"]+)\"><td>([0-9]+)</td><td>([^<]+)</td>"
              "<td>([0-9.]+)</td><td>\\[([0-9.]+), ([0-9.]+)\\]</td><td>([0-9]+)</td>"
              "<td>([0-9.]+) \\[([0-9.]+), ([0-9.]+)\\]</td></tr>");
  ASSERT_EQ(rows.size(), size_t(kKingBand));
  EXPECT_EQ(list.find("v (eval)"), std::string::npos);  // no pair has a second score
  EXPECT_NE(list.find("<th>v</th>"), std::string::npos);
  for (size_t i = 0; i < rows.size(); ++i) {
    const int p = r.band[i];
    const PairEstimate& e = r.fit.pairs[size_t(p)];
    EXPECT_EQ(rows[i][1], pair_key(p));  // closest to 50 % first
    EXPECT_EQ(std::stoi(rows[i][2]), int(i) + 1);
    EXPECT_NEAR(std::stod(rows[i][4]), e.v, 5e-4 + 1e-12);
    const double low = std::stod(rows[i][5]), high = std::stod(rows[i][6]);
    EXPECT_LT(low, high);
    EXPECT_NEAR((high - low) / 2, 1.96 * e.se, 1e-3);
    EXPECT_LE(low, e.v);
    EXPECT_GE(high, e.v);
    EXPECT_EQ(std::stoi(rows[i][7]), r.tallies[size_t(p)].games);
    EXPECT_NEAR(std::stod(rows[i][8]), e.v_raw, 5e-4 + 1e-12);  // the pair's own games
    EXPECT_NEAR(std::stod(rows[i][9]), e.low, 5e-4 + 1e-12);
    EXPECT_NEAR(std::stod(rows[i][10]), e.high, 5e-4 + 1e-12);
  }

  // A second score on some band pairs: "v (games)", "v (eval)" and their difference.
  r.fit.pairs[size_t(r.band[0])].v_eval = 0.61;
  r.fit.pairs[size_t(r.band[5])].v_eval = 0.37;
  list = section(table_html(r, nullptr), "<table id=\"band-list\"", "</table>");
  EXPECT_NE(list.find("<th>v (games)</th>"), std::string::npos);
  EXPECT_NE(list.find("<th>v (eval)</th>"), std::string::npos);
  rows = matches(list,
                 "<tr class=\"band-pair\" "
                 "data-key=\"([^\"]+)\">.*?<td>([0-9]+)</td><td>[^<]+</td><td>([^<]+)</"
                 "td><td>([^<]+)</td></tr>");
  ASSERT_EQ(rows.size(), size_t(kKingBand));
  for (size_t i = 0; i < rows.size(); ++i) {
    const PairEstimate& e = r.fit.pairs[size_t(r.band[i])];
    if (e.v_eval) {
      EXPECT_NEAR(std::stod(rows[i][3]), *e.v_eval, 5e-4 + 1e-12);
      EXPECT_NEAR(std::stod(rows[i][4]), *e.v_eval - e.v, 1e-3);
    } else {
      EXPECT_EQ(rows[i][3], "&#8211;");
    }
  }
  // table.json carries the second score, and the pair's own games' score as v_games, only for
  // those pairs.
  const json j = json::parse(table_json(r));
  EXPECT_EQ(j["pairs"][pair_key(r.band[5])]["v_eval"].get<double>(), 0.37);
  EXPECT_EQ(j["pairs"][pair_key(r.band[5])]["v_games"].get<double>(),
            r.fit.pairs[size_t(r.band[5])].v_raw);
  EXPECT_FALSE(j["pairs"][pair_key(r.band[1])].contains("v_eval"));
}

TEST(TableReport, TheComparisonPlotsEverySharedPairAgainstTheIdentityLine) {
  const TableReport now = simulated_report(24, 1, 6), before = simulated_report(24, 2, 6);
  const KingPairTable earlier = earlier_table(before, 5, "fusekilab-table-report-earlier.json");
  const std::string html = table_html(now, &earlier);
  const std::string plot = section(html, "<svg id=\"scatter\"");
  ASSERT_FALSE(plot.empty());
  auto identity = matches(
      plot,
      "class=\"identity\" x1=\"([0-9.]+)\" y1=\"([0-9.]+)\" x2=\"([0-9.]+)\" y2=\"([0-9.]+)\"");
  ASSERT_EQ(identity.size(), 1u);
  const double x0 = std::stod(identity[0][1]), y0 = std::stod(identity[0][2]),
               x1 = std::stod(identity[0][3]), y1 = std::stod(identity[0][4]);
  EXPECT_GT(x1 - x0, 100);
  EXPECT_DOUBLE_EQ(x1 - x0, y0 - y1);  // v = v on axes of one scale
  auto points =
      matches(plot,
              "<circle class=\"pair( band)?\" data-key=\"([^\"]+)\" data-earlier=\"([0-9.]+)\" "
              "data-now=\"([0-9.]+)\" cx=\"([0-9.]+)\" cy=\"([0-9.]+)\"");
  ASSERT_EQ(points.size(), size_t(KING_PAIRS - 5));  // the pairs in both tables, once each
  std::map<std::string, double> v_before, v_now;
  for (const KingPairEntry& e : earlier.entries())
    v_before[square_name(e.sente) + "," + square_name(e.gote)] = e.v;
  for (int p = 0; p < KING_PAIRS; ++p) v_now[pair_key(p)] = now.fit.pairs[size_t(p)].v;
  std::set<std::string> keys, band_points, band;
  for (int p : now.band) band.insert(pair_key(p));
  double mean_abs = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  const double n = double(points.size());
  for (const std::smatch& m : points) {
    const std::string key = m[2];
    keys.insert(key);
    if (m[1].matched) band_points.insert(key);
    ASSERT_TRUE(v_before.count(key)) << key;
    const double x = v_before[key], y = v_now.at(key);
    EXPECT_NEAR(std::stod(m[3]), x, 5e-5 + 1e-12);
    EXPECT_NEAR(std::stod(m[4]), y, 5e-5 + 1e-12);
    // Where it is drawn: x from the earlier value, y from this table's, on the identity's scale.
    EXPECT_NEAR(std::stod(m[5]), x0 + x * (x1 - x0), 0.01);
    EXPECT_NEAR(std::stod(m[6]), y0 - y * (y0 - y1), 0.01);
    mean_abs += std::abs(y - x) / n;
    sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
  }
  EXPECT_EQ(keys.size(), points.size());
  for (const std::string& k : band)  // highlighted: this table's band pairs, and only they
    EXPECT_EQ(band_points.count(k), v_before.count(k)) << k;
  for (const std::string& k : band_points) EXPECT_TRUE(band.count(k)) << k;
  const double r = (n * sxy - sx * sy) / std::sqrt((n * sxx - sx * sx) * (n * syy - sy * sy));
  auto stated =
      matches(html, "mean \\|&#916;v\\| <b>([0-9.]+)</b>, correlation <b>(-?[0-9.]+)</b>");
  ASSERT_EQ(stated.size(), 1u);
  EXPECT_NEAR(std::stod(stated[0][1]), mean_abs, 1e-4);
  EXPECT_NEAR(std::stod(stated[0][2]), r, 1e-4);
  EXPECT_GT(r, 0.5);  // two simulations of one kind of table agree broadly
  // Without an earlier table there is no comparison.
  EXPECT_EQ(table_html(now, nullptr).find("id=\"scatter\""), std::string::npos);
}
