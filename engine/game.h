// The arbiter: a game from a position to its end, with the game-end rules of rules.md applied
// after every move, in order: the move-41 ruling, an illegal move, no legal move, sennichite
// (with perpetual check), the entering-king declaration, the move cap.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/outcome.h"
#include "rules/position.h"

namespace fuseki {

struct GameOptions {
  int max_moves = 320;  // moves of ordinary play (from move 41, or from the start for `shogi`)
};

// What the entering-king rule (CSA 27-point) says of the side to move.
struct DeclarationCheck {
  bool valid = false;
  bool king_in_zone = false;
  bool in_check = false;
  int pieces_in_zone = 0;  // pieces other than the king in the enemy's three ranks
  int points = 0;          // R/B (promoted too) 5, others 1: pieces in the zone plus hand
  int points_needed = 0;   // 28 for Sente, 27 for Gote
};
DeclarationCheck check_declaration(const Position& pos);

class Game {
 public:
  explicit Game(Position start, GameOptions options = {});

  const Position& position() const { return pos_; }
  const Position& start() const { return start_; }
  const std::vector<Move>& moves() const { return moves_; }
  Winner winner() const { return winner_; }
  Reason reason() const { return reason_; }
  bool over() const { return winner_ != Winner::None; }
  // Moves of ordinary play so far (what the cap counts).
  int play_moves() const { return int(moves_.size()) - placement_moves_; }
  std::optional<Color> chooser_takes;  // Balance: the side the chooser took (record metadata)

  // Plays a legal move and applies the game-end rules. Precondition: !over() and legal.
  void play(Move m);
  // A move from an external player: illegal or malformed text loses for the mover.
  bool play_text(std::string_view usi);
  // The side to move declares an entering-king win; an invalid declaration loses.
  void declare();
  void resign();
  // A result given from outside the rules (a test's or an experiment's judge of the placement).
  void adjudicate(Winner w) { finish(w, Reason::None); }
  // The game cannot be finished (an engine kept failing): void, with the reason.
  void set_void(std::string why);
  const std::string& note() const { return note_; }

  // Keys of the positions of ordinary play so far (for the engines' repetition checks).
  const std::vector<uint64_t>& keys() const { return keys_; }
  // Ordinary play as a USI engine sees it: the SFEN where it began and the moves since.
  const std::string& play_start_sfen() const { return play_start_sfen_; }
  std::vector<Move> play_moves_list() const {
    return std::vector<Move>(moves_.begin() + placement_moves_, moves_.end());
  }

  // The record: placement drops and moves in USI, with the side choice after ply 2.
  std::string record() const;

 private:
  void finish(Winner w, Reason r) {
    winner_ = w;
    reason_ = r;
  }
  void judge_after_move();

  Position start_, pos_;
  GameOptions options_;
  std::vector<Move> moves_;
  int placement_moves_ = 0;
  // Repetition history from the first position of ordinary play: keys, and whether the move
  // that reached each position gave check.
  std::vector<uint64_t> keys_;
  std::vector<bool> gave_check_;
  std::string play_start_sfen_;
  Winner winner_ = Winner::None;
  Reason reason_ = Reason::None;
  std::string note_;
};

}  // namespace fuseki
