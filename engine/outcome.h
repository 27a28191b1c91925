// A game's outcome: who won and why. The numeric values are what shards, journals and table files
// store (docs/formats.md): they are pinned below and must never be reordered or reused; a new
// reason takes the next free value.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "rules/types.h"

namespace fuseki {

enum class Winner : int8_t {
  Sente = 0,
  Gote = 1,
  Draw = 2,
  Void = 3,  // no result: an engine failed beyond its retries
  None = 4,  // not over (not played out)
};

enum class Reason : int8_t {
  None = 0,
  Mate = 1,            // checkmate: the side to move is in check and has no legal move
  Ruling41 = 2,        // Gote's king still attacked after ply 40
  Sennichite = 3,      // fourth repetition: draw
  PerpetualCheck = 4,  // fourth repetition and one side checked with every move since the first
  Declaration = 5,     // a valid entering-king declaration wins; an invalid one loses
  MaxMoves = 6,        // the move cap: draw
  IllegalMove = 7,     // an engine's illegal move loses
  Resign = 8,
  EngineFailure = 9,  // crash, hang or garbage that survived the retries: the game is void
  NoLegalMove = 10,   // the side to move is not in check but has no legal move: it loses
};

// Stored values: pinned (shards and journals written before must keep reading the same).
static_assert(int(Winner::Sente) == 0 && int(Winner::Gote) == 1 && int(Winner::Draw) == 2 &&
              int(Winner::Void) == 3 && int(Winner::None) == 4);
static_assert(int(Reason::None) == 0 && int(Reason::Mate) == 1 && int(Reason::Ruling41) == 2 &&
              int(Reason::Sennichite) == 3 && int(Reason::PerpetualCheck) == 4 &&
              int(Reason::Declaration) == 5 && int(Reason::MaxMoves) == 6 &&
              int(Reason::IllegalMove) == 7 && int(Reason::Resign) == 8 &&
              int(Reason::EngineFailure) == 9 && int(Reason::NoLegalMove) == 10);
constexpr int kReasonCount = 11;

constexpr int8_t code(Winner w) { return static_cast<int8_t>(w); }
constexpr int8_t code(Reason r) { return static_cast<int8_t>(r); }
// The outcome a stored value means; none for a value no version wrote.
std::optional<Winner> winner_from_code(int value);
std::optional<Reason> reason_from_code(int value);

const char* winner_name(Winner w);  // "sente", "gote", "draw", "void", "none"
const char* reason_name(Reason r);  // "mate", "ruling41", ..., "no_legal_move"; "none"
std::optional<Winner> winner_from_name(std::string_view name);
std::optional<Reason> reason_from_name(std::string_view name);

Winner winner_of(Color c);
// A result that counts in a score: a win for either side or a draw (not void, not unfinished).
constexpr bool scored(Winner w) {
  return w == Winner::Sente || w == Winner::Gote || w == Winner::Draw;
}
// The score of `side` for a scored result: 1 for a win, 0.5 for a draw, 0 for a loss.
constexpr double score_of(Winner w, Color side) {
  return w == Winner::Draw ? 0.5 : (w == Winner::Sente) == (side == BLACK) ? 1.0 : 0.0;
}

}  // namespace fuseki
