// libFuzzer target: game records. The first byte picks the rule set (Yari included); the rest is
// the record.
#include <cstddef>
#include <cstdint>
#include <string>

#include "rules/record.h"

using namespace fuseki;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  RuleSet r = RuleSet(data[0] % 5);
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  Position pos = Position::start(r);
  try {
    Record rec = play_record(pos, text);
    // A record that was accepted plays again to the same position.
    Position replay = Position::start(r);
    play_record(replay, record_string(rec, pos.variant()));
    if (replay.key() != pos.key()) __builtin_trap();
  } catch (const RulesError&) {
  }
  return 0;
}
