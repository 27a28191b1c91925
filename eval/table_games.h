// The table's games for real: the pair's kings fixed, the other pieces placed by `placer` (a
// network, or uniform drops) for both sides, then played out, through the self-play generator.
#pragma once

#include "engine/placer.h"
#include "eval/table_builder.h"
#include "selfplay/generator.h"

namespace fuseki {

class PlacementGames : public GameSource {
 public:
  // `placer` outlives this. One generator serves every round, so play-out engines start once.
  PlacementGames(Placer& placer, SelfPlayOptions options)
      : generator_(Placers{nullptr, nullptr, {&placer, &placer}}, std::move(options)) {}
  void play(const std::vector<PairGame>& games,
            const std::function<void(const PairResult&)>& done) override;

 private:
  SelfPlayGenerator generator_;
};

}  // namespace fuseki
