#include "engine/game.h"

#include "rules/movegen.h"
#include "rules/notation.h"
#include "rules/record.h"

namespace fuseki {

DeclarationCheck check_declaration(const Position& pos) {
  DeclarationCheck d;
  const Variant& v = pos.variant();
  Color us = pos.side_to_move();
  d.points_needed = us == BLACK ? 28 : 27;
  if (pos.in_placement() || !v.entering_king_declaration) return d;
  Square k = pos.king_square(us);
  Bitboard zone = v.promotion_zone[us];
  d.king_in_zone = k != SQ_NONE && test(zone, k);
  d.in_check = pos.checkers() != 0;
  Bitboard in_zone = pos.pieces(us) & zone & ~pos.pieces(us, KING);
  d.pieces_in_zone = popcount(in_zone);
  auto points = [](PieceType pt) {
    PieceType base = unpromoted(pt);
    return base == ROOK || base == BISHOP ? 5 : 1;
  };
  for (Bitboard b = in_zone; b;) d.points += points(type_of(pos.piece_on(pop_lsb(b))));
  for (int pt = PAWN; pt < KING; ++pt)
    d.points += pos.hand(us, PieceType(pt)) * points(PieceType(pt));
  d.valid = d.king_in_zone && !d.in_check && d.pieces_in_zone >= 10 && d.points >= d.points_needed;
  return d;
}

Game::Game(Position start, GameOptions options)
    : start_(start), pos_(std::move(start)), options_(options) {
  if (!pos_.in_placement()) {
    keys_.push_back(pos_.key());
    gave_check_.push_back(false);
    play_start_sfen_ = pos_.sfen();
  }
  judge_after_move();
}

void Game::play(Move m) {
  bool placing = pos_.in_placement();
  pos_.do_move(m);
  moves_.push_back(m);
  if (placing) {
    ++placement_moves_;
    if (!pos_.in_placement()) {  // the repetition history starts after ply 40
      keys_.push_back(pos_.key());
      gave_check_.push_back(false);
      play_start_sfen_ = pos_.sfen();
    }
  } else {
    keys_.push_back(pos_.key());
    gave_check_.push_back(pos_.checkers() != 0);
  }
  judge_after_move();
}

bool Game::play_text(std::string_view usi) {
  Move m;
  try {
    m = parse_move(pos_, usi);
  } catch (const RulesError& e) {
    note_ = e.what();
    finish(winner_of(~pos_.side_to_move()), Reason::IllegalMove);
    return false;
  }
  play(m);
  return true;
}

void Game::declare() {
  DeclarationCheck d = check_declaration(pos_);
  Color us = pos_.side_to_move();
  finish(winner_of(d.valid ? us : ~us), Reason::Declaration);
  if (!d.valid) note_ = "invalid entering-king declaration";
}

void Game::resign() { finish(winner_of(~pos_.side_to_move()), Reason::Resign); }

void Game::set_void(std::string why) {
  note_ = std::move(why);
  finish(Winner::Void, Reason::EngineFailure);
}

void Game::judge_after_move() {
  if (pos_.ruling41()) return finish(Winner::Sente, Reason::Ruling41);
  if (count_legal(pos_) == 0)  // checkmate, or no legal move without check: the mover loses
    return finish(winner_of(~pos_.side_to_move()),
                  pos_.checkers() ? Reason::Mate : Reason::NoLegalMove);
  if (pos_.in_placement() || keys_.empty()) return;

  // Sennichite: the current position for the fourth time.
  uint64_t key = keys_.back();
  int seen = 0;
  size_t first = keys_.size() - 1;
  for (size_t i = keys_.size(); i-- > 0;)
    if (keys_[i] == key) {
      ++seen;
      first = i;
    }
  if (seen >= pos_.variant().repetition_limit) {
    // Who checked with every move since the first occurrence? The mover of the move that
    // reached position i is the side not to move there.
    bool all_checks[COLOR_NB] = {true, true};
    Color to_move_now = pos_.side_to_move();
    for (size_t i = first + 1; i < keys_.size(); ++i) {
      size_t from_end = keys_.size() - 1 - i;
      Color mover = from_end % 2 == 0 ? ~to_move_now : to_move_now;
      if (!gave_check_[i]) all_checks[mover] = false;
    }
    if (all_checks[BLACK] != all_checks[WHITE])
      return finish(winner_of(all_checks[BLACK] ? WHITE : BLACK), Reason::PerpetualCheck);
    return finish(Winner::Draw, Reason::Sennichite);
  }
  if (play_moves() >= options_.max_moves) return finish(Winner::Draw, Reason::MaxMoves);
}

std::string Game::record() const {
  Record rec;
  rec.moves = moves_;
  rec.chooser_takes = chooser_takes;
  return record_string(rec, pos_.variant(), start_.ply());
}

}  // namespace fuseki
