#include "selfplay/generator.h"

#include <atomic>
#include <cmath>
#include <functional>
#include <thread>

#include "engine/match.h"
#include "io/stop.h"
#include "selfplay/network_placer.h"
#include "selfplay/table_placer.h"

namespace fuseki {

std::optional<KingSource> parse_king_source(const std::string& name) {
  if (name == "uniform") return KingSource::Uniform;
  if (name == "table") return KingSource::Table;
  if (name == "network") return KingSource::Network;
  return std::nullopt;
}

const char* king_source_name(KingSource k) {
  switch (k) {
    case KingSource::Table:
      return "table";
    case KingSource::Network:
      return "network";
    case KingSource::Uniform:
      break;
  }
  return "uniform";
}

uint8_t shape_flags(const Position& pos) {
  const Variant& v = pos.variant();
  uint8_t flags = 0;
  for (int c = 0; c < COLOR_NB; ++c) {
    Bitboard rooks = pos.pieces(Color(c), ROOK) | pos.pieces(Color(c), DRAGON);
    Bitboard lances = pos.pieces(Color(c), LANCE) | pos.pieces(Color(c), PRO_LANCE);
    for (int f = 0; f < v.files; ++f)
      if ((rooks & v.file_bb[f]) && popcount(lances & v.file_bb[f]) >= 2) flags |= uint8_t(1 << c);
  }
  return flags;
}

struct SelfPlayGenerator::Slot {
  uint64_t index = 0, seed = 0;
  Rng rng{0};
  Game game{Position::start(RuleSet::Balance)};
  std::optional<std::pair<Square, Square>> fixed_kings;
  int uniform_side = -1;  // the colour a uniform placer drops for (options_.uniform_share)
  PlayedGame out;
  float sente_eval = -1;
};

KingPlacers table_or_uniform_kings(const SelfPlayOptions& options) {
  if (options.kings == KingSource::Table && options.table)
    return {std::make_unique<TableKingPlacer>(*options.table, options.king_band),
            std::make_unique<TableChooser>(*options.table)};
  return {std::make_unique<UniformPlacer>(), std::make_unique<UniformChooser>()};
}

namespace {

std::string eval_spec(const SelfPlayOptions& o) {
  return o.eval_engine + ":nodes=" + std::to_string(o.eval_nodes);
}

EnginePool::Factory playout_players(const SelfPlayOptions& o) {
  return [spec = o.playout, rules = o.rules, engines = default_engines()] {
    return make_player(spec, engines, rules);
  };
}

}  // namespace

SelfPlayGenerator::SelfPlayGenerator(net::Evaluator& network, SelfPlayOptions options)
    : options_(std::move(options)), playout_(playout_players(options_)) {
  if (options_.rollout) {
    if (options_.kings == KingSource::Network)
      throw std::invalid_argument("selfplay: the rollout placer does not place Balance's kings");
    RolloutOptions ro = *options_.rollout;
    ro.threads = std::max(1, options_.playout_threads);
    if (ro.from_ply > 0)
      own_early_ =
          std::make_unique<GumbelPlacer>(network, GumbelOptions{ro.k, ro.c_visit, ro.c_scale});
    own_network_ = std::make_unique<RolloutPlacer>(network, ro, options_.rules, own_early_.get());
  } else if (options_.search) {
    own_network_ = std::make_unique<GumbelPlacer>(network, *options_.search);
  } else {
    own_network_ = std::make_unique<NetworkPlacer>(network, options_.temperature);
  }
  placers_.side[BLACK] = placers_.side[WHITE] = own_network_.get();
  if (options_.kings == KingSource::Network) {
    // The same placer object for the kings: its games of any ply share one forward pass.
    placers_.kings = own_network_.get();
    own_kings_.chooser = std::make_unique<NetworkChooser>(network);
  } else {
    own_kings_ = table_or_uniform_kings(options_);
    placers_.kings = own_kings_.kings.get();
  }
  placers_.chooser = own_kings_.chooser.get();
  if (options_.uniform_share < 0 || options_.uniform_share > 1)
    throw std::invalid_argument("selfplay: uniform_share must be in [0, 1]");
  if (options_.uniform_share > 0) {
    own_uniform_ = std::make_unique<UniformPlacer>();
    for (int side = 0; side < 2; ++side) {
      against_uniform_[side] = placers_;
      against_uniform_[side].side[side] = own_uniform_.get();
    }
  }
}

SelfPlayGenerator::SelfPlayGenerator(const Placers& placers, SelfPlayOptions options)
    : options_(std::move(options)), placers_(placers), playout_(playout_players(options_)) {}

SelfPlayGenerator::~SelfPlayGenerator() = default;

void SelfPlayGenerator::place_batch(std::vector<Slot>& slots) {
  std::vector<PlacingGame> games;
  for (Slot& s : slots) {
    if (s.fixed_kings) {
      s.game.play(make_drop(KING, s.fixed_kings->first));
      s.game.play(make_drop(KING, s.fixed_kings->second));
    }
    games.push_back(
        {&s.game, &s.rng, s.uniform_side >= 0 ? &against_uniform_[s.uniform_side] : nullptr});
  }
  PassCount before = passes_of(placers_);
  place_games(games, placers_,
              [&](size_t i, const Position& pos, Move m, const PlacementDecision& d) {
                slots[i].out.decisions.push_back({0, int16_t(pos.ply()), int8_t(pos.side_to_move()),
                                                  d.action, uint16_t(m), d.legal, d.prob, d.value,
                                                  d.target});
                ++stats_.decisions;
              });
  PassCount after = passes_of(placers_);
  stats_.forward_passes += after.passes - before.passes;
  stats_.batch_positions += after.positions - before.positions;
}

namespace {

// Runs `work(t)` for t in [0, threads) on as many threads (the caller's among them) and waits.
void run_parallel(int threads, const std::function<void(int)>& work) {
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& t : pool) t.join();
}

}  // namespace

