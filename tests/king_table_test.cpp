// King-pair tables in the published king_pair_table/1 layout.
#include "selfplay/king_table.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "rules/notation.h"
#include "rules/variant.h"
#include "selfplay/table_placer.h"

using namespace fuseki;
namespace fs = std::filesystem;

namespace {
fs::path write_temp(const std::string& name, const std::string& text) {
  fs::path p =
      fs::temp_directory_path() / ("fusekilab_kt_" + std::to_string(getpid()) + "_" + name);
  std::ofstream(p) << text;
  return p;
}
Square sq(const char* s) { return parse_square(s, shogi_variant()); }
}  // namespace

TEST(KingTable, ReadsPairsAndDrawsNearEven) {
  fs::path p = write_temp("small.json", R"({"format":"king_pair_table/1","pairs":{
    "5i,5a":{"v":0.62,"se":0.01,"n":100}, "1i,9a":{"v":0.49,"n":50},
    "9i,1a":{"v":0.52,"n":50}, "5f,5d":{"v":0.10,"n":10}}})");
  KingPairTable t = KingPairTable::load(p.string());
  ASSERT_EQ(t.entries().size(), 4u);
  ASSERT_NE(t.find(sq("5i"), sq("5a")), nullptr);
  EXPECT_DOUBLE_EQ(t.find(sq("5i"), sq("5a"))->v, 0.62);
  EXPECT_EQ(t.find(sq("5i"), sq("5b")), nullptr);
  auto band = t.closest_to_even(2);
  ASSERT_EQ(band.size(), 2u);
  EXPECT_EQ(KingPairTable::key(band[0].sente, band[0].gote), "1i,9a");
  EXPECT_EQ(KingPairTable::key(band[1].sente, band[1].gote), "9i,1a");
  Rng rng(1);
  for (int i = 0; i < 20; ++i) EXPECT_LT(std::abs(t.draw_near_even(2, rng).v - 0.5), 0.03);
  fs::remove(p);
}

TEST(KingTable, BadFilesGetClearErrors) {
  auto expect_error = [](const std::string& text, const std::string& what) {
    fs::path p = write_temp("bad.json", text);
    try {
      KingPairTable::load(p.string());
      ADD_FAILURE() << "accepted " << text;
    } catch (const TableError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
    fs::remove(p);
  };
  expect_error("{not json", "not valid JSON");
  expect_error(R"({"format":"other","pairs":{}})", "king_pair_table/1");
  expect_error(R"({"format":"king_pair_table/1","pairs":{"5a,5i":{"v":0.5}}})", "pair key '5a,5i'");
  expect_error(R"({"format":"king_pair_table/1","pairs":{"5i,5a":{"v":1.5}}})", "outside [0, 1]");
  expect_error(R"({"format":"king_pair_table/1","pairs":{"5i,5a":{}}})", "no numeric 'v'");
  expect_error(R"({"format":"king_pair_table/1","pairs":{}})", "no pairs");
  EXPECT_THROW(KingPairTable::load("/nonexistent/table.json"), TableError);
}

TEST(KingTable, ThePublishedPreNihikyoTable) {
  // In the repository (data/README.md): a missing file is a failure, not a skip.
  fs::path p = fs::path(PROJECT_SOURCE_DIR) / "data" / "king_pairs_iter2455_games.json";
  ASSERT_TRUE(fs::exists(p)) << "no published table at " << p;
  KingPairTable t = KingPairTable::load(p.string());
  EXPECT_EQ(t.entries().size(), 1296u);
  for (auto& e : t.closest_to_even(48)) EXPECT_LT(std::abs(e.v - 0.5), 0.1);
}

namespace {
// Balance games with the table's kings and side choice, the other drops uniform.
std::vector<Game> table_games(const KingPairTable& t, int band, int n) {
  TableKingPlacer kings(t, band);
  TableChooser chooser(t);
  UniformPlacer uniform;
  std::vector<Game> games(size_t(n), Game(Position::start(RuleSet::Balance)));
  std::vector<Rng> rngs;
  std::vector<PlacingGame> placing;
  for (int i = 0; i < n; ++i) rngs.push_back(placement_rng(uint64_t(i)));
  for (int i = 0; i < n; ++i) placing.push_back({&games[size_t(i)], &rngs[size_t(i)]});
  place_games(placing, {&kings, &chooser, {&uniform, &uniform}});
  return games;
}
}  // namespace

TEST(TableKingPlacer, DrawsEachBandPairEquallyOftenAndNoOther) {
  KingPairTable t = KingPairTable::load(
      (fs::path(PROJECT_SOURCE_DIR) / "data" / "king_pairs_iter2455_games.json").string());
  std::map<std::string, int> drawn;
  for (const Game& g : table_games(t, 48, 4800)) {
    Position placed = Position::start(RuleSet::Balance);
    placed.do_move(g.moves()[0]);
    placed.do_move(g.moves()[1]);
    ++drawn[KingPairTable::key(placed.king_square(BLACK), placed.king_square(WHITE))];
  }
  std::set<std::string> band;
  for (const KingPairEntry& e : t.closest_to_even(48))
    band.insert(KingPairTable::key(e.sente, e.gote));
  ASSERT_EQ(band.size(), 48u);
  // 100 expected per pair (binomial sd 10): a Gote king drawn apart from its pair, or Sente's
  // square weighted by anything but its pairs, falls far outside.
  EXPECT_EQ(drawn.size(), 48u);
  for (const auto& [key, count] : drawn) {
    EXPECT_TRUE(band.count(key)) << key << " is not a band pair";
    EXPECT_GT(count, 55) << key;
    EXPECT_LT(count, 150) << key;
  }
}

TEST(TableChooser, TakesSenteAboveFiftyPercent) {
  fs::path p = write_temp("choose.json", R"({"format":"king_pair_table/1","pairs":{
    "1i,9a":{"v":0.49,"n":50}, "9i,1a":{"v":0.52,"n":50}, "5f,5d":{"v":0.10,"n":10}}})");
  KingPairTable t = KingPairTable::load(p.string());
  fs::remove(p);
  int sente = 0;
  for (const Game& g : table_games(t, 2, 40)) {
    ASSERT_TRUE(g.chooser_takes.has_value());
    std::string kings = g.record().substr(0, 9);
    EXPECT_TRUE(kings == "K*1i K*9a" || kings == "K*9i K*1a") << g.record();
    EXPECT_EQ(*g.chooser_takes, kings == "K*9i K*1a" ? BLACK : WHITE) << kings;
    sente += *g.chooser_takes == BLACK;
  }
  EXPECT_GT(sente, 0);
  EXPECT_LT(sente, 40);
}
