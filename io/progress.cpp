#include "io/progress.h"

#include <algorithm>
#include <cstdio>

#include "io/clock.h"

namespace fuseki {

Progress::Progress(std::string what, uint64_t total)
    : what_(std::move(what)), total_(total), start_(now_seconds()) {}

std::string Progress::line(uint64_t done, const std::string& extra, double elapsed) const {
  double rate = double(done) / std::max(elapsed, 1e-9);
  char eta[32] = "?";
  if (rate > 0)
    std::snprintf(eta, sizeof(eta), "%.0f s", total_ > done ? (total_ - done) / rate : 0);
  char buf[512];
  std::snprintf(buf, sizeof(buf), "%s: %llu/%llu, %.2f/s%s%s, ETA %s", what_.c_str(),
                (unsigned long long)done, (unsigned long long)total_, rate,
                extra.empty() ? "" : ", ", extra.c_str(), eta);
  return buf;
}

void Progress::report(uint64_t done, const std::string& extra, bool force) {
  std::lock_guard<std::mutex> lock(mu_);
  double t = now_seconds() - start_;
  if (!force && t - last_ < 2.0) return;
  last_ = t;
  std::fprintf(stderr, "%s\n", line(done, extra, t).c_str());
}

}  // namespace fuseki
