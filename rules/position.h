// A game position: board, hands, side to move, ply; make/undo with incremental Zobrist keys.
// The same class covers the placement phase (plies 1-40 of Fuseki/Balance) and ordinary play.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rules/bitboard.h"
#include "rules/ruleset.h"
#include "rules/variant.h"

namespace fuseki {

// Bad input (SFEN, move, record): the message names the offending token or field.
struct RulesError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Position {
 public:
  // The rule set's start: the empty board with full hands for placement rule sets, else the
  // variant's start position.
  static Position start(RuleSet rules);
  // Reads an SFEN (extended with kings in hand during placement); throws RulesError.
  static Position from_sfen(std::string_view sfen, RuleSet rules);
  std::string sfen() const;

  RuleSet rules() const { return rules_; }
  const RuleInfo& info() const { return *info_; }
  const Variant& variant() const { return *var_; }
  Color side_to_move() const { return stm_; }
  int ply() const { return ply_; }  // plies played; the move number is ply() + 1
  bool in_placement() const { return info_->placement && ply_ < PLACEMENT_PLIES; }

  Piece piece_on(Square s) const { return board_[s]; }
  Bitboard pieces() const { return by_color_[BLACK] | by_color_[WHITE]; }
  Bitboard pieces(Color c) const { return by_color_[c]; }
  Bitboard pieces(PieceType pt) const { return by_type_[pt]; }
  Bitboard pieces(Color c, PieceType pt) const { return by_color_[c] & by_type_[pt]; }
  int hand(Color c, PieceType pt) const { return hand_[c][pt]; }
  bool hand_empty(Color c) const;
  Square king_square(Color c) const { return king_[c]; }  // SQ_NONE while the king is in hand
  uint64_t key() const { return key_; }
  // Pieces that slide along direction d (towards the ray's far end), per colour.
  Bitboard sliders(Color c, Direction d) const { return sliders_[c][d]; }

  // Pieces of colour `by` that attack s, with the given occupancy.
  Bitboard attackers_to(Square s, Color by, Bitboard occupied) const;
  bool attacked(Square s, Color by, Bitboard occupied) const;
  bool king_attacked(Color c) const {
    return king_[c] != SQ_NONE && attacked(king_[c], ~c, pieces());
  }
  Bitboard checkers() const {
    return king_[stm_] == SQ_NONE ? 0 : attackers_to(king_[stm_], ~stm_, pieces());
  }
  // Own pieces that may not leave the line between their king and an enemy slider.
  Bitboard pinned(Color c) const;

  // The move-41 ruling: placement is over and Gote's king is still attacked; Sente has won.
  bool ruling41() const {
    return info_->placement && ply_ == PLACEMENT_PLIES && king_attacked(WHITE);
  }
  // The move-41 ruling is certain: during placement, a Sente piece that steps (a knight from
  // rank f) attacks Gote's king. Nothing dropped comes between a stepping piece and its target
  // and no piece moves before move 41, so the attack stands after ply 40 whatever is dropped.
  // After ply 40, the ruling itself.
  bool ruling41_certain() const {
    if (!info_->placement || king_[WHITE] == SQ_NONE) return false;
    return ply_ == PLACEMENT_PLIES
               ? ruling41()
               : ply_ < PLACEMENT_PLIES && step_attackers_to(king_[WHITE], BLACK);
  }
  // Pieces of colour `by` that step (not slide) to s.
  Bitboard step_attackers_to(Square s, Color by) const;

  void do_move(Move m);
  void undo_move(Move m);
  // Passes the turn (for search's null-move pruning only; never a legal move).
  void do_null_move();
  void undo_null_move();

 private:
  explicit Position(RuleSet rules);
  void put_piece(Piece p, Square s);
  void remove_piece(Square s);
  void set_hand(Color c, PieceType pt, int n);
  static uint64_t side_key();
  void validate() const;
  void validate_placement() const;
  void validate_play() const;

  struct Undo {
    uint64_t key;
    Piece captured;
  };

  RuleSet rules_;
  const RuleInfo* info_;
  const Variant* var_;
  Piece board_[SQ_MAX] = {};
  Bitboard by_color_[COLOR_NB] = {};
  Bitboard by_type_[PIECE_TYPE_NB] = {};
  Bitboard step_class_bb_[COLOR_NB][PIECE_TYPE_NB] = {};
  Bitboard sliders_[COLOR_NB][DIR_NB] = {};
  uint8_t hand_[COLOR_NB][PIECE_TYPE_NB] = {};
  Square king_[COLOR_NB] = {SQ_NONE, SQ_NONE};
  Color stm_ = BLACK;
  int ply_ = 0;
  uint64_t key_ = 0;
  std::vector<Undo> history_;
};

}  // namespace fuseki
