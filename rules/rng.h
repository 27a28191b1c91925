// A small, fast, seedable generator (xoshiro256**, seeded through splitmix64). Every random
// choice in fusekilab derives from one run seed through this, so runs reproduce exactly.
#pragma once

#include <cstdint>

namespace fuseki {

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& s : s_) s = splitmix(seed);
  }
  // A seed for a sub-stream, e.g. Rng::derive(run_seed, worker, game).
  static uint64_t derive(uint64_t a, uint64_t b, uint64_t c = 0) {
    uint64_t x = a;
    uint64_t h = splitmix(x) ^ (b * 0x9E3779B97F4A7C15ull);
    x = h;
    h = splitmix(x) ^ (c * 0xC2B2AE3D27D4EB4Full);
    x = h;
    return splitmix(x);
  }
  uint64_t next() {
    uint64_t result = rotl(s_[1] * 5, 7) * 9;
    uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n), n > 0 (Lemire's multiply-shift; the bias is below 2^-32 for small n).
  uint32_t below(uint32_t n) { return uint32_t((uint64_t(uint32_t(next() >> 32)) * n) >> 32); }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  // The whole state, for checkpoints that resume exactly.
  void save(uint64_t out[4]) const {
    for (int i = 0; i < 4; ++i) out[i] = s_[i];
  }
  void restore(const uint64_t in[4]) {
    for (int i = 0; i < 4; ++i) s_[i] = in[i];
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix(uint64_t& x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t s_[4];
};

}  // namespace fuseki
