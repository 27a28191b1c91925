#include "io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "io/stop.h"

namespace fuseki {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw std::runtime_error("'" + path + "': " + what + ": " + std::strerror(err));
}

std::string parent_dir(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Writes `bytes` to a new temporary file beside `path` and syncs it; returns its name.
std::string write_temporary(const std::string& path, const std::string& bytes) {
  const std::string tmp = temporary_name(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  // Errors name the file asked for (its temporary beside it is an implementation detail).
  if (fd < 0) fail(path, "cannot create it (as " + tmp + ")", errno);
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail(path, "cannot write it (as " + tmp + ")", err);
    }
    p += n;
    left -= size_t(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail(path, "cannot sync it (as " + tmp + ")", err);
  }
  return tmp;
}

void sync_directory_of(const std::string& path) {
  // A rename or link is durable only once the directory is synced; failure here is harmless.
  int dir = ::open(parent_dir(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace

std::string temporary_name(const std::string& path) {
  static std::atomic<uint64_t> calls{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(calls++);
}

namespace {

// The commit of a synced temporary file: renamed over `path`, the directory synced.
void rename_into_place(const std::string& tmp, const std::string& path) {
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail(path, "cannot rename " + tmp + " to it", err);
  }
  sync_directory_of(path);
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& bytes,
                           const char* test_point_name) {
  const std::string tmp = write_temporary(path, bytes);
  if (test_point_name) test_point(test_point_name);
  rename_into_place(tmp, path);
}

void commit_file(const std::string& tmp, const std::string& path) {
  int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(tmp, "cannot open", errno);
  int rc = ::fsync(fd), err = errno;
  ::close(fd);
  if (rc != 0) {
    ::unlink(tmp.c_str());
    fail(tmp, "cannot sync", err);
  }
  rename_into_place(tmp, path);
}

bool create_file_atomically(const std::string& path, const std::string& bytes) {
  const std::string tmp = write_temporary(path, bytes);
  // link() fails when `path` exists: of several processes creating it, exactly one succeeds.
  int rc = ::link(tmp.c_str(), path.c_str());
  int err = errno;
  ::unlink(tmp.c_str());
  if (rc != 0 && err == EEXIST) return false;
  if (rc != 0) fail(path, "cannot create it from " + tmp, err);
  sync_directory_of(path);
  return true;
}

std::string read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open", errno);
  std::string out;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      fail(path, "cannot read", err);
    }
    if (n == 0) break;
    out.append(buf, size_t(n));
  }
  ::close(fd);
  return out;
}

void check_output_path(const std::string& what, const std::string& path) {
  if (path.empty()) return;
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!std::filesystem::is_directory(dir))
    throw std::runtime_error(what + ": folder '" + dir.string() + "' does not exist");
  if (std::filesystem::is_directory(path))
    throw std::runtime_error(what + ": '" + path + "' is a folder");
}

}  // namespace fuseki
