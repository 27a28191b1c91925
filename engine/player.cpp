#include "engine/player.h"

#include "rules/movegen.h"
#include "rules/notation.h"

namespace fuseki {

Decision RandomPlayer::decide(const Game& game) {
  MoveList list;
  generate_legal(game.position(), list);
  if (list.size == 0) return {Decision::Resign, "", ""};
  return {Decision::Play,
          move_to_usi(list.moves[rng_.below(uint32_t(list.size))], game.position().variant()), ""};
}

std::string BuiltinPlayer::name() const {
  std::string s = "builtin";
  if (limits_.nodes) s += ":nodes=" + std::to_string(limits_.nodes);
  if (limits_.depth) s += ":depth=" + std::to_string(limits_.depth);
  if (limits_.seconds > 0) s += ":movetime=" + std::to_string(int(limits_.seconds * 1000));
  return s;
}

void BuiltinPlayer::new_game(uint64_t seed) {
  searcher_.clear();
  searcher_.set_seed(seed);
}

namespace {

std::vector<uint64_t> history_of(const Game& game) {
  return {game.keys().begin(), game.keys().end() - (game.keys().empty() ? 0 : 1)};
}

}  // namespace

std::optional<int> BuiltinPlayer::evaluate(const Game& game) {
  Position pos = game.position();
  SearchResult r = searcher_.search(pos, limits_, history_of(game));
  nodes_ += r.nodes;
  return r.score;
}

Decision BuiltinPlayer::decide(const Game& game) {
  Position pos = game.position();
  SearchResult r = searcher_.search(pos, limits_, history_of(game));
  nodes_ += r.nodes;
  if (r.declare) return {Decision::Declare, "", ""};
  if (r.best == MOVE_NONE) return {Decision::Resign, "", ""};
  return {Decision::Play, move_to_usi(r.best, pos.variant()), ""};
}

}  // namespace fuseki
