// Whole-file reads and atomic writes: every output that must never be seen half-written.
#pragma once

#include <string>

namespace fuseki {

// Writes `bytes` to `path.tmp`, syncs it, renames it over `path` and syncs the directory, so a
// reader sees either the old file or the whole new one. Throws std::runtime_error naming the
// file and the system's reason.
void write_file_atomically(const std::string& path, const std::string& bytes);

// The whole file; throws std::runtime_error naming the file and the system's reason.
std::string read_file(const std::string& path);

}  // namespace fuseki
