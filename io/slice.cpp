#include "io/slice.h"

#include <cctype>
#include <cstdlib>
#include <stdexcept>

namespace fuseki {
namespace {

// A non-negative decimal number of at most 9 digits, all of `s`; -1 otherwise.
int number(const std::string& s) {
  if (s.empty() || s.size() > 9) return -1;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
  return std::atoi(s.c_str());
}

}  // namespace

Slice parse_slice(const std::string& text, const std::string& flag) {
  size_t slash = text.find('/');
  int i = slash == std::string::npos ? -1 : number(text.substr(0, slash));
  int n = slash == std::string::npos ? -1 : number(text.substr(slash + 1));
  if (i < 0 || n < 1 || i >= n)
    throw std::runtime_error(flag + " '" + text + "': expected i/n with 0 <= i < n");
  return {i, n};
}

Slice slice_from_slurm(const std::string& flag) {
  const char* i = std::getenv("SLURM_ARRAY_TASK_ID");
  const char* n = std::getenv("SLURM_ARRAY_TASK_COUNT");
  if (!i || !n)
    throw std::runtime_error(flag +
                             " i/n not given and not in a Slurm array (no "
                             "SLURM_ARRAY_TASK_ID/COUNT)");
  return parse_slice(std::string(i) + "/" + n, "SLURM_ARRAY_TASK_ID/COUNT");
}

}  // namespace fuseki
