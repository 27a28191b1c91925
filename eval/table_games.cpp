#include "eval/table_games.h"

namespace fuseki {

void PlacementGames::play(const std::vector<PairGame>& games,
                          const std::function<void(const PairResult&)>& done) {
  std::vector<SelfPlayGenerator::GameSpec> specs;
  for (size_t i = 0; i < games.size(); ++i)
    specs.push_back(
        {uint64_t(i), games[i].seed, pair_sente(games[i].pair), pair_gote(games[i].pair)});
  generator_.play(specs, [&](PlayedGame&& g) {
    const PairGame& pg = games[size_t(g.index)];
    done({pg.pair, pg.index, pg.seed, g.row.winner, g.row.reason, g.row.play_moves,
          g.row.sente_eval});
  });
}

}  // namespace fuseki
