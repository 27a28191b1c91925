#include "rules/ruleset.h"

#include <stdexcept>

namespace fuseki {
namespace {

constexpr RuleInfo kRules[] = {
    {RuleSet::Shogi, "shogi", false, false, false, "shogi"},
    {RuleSet::Fuseki, "fuseki", true, false, false, "shogi"},
    {RuleSet::BalanceV1, "balance-v1", true, true, false, "shogi"},
    {RuleSet::Balance, "balance", true, true, true, "shogi"},
    {RuleSet::Yari, "yari", false, false, false, "yarishogi"},
};

}  // namespace

const RuleInfo& rule_info(RuleSet r) { return kRules[int(r)]; }

const Variant& variant_of(RuleSet r) {
  return r == RuleSet::Yari ? yari_variant() : shogi_variant();
}

std::optional<RuleSet> parse_rule_set(std::string_view name) {
  for (const RuleInfo& r : kRules)
    if (name == r.name) return r.id;
  if (name == "balance-v2") return RuleSet::Balance;
  return std::nullopt;
}

RuleSet rule_set_or_throw(std::string_view name) {
  if (auto r = parse_rule_set(name)) return *r;
  std::string message = "unknown rule set '";
  message += name;
  message += "' (known: " + rule_set_names() + ")";
  throw std::runtime_error(message);
}

std::string rule_set_names() {
  std::string out;
  for (const RuleInfo& r : kRules) {
    if (!out.empty()) out += ", ";
    out += r.name;
  }
  return out;
}

std::string placement_rule_set_names() {
  std::string out;
  for (const RuleInfo& r : kRules) {
    if (!r.placement) continue;
    if (!out.empty()) out += ", ";
    out += r.name;
  }
  return out;
}

RuleSet placement_rule_set_or_throw(std::string_view name) {
  RuleSet r = rule_set_or_throw(name);
  if (!rule_info(r).placement) {
    std::string message = "'";
    message += name;
    message += "' has no placement phase for a placement network to play (placement rule sets: " +
               placement_rule_set_names() + ")";
    throw std::runtime_error(message);
  }
  return r;
}

}  // namespace fuseki
