#include "eval/placer_match.h"

#include "selfplay/gumbel_placer.h"
#include "selfplay/network_placer.h"

namespace fuseki {

NamedPlacer make_named_placer(const std::string& spec, double temperature,
                              const net::EvaluatorOptions& options, int search_k) {
  NamedPlacer p;
  p.name = spec;
  if (spec == "uniform") {
    p.placer = std::make_unique<UniformPlacer>();
    return p;
  }
  p.network = std::make_unique<net::Evaluator>(net::Evaluator::from_file(spec, options));
  if (search_k > 0) {
    GumbelOptions search;  // self-play's c_visit and c_scale defaults
    search.k = search_k;
    p.placer = std::make_unique<GumbelPlacer>(*p.network, search);
  } else {
    p.placer = std::make_unique<NetworkPlacer>(*p.network, temperature);
  }
  return p;
}

PlacerMatch::PlacerMatch(Placer& a, Placer& b, const SelfPlayOptions& options) {
  SelfPlayOptions o = options;
  if (o.kings == KingSource::Network) o.kings = KingSource::Uniform;
  kings_ = table_or_uniform_kings(o);
  for (int order = 0; order < 2; ++order) {
    Placer* sente = order == 0 ? &a : &b;
    Placer* gote = order == 0 ? &b : &a;
    orders_[order] = std::make_unique<SelfPlayGenerator>(
        Placers{kings_.kings.get(), kings_.chooser.get(), {sente, gote}}, o);
  }
}

PlacerMatch::~PlacerMatch() = default;

void PlacerMatch::play(uint64_t first, uint64_t count, MatchTally& tally, const GameSink& on_game) {
  for (int order = 0; order < 2; ++order) {
    const Color a_colour = order == 0 ? BLACK : WHITE;
    orders_[order]->play(first, count, [&](PlayedGame&& game) {
      if (on_game) on_game(a_colour, game);
      tally.add(a_colour, game.row);
    });
  }
}

void MatchTally::add(Color a_colour, const GameRow& row) {
  if (row.sente_eval >= 0) evals.add(a_colour == BLACK ? row.sente_eval : 1.0 - row.sente_eval);
  if (scored(row.winner)) {
    const double s = score_of(row.winner, a_colour);
    score.add(s);
    by_colour[a_colour].add(s);
    if (row.gote_king >= 0 && row.gote_king < SQ_MAX)
      by_gote_king[a_colour][rank_of(Square(row.gote_king))].add(s);
    if (row.reason == Reason::Ruling41) ++(a_colour == BLACK ? ruling41_won : ruling41_lost);
  } else if (row.winner == Winner::Void) {
    ++voids;
  }
}

}  // namespace fuseki
