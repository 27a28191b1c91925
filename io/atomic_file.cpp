#include "io/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
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

void remove_stale_temporaries(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const std::string prefix = target.filename().string() + ".tmp.";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string rest = name.substr(prefix.size());  // PID.N
    const size_t dot = rest.find('.');
    if (dot == 0 || dot == std::string::npos ||
        rest.find_first_not_of("0123456789.") != std::string::npos)
      continue;
    const long pid = std::strtol(rest.substr(0, dot).c_str(), nullptr, 10);
    if (pid <= 0 || pid == long(::getpid())) continue;
    if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH) fs::remove(entry.path(), ec);
  }
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
  if (std::filesystem::exists(dir) && !std::filesystem::is_directory(dir))
    throw std::runtime_error(what + ": '" + dir.string() + "' is not a folder");
  if (!std::filesystem::is_directory(dir))
    throw std::runtime_error(what + ": folder '" + dir.string() + "' does not exist");
  if (std::filesystem::is_directory(path))
    throw std::runtime_error(what + ": '" + path + "' is a folder");
}

bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return fs::weakly_canonical(fs::absolute(a), ec) == fs::weakly_canonical(fs::absolute(b), ec);
}

void check_outputs_apart(const std::string& command, const std::vector<NamedFile>& outputs,
                         const std::vector<NamedFile>& inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& what = outputs[i].first;  // (not a structured binding: lambdas take it)
    const std::string& path = outputs[i].second;
    if (path.empty()) continue;
    auto clash = [&](const NamedFile& other) {
      if (!other.second.empty() && same_file(path, other.second))
        throw std::runtime_error(command + ": " + what + " '" + path + "' is also " + other.first +
                                 " ('" + other.second + "')");
    };
    for (size_t j = i + 1; j < outputs.size(); ++j) clash(outputs[j]);
    for (const NamedFile& input : inputs) clash(input);
  }
}

}  // namespace fuseki
