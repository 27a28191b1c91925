// The one clock of rates, ETAs and timeouts: seconds on the steady clock (never jumps).
#pragma once

#include <chrono>
#include <ctime>

namespace fuseki {

inline double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// CPU seconds of the whole process, every thread (the cost of work, whatever the machine's load).
inline double cpu_seconds() { return double(std::clock()) / CLOCKS_PER_SEC; }

}  // namespace fuseki
