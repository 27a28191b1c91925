// Progress of a long job on stderr: "what: done/total, rate/s, extra, ETA s", at most every two
// seconds unless forced. Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

namespace fuseki {

class Progress {
 public:
  Progress(std::string what, uint64_t total);
  // `done` counts this run's work (not work resumed from an earlier run), so the rate is real.
  void report(uint64_t done, const std::string& extra = "", bool force = false);
  // The line report() prints, without printing (tests).
  std::string line(uint64_t done, const std::string& extra, double elapsed) const;

 private:
  std::string what_;
  uint64_t total_;
  double start_, last_ = -10;
  std::mutex mu_;
};

}  // namespace fuseki
