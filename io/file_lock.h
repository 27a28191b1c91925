// One process per piece of work: an exclusive advisory lock (flock) on a file, held while the
// object lives and released by the kernel when the process dies, however it dies.
#pragma once

#include <string>

namespace fuseki {

class FileLock {
 public:
  // Takes the lock on `path` (creating it); throws std::runtime_error "<what> is already running
  // (<path> is locked by another process)" when another process holds it.
  FileLock(const std::string& path, const std::string& what);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

enum class LockState { Absent, Free, Held };
// Whether a process holds the lock on `path` now (Absent: no such lock file).
LockState lock_state(const std::string& path);

}  // namespace fuseki
