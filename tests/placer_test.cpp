// The placement seam: the uniform placer, the placement loop's grouping and side choice, and the
// play-out engine pool.
#include "engine/placer.h"

#include <gtest/gtest.h>

#include <set>

#include "engine/engine_pool.h"
#include "engine/match.h"
#include "rules/movegen.h"
#include "rules/notation.h"

using namespace fuseki;

namespace {

// Counts its calls and the requests they held, and checks every answer is a legal drop.
class CountingPlacer : public Placer {
 public:
  std::string name() const override { return "counting"; }
  void place(std::span<PlacementRequest> requests) override {
    ++calls;
    sizes.insert(requests.size());
    uniform.place(requests);
    for (const PlacementRequest& r : requests) {
      MoveList legal;
      generate_legal(*r.position, legal);
      bool found = false;
      for (Move m : legal) found |= m == r.move;
      EXPECT_TRUE(found) << "not a legal drop at " << r.position->sfen();
    }
  }
  int calls = 0;
  std::set<size_t> sizes;
  UniformPlacer uniform;
};

class CountingChooser : public Chooser {
 public:
  std::string name() const override { return "counting"; }
  void choose(std::span<ChoiceRequest> requests) override {
    ++calls;
    for (ChoiceRequest& r : requests) {
      EXPECT_EQ(r.position->ply(), 2);
      r.takes = WHITE;
    }
  }
  int calls = 0;
};

struct Games {
  std::vector<Game> games;
  std::vector<Rng> rngs;
  std::vector<PlacingGame> placing;
  Games(RuleSet r, int n) {
    for (int i = 0; i < n; ++i) {
      games.emplace_back(Position::start(r));
      rngs.push_back(placement_rng(uint64_t(i + 1)));
    }
    for (int i = 0; i < n; ++i) placing.push_back({&games[size_t(i)], &rngs[size_t(i)]});
  }
};

}  // namespace

TEST(UniformPlacer, PlacesOnlyLegalDropsAndTheSameGameForTheSameSeed) {
  for (RuleSet r : {RuleSet::Fuseki, RuleSet::Balance}) {
    Games g(r, 20);
    CountingPlacer placer;
    UniformChooser chooser;
    place_games(g.placing, {&placer, &chooser, {&placer, &placer}});
    std::set<std::string> records;
    for (size_t i = 0; i < g.games.size(); ++i) {
      const Game& game = g.games[i];
      EXPECT_TRUE(game.over() || game.position().ply() == 40) << game.record();
      EXPECT_EQ(game.chooser_takes.has_value(), r == RuleSet::Balance);
      Game again(Position::start(r));
      random_placement(again, uint64_t(i + 1));
      EXPECT_EQ(again.record(), game.record());
      records.insert(game.record());
    }
    EXPECT_EQ(records.size(), g.games.size());  // other seeds, other games
  }
}

TEST(PlaceGames, OnePlacerCallPerPlyForAllGamesItPlaces) {
  Games shared(RuleSet::Balance, 6);
  CountingPlacer network;
  CountingChooser chooser;
  place_games(shared.placing, {&network, &chooser, {&network, &network}});
  EXPECT_EQ(network.calls, 40);  // kings and drops: the same placer, one call per ply
  EXPECT_EQ(network.sizes, (std::set<size_t>{6}));
  EXPECT_EQ(chooser.calls, 1);
  for (const Game& g : shared.games) EXPECT_EQ(g.chooser_takes, WHITE);

  Games match(RuleSet::Balance, 6);
  CountingPlacer kings, sente, gote;
  place_games(match.placing, {&kings, &chooser, {&sente, &gote}});
  EXPECT_EQ(kings.calls, 2);
  EXPECT_EQ(sente.calls, 19);
  EXPECT_EQ(gote.calls, 19);
}

TEST(PlaceGames, KingsGivenBeforePlacementAreNotChosen) {
  Games g(RuleSet::Balance, 3);
  for (Game& game : g.games) {
    const Variant& v = game.position().variant();
    game.play(make_drop(KING, parse_square("5i", v)));
    game.play(make_drop(KING, parse_square("5a", v)));
  }
  UniformPlacer uniform;
  place_games(g.placing, {nullptr, nullptr, {&uniform, &uniform}});  // no kings placer asked
  for (const Game& game : g.games) {
    EXPECT_TRUE(game.over() || game.position().ply() == 40);
    EXPECT_FALSE(game.chooser_takes.has_value());
  }
}

TEST(PlaceGames, AMissingPlacerIsAnError) {
  Games balance(RuleSet::Balance, 1);
  UniformPlacer uniform;
  EXPECT_THROW(place_games(balance.placing, {nullptr, nullptr, {&uniform, &uniform}}),
               std::invalid_argument);
  Games no_chooser(RuleSet::Balance, 1);
  EXPECT_THROW(place_games(no_chooser.placing, {&uniform, nullptr, {&uniform, &uniform}}),
               std::invalid_argument);
  Games fuseki(RuleSet::Fuseki, 1);
  EXPECT_NO_THROW(place_games(fuseki.placing, {nullptr, nullptr, {&uniform, &uniform}}));
}

namespace {
struct CountedPlayer : RandomPlayer {
  explicit CountedPlayer(int& prepared) : prepared_(prepared) {}
  void prepare() override { ++prepared_; }
  int& prepared_;
};
}  // namespace

TEST(EnginePool, MakesAndPreparesEachPlayerOnce) {
  int made = 0, prepared = 0;
  EnginePool pool([&] {
    ++made;
    return std::make_unique<CountedPlayer>(prepared);
  });
  pool.reserve(2);
  Player* first = pool.pair(0).sente.get();
  pool.reserve(1);
  pool.reserve(2);
  EXPECT_EQ(made, 4);
  EXPECT_EQ(prepared, 4);
  EXPECT_EQ(pool.pair(0).sente.get(), first);
  pool.reserve(3);
  EXPECT_EQ(made, 6);
  EXPECT_EQ(pool.size(), 3u);
}
