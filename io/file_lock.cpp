#include "io/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>

namespace fuseki {

FileLock::FileLock(const std::string& path, const std::string& what) {
  std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(path + ": cannot open the lock file");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error(what + " is already running (" + path +
                             " is locked by another process)");
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

LockState lock_state(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return LockState::Absent;
  LockState s = ::flock(fd, LOCK_EX | LOCK_NB) == 0 ? LockState::Free : LockState::Held;
  ::close(fd);  // releases it if we took it
  return s;
}

}  // namespace fuseki
