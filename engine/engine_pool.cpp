#include "engine/engine_pool.h"

namespace fuseki {

void EnginePool::reserve(size_t n) {
  while (pairs_.size() < n) {
    Pair p{make_(), make_()};
    p.sente->prepare();
    p.gote->prepare();
    pairs_.push_back(std::move(p));
  }
}

}  // namespace fuseki
