#include "selfplay/generator.h"

#include <atomic>
#include <cmath>
#include <functional>
#include <thread>

#include "engine/match.h"
#include "io/stop.h"
#include "net/sample.h"
#include "rules/movegen.h"

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
  PlayedGame out;
  float sente_eval = -1;
};

SelfPlayGenerator::SelfPlayGenerator(net::Evaluator& evaluator, SelfPlayOptions options)
    : evaluators_{&evaluator, &evaluator}, options_(std::move(options)) {}

SelfPlayGenerator::SelfPlayGenerator(net::Evaluator* sente, net::Evaluator* gote,
                                     SelfPlayOptions options)
    : evaluators_{sente, gote}, options_(std::move(options)) {}

SelfPlayGenerator::~SelfPlayGenerator() = default;

void SelfPlayGenerator::place_batch(std::vector<Slot>& slots) {
  bool balance = rule_info(options_.rules).balance_kings;
  // Kings and the side choice by table or uniformly: no network decision, no training row.
  for (Slot& s : slots) {
    if (s.fixed_kings) {
      s.game.play(make_drop(KING, s.fixed_kings->first));
      s.game.play(make_drop(KING, s.fixed_kings->second));
      continue;
    }
    if (!balance || options_.kings == KingSource::Network) continue;
    if (options_.kings == KingSource::Table && options_.table) {
      KingPairEntry e = options_.table->draw_near_even(options_.king_band, s.rng);
      s.game.play(make_drop(KING, e.sente));
      s.game.play(make_drop(KING, e.gote));
      s.game.chooser_takes = e.v > 0.5 ? BLACK : WHITE;
    } else {
      for (int k = 0; k < 2; ++k) {
        MoveList list;
        generate_legal(s.game.position(), list);
        s.game.play(list.moves[s.rng.below(uint32_t(list.size))]);
      }
      s.game.chooser_takes = s.rng.below(2) ? BLACK : WHITE;
    }
  }
  // One forward pass per ply for every game still placing.
  while (true) {
    std::vector<Slot*> active;
    for (Slot& s : slots)
      if (!s.game.over() && s.game.position().in_placement()) active.push_back(&s);
    if (active.empty()) break;
    // One pass per network: in self-play both sides share one. A side without a network
    // places uniformly at random.
    std::vector<net::Evaluation> evals(active.size());
    std::vector<bool> random_side(active.size(), false);
    bool shared = evaluators_[WHITE] == evaluators_[BLACK];
    for (int side = 0; side < COLOR_NB; ++side) {
      if (side == WHITE && shared) break;
      std::vector<const Position*> positions;
      std::vector<size_t> where;
      for (size_t i = 0; i < active.size(); ++i)
        if (shared || active[i]->game.position().side_to_move() == Color(side)) {
          positions.push_back(&active[i]->game.position());
          where.push_back(i);
        }
      if (positions.empty()) continue;
      if (!evaluators_[side]) {
        for (size_t k : where) random_side[k] = true;
        continue;
      }
      std::vector<net::Evaluation> out = evaluators_[side]->evaluate(positions);
      for (size_t k = 0; k < where.size(); ++k) evals[where[k]] = std::move(out[k]);
      ++stats_.forward_passes;
      stats_.batch_positions += positions.size();
    }
    for (size_t i = 0; i < active.size(); ++i) {
      if (random_side[i]) {
        Slot& r = *active[i];
        MoveList legal;
        generate_legal(r.game.position(), legal);
        r.game.play(legal.moves[r.rng.below(uint32_t(legal.size))]);
        continue;
      }
      Slot& s = *active[i];
      const Position& pos = s.game.position();
      Move m = net::sample_drop(pos, evals[i].policy.data(), options_.temperature, s.rng);
      int action = net::policy_index(pos, m);
      MoveList legal;
      generate_legal(pos, legal);
      s.out.decisions.push_back({0, int16_t(pos.ply()), int8_t(pos.side_to_move()), int16_t(action),
                                 uint16_t(m), int16_t(legal.size),
                                 action >= 0 ? evals[i].policy[size_t(action)] : 0.0f,
                                 evals[i].value});
      ++stats_.decisions;
      s.game.play(m);
    }
    // Network kings: after ply 2 the chooser reads the value head (Sente's expected score).
    if (balance && options_.kings == KingSource::Network) {
      std::vector<Slot*> choosing;
      for (Slot* s : active)
        if (s->game.position().ply() == 2 && !s->game.chooser_takes && !s->fixed_kings)
          choosing.push_back(s);
      if (!choosing.empty()) {
        std::vector<const Position*> after_kings;
        for (Slot* s : choosing) after_kings.push_back(&s->game.position());
        // The chooser is whoever did not place: in self-play one network plays both roles.
        if (!evaluators_[BLACK]) {
          for (Slot* c : choosing) c->game.chooser_takes = c->rng.below(2) ? BLACK : WHITE;
          choosing.clear();
        }
        std::vector<net::Evaluation> v = choosing.empty()
                                             ? std::vector<net::Evaluation>{}
                                             : evaluators_[BLACK]->evaluate(after_kings);
        for (size_t i = 0; i < choosing.size(); ++i)
          choosing[i]->game.chooser_takes = v[i].value > 0 ? BLACK : WHITE;
      }
    }
  }
}

namespace {

// Runs `work` on `threads` threads (the caller's among them) and waits for all.
void run_parallel(int threads, const std::function<void()>& work) {
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

}  // namespace

void SelfPlayGenerator::evaluate_batch(std::vector<Slot>& slots) {
  std::atomic<size_t> next{0};
  run_parallel(std::max(1, std::min<int>(options_.playout_threads, int(slots.size()))), [&] {
    Searcher searcher({0, 0, 14});
    for (size_t i; !stop_requested() && (i = next++) < slots.size();) {
      Slot& s = slots[i];
      if (s.game.over()) {  // decided by the move-41 ruling
        s.sente_eval = s.game.winner() == Winner::Sente  ? 1.0f
                       : s.game.winner() == Winner::Gote ? 0.0f
                                                         : 0.5f;
        continue;
      }
      Position pos = s.game.position();
      searcher.clear();
      SearchResult r = searcher.search(pos, SearchLimits{options_.eval_nodes, 0, 0});
      double cp = pos.side_to_move() == BLACK ? r.score : -r.score;
      s.sente_eval = float(1.0 / (1.0 + std::exp(-cp / options_.eval_scale)));
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
  EngineRegistry engines = default_engines();
  std::atomic<size_t> next{0};
  run_parallel(std::max(1, std::min<int>(options_.playout_threads, int(slots.size()))), [&] {
    auto sente = make_player(options_.playout, engines, options_.rules);
    auto gote = make_player(options_.playout, engines, options_.rules);
    sente->prepare();
    gote->prepare();
    for (size_t i; !stop_requested() && (i = next++) < slots.size();) {
      Slot& s = slots[i];
      if (!s.game.over()) s.game = play_game(s.game, *sente, *gote, s.seed);
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
      s.rng = Rng(Rng::derive(s.seed, 10));
      s.game = Game(Position::start(options_.rules), GameOptions{options_.max_moves});
      if (spec.sente_king != SQ_NONE)
        s.fixed_kings = std::make_pair(spec.sente_king, spec.gote_king);
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
