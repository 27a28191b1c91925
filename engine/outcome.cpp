#include "engine/outcome.h"

namespace fuseki {

const char* winner_name(Winner w) {
  switch (w) {
    case Winner::Sente:
      return "sente";
    case Winner::Gote:
      return "gote";
    case Winner::Draw:
      return "draw";
    case Winner::Void:
      return "void";
    case Winner::None:
      break;
  }
  return "none";
}

const char* reason_name(Reason r) {
  switch (r) {
    case Reason::Mate:
      return "mate";
    case Reason::Ruling41:
      return "ruling41";
    case Reason::Sennichite:
      return "sennichite";
    case Reason::PerpetualCheck:
      return "perpetual_check";
    case Reason::Declaration:
      return "declaration";
    case Reason::MaxMoves:
      return "max_moves";
    case Reason::IllegalMove:
      return "illegal_move";
    case Reason::Resign:
      return "resign";
    case Reason::EngineFailure:
      return "engine_failure";
    case Reason::NoLegalMove:
      return "no_legal_move";
    case Reason::None:
      break;
  }
  return "none";
}

std::optional<Winner> winner_from_code(int value) {
  if (value < 0 || value > code(Winner::None)) return std::nullopt;
  return static_cast<Winner>(value);
}

std::optional<Reason> reason_from_code(int value) {
  if (value < 0 || value >= kReasonCount) return std::nullopt;
  return static_cast<Reason>(value);
}

std::optional<Winner> winner_from_name(std::string_view name) {
  for (int v = 0; v <= code(Winner::None); ++v)
    if (name == winner_name(static_cast<Winner>(v))) return static_cast<Winner>(v);
  return std::nullopt;
}

std::optional<Reason> reason_from_name(std::string_view name) {
  for (int v = 0; v < kReasonCount; ++v)
    if (name == reason_name(static_cast<Reason>(v))) return static_cast<Reason>(v);
  return std::nullopt;
}

Winner winner_of(Color c) { return c == BLACK ? Winner::Sente : Winner::Gote; }

}  // namespace fuseki
