// Play-out engines kept for the life of a generator: one Sente/Gote pair per play-out thread,
// made and prepared on first use, so a USI engine starts once per run, not once per batch. A
// player that fails mid-game restarts itself (engine/usi.h), so a kept pair stays usable.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "engine/player.h"

namespace fuseki {

class EnginePool {
 public:
  using Factory = std::function<std::unique_ptr<Player>()>;
  explicit EnginePool(Factory make) : make_(std::move(make)) {}

  struct Pair {
    std::unique_ptr<Player> sente, gote;
  };
  // Makes and prepares pairs up to `n`, on the caller's thread, so an engine that cannot start
  // throws here (std::runtime_error), not in a worker thread.
  void reserve(size_t n);
  // Pair `i` (< the count reserved); each play-out thread takes its own.
  Pair& pair(size_t i) { return pairs_.at(i); }
  size_t size() const { return pairs_.size(); }

 private:
  Factory make_;
  std::vector<Pair> pairs_;
};

}  // namespace fuseki
