// "i/n": slice i of n of some work (a self-play worker, a table shard, an array task).
#pragma once

#include <string>

namespace fuseki {

struct Slice {
  int index = 0;
  int count = 1;
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
  bool operator==(const Slice&) const = default;
};

// Parses "i/n" with 0 <= i < n and nothing around it; throws std::runtime_error naming `flag`
// ("--worker '2/2': expected i/n with 0 <= i < n").
Slice parse_slice(const std::string& text, const std::string& flag);
// The slice of this Slurm array task (SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT); throws,
// naming `flag`, outside an array.
Slice slice_from_slurm(const std::string& flag);

}  // namespace fuseki
