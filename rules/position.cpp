#include "rules/position.h"

namespace fuseki {
namespace {

constexpr int MAX_HAND = 20;

struct Zobrist {
  uint64_t psq[32][SQ_MAX];
  uint64_t hand[COLOR_NB][PIECE_TYPE_NB][MAX_HAND + 1];
  uint64_t side;
  Zobrist() {
    uint64_t x = 0x9E3779B97F4A7C15ull;
    auto next = [&x] {  // splitmix64: fixed keys, the same on every run and machine
      uint64_t z = (x += 0x9E3779B97F4A7C15ull);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      return z ^ (z >> 31);
    };
    for (auto& row : psq)
      for (auto& k : row) k = next();
    for (auto& c : hand)
      for (auto& t : c) {
        t[0] = 0;
        for (int n = 1; n <= MAX_HAND; ++n) t[n] = next();
      }
    side = next();
  }
};
const Zobrist kZobrist;

}  // namespace

Position::Position(RuleSet rules)
    : rules_(rules), info_(&rule_info(rules)), var_(&variant_of(rules)) {
  history_.reserve(512);
}

Position Position::start(RuleSet rules) {
  if (!rule_info(rules).placement) return from_sfen(variant_of(rules).start_sfen, rules);
  Position pos(rules);
  const Variant& v = *pos.var_;
  for (int c = 0; c < COLOR_NB; ++c)
    for (int pt = PAWN; pt <= KING; ++pt) pos.set_hand(Color(c), PieceType(pt), v.per_side[pt]);
  return pos;
}

uint64_t Position::side_key() { return kZobrist.side; }

bool Position::hand_empty(Color c) const {
  for (int pt = PAWN; pt <= KING; ++pt)
    if (hand_[c][pt]) return false;
  return true;
}

void Position::set_hand(Color c, PieceType pt, int n) {
  key_ ^= kZobrist.hand[c][pt][hand_[c][pt]] ^ kZobrist.hand[c][pt][n];
  hand_[c][pt] = uint8_t(n);
}

void Position::put_piece(Piece p, Square s) {
  Color c = color_of(p);
  PieceType pt = type_of(p);
  Bitboard b = square_bb(s);
  board_[s] = p;
  by_color_[c] |= b;
  by_type_[pt] |= b;
  if (var_->step_class[pt] >= 0) step_class_bb_[c][var_->step_class[pt]] |= b;
  for (uint8_t dirs = var_->slides[c][pt]; dirs; dirs &= dirs - 1)
    sliders_[c][__builtin_ctz(dirs)] |= b;
  if (pt == KING) king_[c] = s;
  key_ ^= kZobrist.psq[p][s];
}

void Position::remove_piece(Square s) {
  Piece p = board_[s];
  Color c = color_of(p);
  PieceType pt = type_of(p);
  Bitboard b = square_bb(s);
  board_[s] = NO_PIECE;
  by_color_[c] ^= b;
  by_type_[pt] ^= b;
  if (var_->step_class[pt] >= 0) step_class_bb_[c][var_->step_class[pt]] ^= b;
  for (uint8_t dirs = var_->slides[c][pt]; dirs; dirs &= dirs - 1)
    sliders_[c][__builtin_ctz(dirs)] ^= b;
  if (pt == KING) king_[c] = SQ_NONE;
  key_ ^= kZobrist.psq[p][s];
}

void Position::do_move(Move m) {
  Color us = stm_;
  Square to = move_to(m);
  history_.push_back({key_, NO_PIECE});
  if (is_drop(m)) {
    PieceType pt = dropped_type(m);
    set_hand(us, pt, hand_[us][pt] - 1);
    put_piece(make_piece(us, pt), to);
  } else {
    Square from = move_from(m);
    Piece moved = board_[from];
    Piece captured = board_[to];
    if (captured) {
      PieceType ct = unpromoted(type_of(captured));
      remove_piece(to);
      set_hand(us, ct, hand_[us][ct] + 1);
      history_.back().captured = captured;
    }
    remove_piece(from);
    put_piece(is_promotion(m) ? make_piece(us, promoted(type_of(moved))) : moved, to);
  }
  stm_ = ~us;
  key_ ^= kZobrist.side;
  ++ply_;
}

void Position::undo_move(Move m) {
  Undo u = history_.back();
  history_.pop_back();
  Color us = ~stm_;
  Square to = move_to(m);
  if (is_drop(m)) {
    PieceType pt = dropped_type(m);
    remove_piece(to);
    set_hand(us, pt, hand_[us][pt] + 1);
  } else {
    Square from = move_from(m);
    Piece moved = board_[to];
    remove_piece(to);
    put_piece(is_promotion(m) ? make_piece(us, unpromoted(type_of(moved))) : moved, from);
    if (u.captured) {
      PieceType ct = unpromoted(type_of(u.captured));
      set_hand(us, ct, hand_[us][ct] - 1);
      put_piece(u.captured, to);
    }
  }
  stm_ = us;
  --ply_;
  key_ = u.key;
}

void Position::do_null_move() {
  history_.push_back({key_, NO_PIECE});
  stm_ = ~stm_;
  key_ ^= kZobrist.side;
  ++ply_;
}

void Position::undo_null_move() {
  key_ = history_.back().key;
  history_.pop_back();
  stm_ = ~stm_;
  --ply_;
}

Bitboard Position::step_attackers_to(Square s, Color by) const {
  const Variant& v = *var_;
  Bitboard att = 0;
  // A piece of `by` on X steps to s exactly when the same piece of the other colour on s steps
  // to X: every piece is symmetric under the half turn that swaps the colours.
  for (int k = 0; k < v.step_class_count; ++k)
    att |= v.step[~by][v.step_class_type[k]][s] & step_class_bb_[by][k];
  return att;
}

Bitboard Position::attackers_to(Square s, Color by, Bitboard occupied) const {
  const Variant& v = *var_;
  Bitboard att = step_attackers_to(s, by);
  for (int d = 0; d < DIR_NB; ++d) {
    Bitboard snipers = sliders_[by][opposite(Direction(d))] & v.ray[d][s];
    if (!snipers) continue;
    Bitboard blockers = v.ray[d][s] & occupied;
    if (!blockers) continue;  // a sniper taken off the occupancy (exchanges) is no blocker
    Square first = dir_ascending(Direction(d)) ? lsb(blockers) : msb(blockers);
    if (test(snipers, first)) att |= square_bb(first);
  }
  return att;
}

bool Position::attacked(Square s, Color by, Bitboard occupied) const {
  const Variant& v = *var_;
  for (int k = 0; k < v.step_class_count; ++k)
    if (v.step[~by][v.step_class_type[k]][s] & step_class_bb_[by][k]) return true;
  for (int d = 0; d < DIR_NB; ++d) {
    Bitboard snipers = sliders_[by][opposite(Direction(d))] & v.ray[d][s];
    if (!snipers) continue;
    Bitboard blockers = v.ray[d][s] & occupied;
    if (blockers && test(snipers, dir_ascending(Direction(d)) ? lsb(blockers) : msb(blockers)))
      return true;
  }
  return false;
}

Bitboard Position::pinned(Color c) const {
  Square k = king_[c];
  if (k == SQ_NONE) return 0;
  const Variant& v = *var_;
  Bitboard occ = pieces(), result = 0;
  for (int d = 0; d < DIR_NB; ++d) {
    Bitboard snipers = sliders_[~c][opposite(Direction(d))] & v.ray[d][k];
    if (!snipers) continue;
    Bitboard blockers = v.ray[d][k] & occ;
    bool asc = dir_ascending(Direction(d));
    Square first = asc ? lsb(blockers) : msb(blockers);
    if (!test(by_color_[c], first)) continue;
    blockers ^= square_bb(first);
    if (blockers && test(snipers, asc ? lsb(blockers) : msb(blockers))) result |= square_bb(first);
  }
  return result;
}

}  // namespace fuseki
