// The table's games for real: the pair's kings fixed, the other pieces placed by a network (or
// uniformly at random), then played out, through the self-play generator.
#pragma once

#include "eval/table_builder.h"
#include "selfplay/generator.h"

namespace fuseki {

class PlacementGames : public GameSource {
 public:
  // `evaluator` may be null: uniform random placement.
  PlacementGames(net::Evaluator* evaluator, SelfPlayOptions options)
      : evaluator_(evaluator), options_(std::move(options)) {}
  void play(const std::vector<PairGame>& games,
            const std::function<void(const PairResult&)>& done) override;

 private:
  net::Evaluator* evaluator_;
  SelfPlayOptions options_;
};

}  // namespace fuseki
