// libFuzzer target: the SFEN reader under every rule set. Input that parses must round-trip
// through sfen() and yield legal moves that can be made and unmade.
#include <cstddef>
#include <cstdint>
#include <string>

#include "rules/movegen.h"
#include "rules/position.h"

using namespace fuseki;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  for (RuleSet r :
       {RuleSet::Shogi, RuleSet::Fuseki, RuleSet::BalanceV1, RuleSet::Balance, RuleSet::Yari}) {
    try {
      Position pos = Position::from_sfen(text, r);
      std::string written = pos.sfen();
      Position again = Position::from_sfen(written, r);
      if (again.sfen() != written || again.key() != pos.key()) __builtin_trap();
      MoveList list;
      generate_legal(pos, list);
      if (list.size != count_legal(pos)) __builtin_trap();
      for (Move m : list) {
        pos.do_move(m);
        pos.undo_move(m);
      }
      if (pos.sfen() != written) __builtin_trap();
    } catch (const RulesError&) {
    }
  }
  return 0;
}
