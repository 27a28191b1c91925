// Rule sets: which variant, and which placement rules run before ordinary play.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "rules/variant.h"

namespace fuseki {

enum class RuleSet { Shogi, Fuseki, BalanceV1, Balance, Yari };

struct RuleInfo {
  RuleSet id;
  const char* name;
  bool placement;      // plies 1-40 are drops into the own camp from an empty board
  bool balance_kings;  // ply 1 and 2: the placer drops Sente's then Gote's king; no king later
  bool nihikyo;        // plies 3-40: no rook or lance on a file already holding an own rook/lance
  // The variant a USI engine that plays several (Fairy-Stockfish's UCI_Variant) is told. The
  // placement rule sets are played out from move 41 as ordinary shogi positions.
  const char* usi_variant;
};

constexpr int PLACEMENT_PLIES = 40;

const RuleInfo& rule_info(RuleSet r);
const Variant& variant_of(RuleSet r);
std::optional<RuleSet> parse_rule_set(std::string_view name);
std::string rule_set_names();  // "shogi, fuseki, balance-v1, balance", for error messages
// parse_rule_set, or std::runtime_error "unknown rule set 'x' (known: ...)".
RuleSet rule_set_or_throw(std::string_view name);
// The rule sets with a placement phase ("fuseki, balance-v1, balance"), and rule_set_or_throw
// for what a placement network plays: a rule set without one is refused by name.
std::string placement_rule_set_names();
RuleSet placement_rule_set_or_throw(std::string_view name);

}  // namespace fuseki
