#include "io/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "io/atomic_file.h"

namespace fuseki {

std::vector<std::string> LineJournal::read(const std::string& path, const Valid& valid) {
  std::vector<std::string> lines;
  if (::access(path.c_str(), F_OK) != 0) return lines;
  const std::string text = read_file(path);
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) break;  // torn: the kill came before the newline
    std::string line = text.substr(at, end - at);
    if (!valid(line)) break;
    lines.push_back(std::move(line));
    at = end + 1;
  }
  return lines;
}

LineJournal::LineJournal(std::string path, const std::vector<std::string>& lines)
    : path_(std::move(path)) {
  remove_stale_temporaries(path_);  // a rewrite a killed process left half done
  std::string kept;
  for (const std::string& l : lines) kept += l + '\n';
  write_file_atomically(path_, kept, lines.empty() ? nullptr : "journal-rewrite");
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0)
    throw std::runtime_error("'" + path_ + "': cannot open the journal: " + std::strerror(errno));
}

LineJournal::~LineJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void LineJournal::append(const std::string& line) {
  std::string text = line + '\n';
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("'" + path_ + "': cannot append: " + std::strerror(errno));
    done += size_t(n);
  }
}

void LineJournal::clear() {
  if (::ftruncate(fd_, 0) != 0)
    throw std::runtime_error("'" + path_ + "': cannot truncate: " + std::strerror(errno));
}

void append_log_line(const std::string& path, const std::string& line) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("'" + path + "': cannot open: " + std::strerror(errno));
  std::string text = line + '\n';
  char last = '\n';
  off_t end = ::lseek(fd, 0, SEEK_END);
  if (end > 0 && ::pread(fd, &last, 1, end - 1) == 1 && last != '\n') text.insert(0, 1, '\n');
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      throw std::runtime_error("'" + path + "': cannot append: " + std::strerror(err));
    }
    done += size_t(n);
  }
  ::close(fd);
}

}  // namespace fuseki
