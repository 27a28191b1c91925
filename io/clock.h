// The one clock of rates, ETAs and timeouts: seconds on the steady clock (never jumps).
#pragma once

#include <chrono>

namespace fuseki {

inline double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace fuseki
