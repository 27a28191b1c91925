#include "engine/placer.h"

#include <algorithm>
#include <stdexcept>

#include "rules/movegen.h"

namespace fuseki {

void UniformPlacer::place(std::span<PlacementRequest> requests) {
  for (PlacementRequest& r : requests) {
    MoveList legal;
    generate_legal(*r.position, legal);
    r.move = legal.moves[r.rng->below(uint32_t(legal.size))];
  }
}

void UniformChooser::choose(std::span<ChoiceRequest> requests) {
  for (ChoiceRequest& r : requests) r.takes = r.rng->below(2) ? BLACK : WHITE;
}

namespace {

Placer& placer_for(const Position& pos, const Placers& placers) {
  bool king = pos.info().balance_kings && pos.ply() < 2;
  Placer* p = king ? placers.kings : placers.side[pos.side_to_move()];
  if (!p)
    throw std::invalid_argument(king ? "no placer for Balance's kings"
                                     : "no placer for a side's drops");
  return *p;
}

}  // namespace

void place_games(std::span<const PlacingGame> games, const Placers& placers,
                 const DecisionSink& on_decision) {
  while (true) {
    // Each placer's games of this step, placers in order of first appearance.
    std::vector<std::pair<Placer*, std::vector<size_t>>> groups;
    for (size_t i = 0; i < games.size(); ++i) {
      const Game& g = *games[i].game;
      if (g.over() || !g.position().in_placement()) continue;
      Placer* p = &placer_for(g.position(), games[i].placers ? *games[i].placers : placers);
      auto it = std::find_if(groups.begin(), groups.end(),
                             [p](const auto& group) { return group.first == p; });
      if (it == groups.end()) it = groups.insert(groups.end(), {p, {}});
      it->second.push_back(i);
    }
    if (groups.empty()) return;
    std::vector<size_t> choosing;
    for (auto& [placer, members] : groups) {
      std::vector<PlacementRequest> requests(members.size());
      for (size_t k = 0; k < members.size(); ++k)
        requests[k] = {&games[members[k]].game->position(), games[members[k]].rng, MOVE_NONE, {}};
      placer->place(requests);
      for (size_t k = 0; k < members.size(); ++k) {
        Game& g = *games[members[k]].game;
        const PlacementRequest& r = requests[k];
        if (r.move == MOVE_NONE) throw std::logic_error(placer->name() + " placer gave no drop");
        if (r.decision && on_decision) on_decision(members[k], g.position(), r.move, *r.decision);
        // Kings placed here are chosen here; kings given before placement are not.
        bool gote_king = g.position().info().balance_kings && g.position().ply() == 1;
        g.play(r.move);
        if (gote_king) choosing.push_back(members[k]);
      }
    }
    if (choosing.empty()) continue;
    if (!placers.chooser) throw std::invalid_argument("no chooser for Balance's side choice");
    std::vector<ChoiceRequest> choices(choosing.size());
    for (size_t k = 0; k < choosing.size(); ++k)
      choices[k] = {&games[choosing[k]].game->position(), games[choosing[k]].rng, BLACK};
    placers.chooser->choose(choices);
    for (size_t k = 0; k < choosing.size(); ++k)
      games[choosing[k]].game->chooser_takes = choices[k].takes;
  }
}

PassCount passes_of(const Placers& placers) {
  PassCount sum;
  auto add = [&sum](PassCount c) {
    sum.passes += c.passes;
    sum.positions += c.positions;
  };
  std::vector<const Placer*> seen;
  for (const Placer* p : {placers.kings, placers.side[BLACK], placers.side[WHITE]})
    if (p && std::find(seen.begin(), seen.end(), p) == seen.end()) {
      seen.push_back(p);
      add(p->passes());
    }
  if (placers.chooser) add(placers.chooser->passes());
  return sum;
}

}  // namespace fuseki
