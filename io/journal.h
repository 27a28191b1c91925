// A line-per-record journal: the one way a resumable job keeps what it has finished (a self-play
// worker's games, a table run's schedules and results, first-move games). Each record is one line
// written with one write(2) as soon as it is done, so a killed process loses only what was in
// flight; a line torn by a kill (no newline at the end) is dropped on reading, as is everything
// from the first line the reader rejects. On opening, the journal is rewritten (atomically) to
// exactly the lines kept, then appended to.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace fuseki {

class LineJournal {
 public:
  using Valid = std::function<bool(const std::string&)>;

  // The complete lines of `path` (none when it does not exist), up to the first torn or
  // rejected line.
  static std::vector<std::string> read(const std::string& path, const Valid& valid);

  // Rewrites `path` to `lines` (atomically; the fault point "journal-rewrite" of io/stop.h is
  // passed when there is a line to keep) and opens it for appending.
  LineJournal(std::string path, const std::vector<std::string>& lines);
  ~LineJournal();
  LineJournal(const LineJournal&) = delete;
  LineJournal& operator=(const LineJournal&) = delete;

  // Appends `line` and its newline with one write (the caller serialises concurrent appends).
  void append(const std::string& line);
  // Empties the journal (its records are safe elsewhere).
  void clear();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

// Appends `line` and its newline to the log `path` (made when missing) with one write(2): for
// logs read line by line whose readers skip a line that does not parse (a run's metrics and
// generations). A last line torn by a kill (no newline) is ended first, so the new line is not
// joined to the fragment and lost with it.
void append_log_line(const std::string& path, const std::string& line);

}  // namespace fuseki