void SelfPlayGenerator::evaluate_batch(std::vector<Slot>& slots) {
  int threads = std::max(1, std::min<int>(options_.playout_threads, int(slots.size())));
  while (evaluators_.size() < size_t(threads)) {  // made and started here: a failure throws here
    evaluators_.push_back(make_player(eval_spec(options_), default_engines(), options_.rules));
    evaluators_.back()->prepare();
  }
  std::atomic<size_t> next{0};
  run_parallel(threads, [&](int t) {
    Player& engine = *evaluators_[size_t(t)];
    for (size_t i; !stop_requested() && (i = next++) < slots.size();) {
      Slot& s = slots[i];
      if (s.game.over()) {  // decided by the move-41 ruling
        s.sente_eval = s.game.winner() == Winner::Sente  ? 1.0f
                       : s.game.winner() == Winner::Gote ? 0.0f
                                                         : 0.5f;
        continue;
      }
      engine.new_game(Rng::derive(s.seed, 41));
      std::optional<int> score = engine.evaluate(s.game);
      if (!score) continue;  // the engine failed: no evaluation for this game (-1)
      double cp = s.game.position().side_to_move() == BLACK ? *score : -*score;
      s.sente_eval =
          float(1.0 / (1.0 + std::exp(-(options_.eval_bias + cp / options_.eval_scale))));
    }
  });
}

void SelfPlayGenerator::play_out_batch(std::vector<Slot>& slots) {
  if (options_.eval_nodes > 0) evaluate_batch(slots);
  if (options_.judge) {
    for (Slot& s : slots)
      if (!s.game.over()) s.game.adjudicate(options_.judge(s.game.position()));
    return;
  }
  if (!options_.play_out) return;
  int threads = std::max(1, std::min<int>(options_.playout_threads, int(slots.size())));
  playout_.reserve(size_t(threads));
  std::atomic<size_t> next{0};
  run_parallel(threads, [&](int t) {
    EnginePool::Pair& players = playout_.pair(size_t(t));
    for (size_t i; !stop_requested() && (i = next++) < slots.size();) {
      Slot& s = slots[i];
      if (!s.game.over()) s.game = play_game(s.game, *players.sente, *players.gote, s.seed);
    }
  });
}

void SelfPlayGenerator::play(uint64_t first, uint64_t count,
                             const std::function<void(PlayedGame&&)>& sink) {
  std::vector<GameSpec> games;
  for (uint64_t i = first; i < first + count; ++i)
    games.push_back(
        {i, Rng::derive(options_.seed, uint64_t(options_.worker), i), SQ_NONE, SQ_NONE});
  play(games, sink);
}

void SelfPlayGenerator::play(const std::vector<GameSpec>& games,
                             const std::function<void(PlayedGame&&)>& sink) {
  bool balance = rule_info(options_.rules).balance_kings;
  for (size_t start = 0; start < games.size(); start += size_t(options_.batch)) {
    size_t n = std::min(size_t(options_.batch), games.size() - start);
    std::vector<Slot> slots(n);
    for (size_t i = 0; i < n; ++i) {
      Slot& s = slots[i];
      const GameSpec& spec = games[start + i];
      s.index = spec.index;
      s.seed = spec.seed;
      s.rng = placement_rng(s.seed);
      s.game = Game(Position::start(options_.rules), GameOptions{options_.max_moves});
      if (spec.sente_king != SQ_NONE)
        s.fixed_kings = std::make_pair(spec.sente_king, spec.gote_king);
      if (own_uniform_) {  // from the game seed, apart from the placers' stream
        Rng pick(Rng::derive(s.seed, 0x756e69666f726dULL));
        if (pick.uniform() < options_.uniform_share) s.uniform_side = int(pick.below(2));
      }
    }
    throw_if_stopped();
    place_batch(slots);
    std::vector<Position> placed;
    for (Slot& s : slots) placed.push_back(s.game.position());
    play_out_batch(slots);
    // Stopped: the batch's games may be unfinished; none is given out (they are replayed, with
    // the same seeds, when the work resumes).
    throw_if_stopped();
    for (size_t i = 0; i < n; ++i) {
      Slot& s = slots[i];
      PlayedGame& g = s.out;
      g.index = s.index;
      g.row.seed = s.seed;
      g.row.rules = int8_t(options_.rules);
      g.row.winner = s.game.winner();
      g.row.reason = s.game.reason();
      g.row.play_moves = int16_t(s.game.play_moves());
      if (balance && s.game.chooser_takes) {
        g.row.chooser_takes = int8_t(*s.game.chooser_takes);
        g.row.placer = int8_t(~*s.game.chooser_takes);
      }
      g.row.sente_king = int16_t(placed[i].king_square(BLACK));
      g.row.gote_king = int16_t(placed[i].king_square(WHITE));
      g.row.shapes = shape_flags(placed[i]);
      g.row.sente_eval = s.sente_eval;
      g.row.record = s.game.record();
      ++stats_.games;
      sink(std::move(g));
    }
  }
}

}  // namespace fuseki
