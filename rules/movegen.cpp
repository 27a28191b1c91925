#include "rules/movegen.h"

namespace fuseki {
namespace {

Bitboard own_pawn_files(const Position& pos, Color us) {
  const Variant& v = pos.variant();
  Bitboard files = 0;
  for (Bitboard b = pos.pieces(us, PAWN); b;) files |= v.file_bb[file_of(pop_lsb(b))];
  return files;
}

// Move-40 restriction (Gote's last drop): keep the drops after which Gote's king is not
// attacked; if none is left, every drop the bans allow stays legal.
void apply_move40_restriction(const Position& pos, Bitboard targets[PIECE_TYPE_NB]) {
  Bitboard safe[PIECE_TYPE_NB] = {};
  bool any_safe = false;
  Bitboard occ = pos.pieces();
  Square king = pos.king_square(WHITE);
  for (int pt = PAWN; pt <= KING; ++pt)
    for (Bitboard t = targets[pt]; t;) {
      Square s = pop_lsb(t);
      Square k = pt == KING ? s : king;
      if (k == SQ_NONE || !pos.attacked(k, BLACK, occ | square_bb(s))) {
        safe[pt] |= square_bb(s);
        any_safe = true;
      }
    }
  if (any_safe)
    for (int pt = PAWN; pt <= KING; ++pt) targets[pt] = safe[pt];
}

void add_board_moves(const Variant& v, Color us, PieceType pt, Square from, Bitboard att,
                     MoveList& list) {
  if (!v.can_promote[pt]) {
    while (att) list.add(make_move(from, pop_lsb(att), false));
    return;
  }
  Bitboard zone = v.promotion_zone[us];
  Bitboard promote = test(zone, from) ? att : att & zone;
  Bitboard stay = att & ~v.dead[us][pt];  // forced promotion where it could never move again
  while (promote) list.add(make_move(from, pop_lsb(promote), true));
  while (stay) list.add(make_move(from, pop_lsb(stay), false));
}

void generate_play(const Position& pos, MoveList& list) {
  const Variant& v = pos.variant();
  Color us = pos.side_to_move(), them = ~us;
  Bitboard occ = pos.pieces(), own = pos.pieces(us);
  Square ksq = pos.king_square(us);
  Bitboard checkers = pos.attackers_to(ksq, them, occ);

  Bitboard occ_without_king = occ ^ square_bb(ksq);
  for (Bitboard t = v.step[us][KING][ksq] & ~own; t;) {
    Square to = pop_lsb(t);
    if (!pos.attacked(to, them, occ_without_king)) list.add(make_move(ksq, to, false));
  }
  if (more_than_one(checkers)) return;

  Bitboard target, drop_target;
  if (checkers) {
    drop_target = v.between[ksq][lsb(checkers)];
    target = drop_target | checkers;
  } else {
    drop_target = v.board & ~occ;
    target = v.board & ~own;
  }

  Bitboard pinned = pos.pinned(us);
  for (int i = 0; i < v.board_type_count; ++i) {
    PieceType pt = v.board_types[i];
    for (Bitboard b = pos.pieces(us, pt); b;) {
      Square from = pop_lsb(b);
      Bitboard att = v.attacks(us, pt, from, occ) & target;
      if (test(pinned, from)) att &= v.line[ksq][from];
      add_board_moves(v, us, pt, from, att, list);
    }
  }

  if (!drop_target) return;
  for (int i = 0; i < v.hand_type_count; ++i) {
    PieceType pt = v.hand_types[i];
    if (!pos.hand(us, pt)) continue;
    Bitboard t = drop_target & ~v.dead[us][pt];
    if (pt == PAWN) {
      t &= ~own_pawn_files(pos, us);
      // The one square where a pawn drop gives check: in front of the enemy king.
      Square their_king = pos.king_square(them);
      Bitboard front = v.step[them][PAWN][their_king] & t;
      if (front && v.pawn_drop_mate_illegal && is_pawn_drop_mate(pos, lsb(front))) t ^= front;
    }
    while (t) list.add(make_drop(pt, pop_lsb(t)));
  }
}

}  // namespace

bool placement_targets(const Position& pos, Bitboard targets[PIECE_TYPE_NB]) {
  if (!pos.in_placement()) return false;
  const Variant& v = pos.variant();
  const RuleInfo& rules = pos.info();
  Color us = pos.side_to_move();
  Bitboard own = pos.pieces(us);
  Bitboard empty = v.camp[us] & ~pos.pieces();
  Bitboard own_pawns = pos.pieces(us, PAWN);
  Bitboard own_rook_lance = pos.pieces(us, ROOK) | pos.pieces(us, LANCE);

  Bitboard pawn_files = 0, fill_banned = 0, nihikyo_files = 0;
  for (int f = 0; f < v.files; ++f) {
    Bitboard file = v.file_bb[f];
    if (own_pawns & file)
      pawn_files |= file;
    else if (popcount(own & file) == 3)  // a fourth own non-pawn would fill the file
      fill_banned |= empty & file;
    if (own_rook_lance & file) nihikyo_files |= file;
  }

  for (int pt = 0; pt < PIECE_TYPE_NB; ++pt) targets[pt] = 0;
  if (rules.balance_kings && pos.ply() < 2) {
    targets[KING] = empty;  // the placer drops Sente's king, then Gote's
    return true;
  }
  for (int pt = PAWN; pt <= KING; ++pt) {
    if (!pos.hand(us, PieceType(pt))) continue;
    Bitboard t = pt == PAWN ? empty & ~pawn_files : empty & ~fill_banned;
    if (rules.nihikyo && (pt == ROOK || pt == LANCE)) t &= ~nihikyo_files;
    targets[pt] = t;
  }
  if (pos.ply() == PLACEMENT_PLIES - 1) apply_move40_restriction(pos, targets);
  return true;
}

void generate_legal(const Position& pos, MoveList& list) {
  Bitboard targets[PIECE_TYPE_NB];
  if (placement_targets(pos, targets)) {
    for (int pt = PAWN; pt <= KING; ++pt)
      for (Bitboard t = targets[pt]; t;) list.add(make_drop(PieceType(pt), pop_lsb(t)));
    return;
  }
  if (pos.ruling41()) return;
  generate_play(pos, list);
}

int count_legal(const Position& pos) {
  Bitboard targets[PIECE_TYPE_NB];
  if (placement_targets(pos, targets)) {
    int n = 0;
    for (int pt = PAWN; pt <= KING; ++pt) n += popcount(targets[pt]);
    return n;
  }
  MoveList list;
  generate_legal(pos, list);
  return list.size;
}

bool is_pawn_drop_mate(const Position& pos, Square s) {
  const Variant& v = pos.variant();
  Color us = pos.side_to_move(), them = ~us;
  Square ksq = pos.king_square(them);
  Bitboard occ = pos.pieces() | square_bb(s);
  // The king escapes, or takes the pawn, to a square our pieces do not attack.
  Bitboard occ_without_king = occ ^ square_bb(ksq);
  for (Bitboard t = v.step[them][KING][ksq] & ~pos.pieces(them); t;)
    if (!pos.attacked(pop_lsb(t), us, occ_without_king)) return false;
  // Another piece takes the pawn. The drop cannot create a pin, so today's pins are the pins.
  Bitboard takers = pos.attackers_to(s, them, occ) & ~pos.pieces(them, KING);
  if (!takers) return true;
  Bitboard pinned = pos.pinned(them);
  for (; takers;) {
    Square from = pop_lsb(takers);
    if (!test(pinned, from) || test(v.line[ksq][from], s)) return false;
  }
  return true;
}

}  // namespace fuseki
