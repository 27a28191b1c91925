// Whole-file reads and atomic writes: every output that must never be seen half-written.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fuseki {

// Writes `bytes` to a temporary file beside `path` (named for this process and call), syncs it,
// renames it over `path` and syncs the directory, so a reader sees either the old file or the whole
// new one. Throws std::runtime_error naming the file and the system's reason. `test_point`, when
// given, is the fault point (io/stop.h) passed between the temporary file's sync and the rename.
void write_file_atomically(const std::string& path, const std::string& bytes,
                           const char* test_point = nullptr);

// Creates `path` with `bytes` unless it exists (whole, synced, as above): true when this call
// created it, false when it was already there. Of several processes racing, exactly one wins.
bool create_file_atomically(const std::string& path, const std::string& bytes);

// A temporary name beside `path` of this process and call (`path`.tmp.PID.N): writers of one
// file in several processes or threads never share one.
std::string temporary_name(const std::string& path);

// Removes the temporaries beside `path` that processes no longer running left (killed between
// writing one and renaming it): names temporary_name gave, of another process id that is gone.
void remove_stale_temporaries(const std::string& path);

// Commits a file another writer (HDF5) has finished at `tmp`: syncs it, renames it over `path`
// and syncs the directory, as write_file_atomically does. Throws std::runtime_error (removing
// `tmp`) on failure.
void commit_file(const std::string& tmp, const std::string& path);

// An output file's place, checked before the work that ends by writing it: throws
// std::runtime_error ("<what>: folder 'D' does not exist", "<what>: 'P' is a folder") where
// `path` could not be written. An empty path: nothing to check.
void check_output_path(const std::string& what, const std::string& path);

// True where `a` and `b` name one file: the same existing file however named (./x, /abs/x, a
// link), or the same normalised absolute path.
bool same_file(const std::string& a, const std::string& b);

// A command's files, checked before its work: no output may be another output or one of its
// inputs (a network, a config) that it would overwrite or remove. Each entry is (what it is,
// e.g. "--out", path); empty paths are skipped. Throws std::runtime_error
// "<command>: --out 'P' is also --network".
using NamedFile = std::pair<std::string, std::string>;
void check_outputs_apart(const std::string& command, const std::vector<NamedFile>& outputs,
                         const std::vector<NamedFile>& inputs);

// The whole file; throws std::runtime_error naming the file and the system's reason.
std::string read_file(const std::string& path);

}  // namespace fuseki
