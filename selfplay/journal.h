// The self-play journal: one JSON line per finished game, appended and flushed as soon as the
// game ends, so a killed worker loses only the games in flight. When a shard's worth of games is
// in the journal, the worker writes the shard (HDF5) and starts a new journal.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/journal.h"
#include "selfplay/shard.h"

namespace fuseki {

// A finished self-play game: its row and its placement decisions (DecisionRow::game unused).
struct PlayedGame {
  uint64_t index = 0;  // the game's index within its worker (its seed derives from it)
  GameRow row;
  std::vector<DecisionRow> decisions;
};

std::string journal_line(const PlayedGame& g);
// The game as a text record line: the record, then "# game=... seed=... winner=... reason=...",
// with `fields` ("key=value ...") first after the "#" where given.
std::string record_line(const PlayedGame& g, const std::string& fields = {});
// False for a torn or garbled line (a worker killed mid-write): the caller drops it.
bool parse_journal_line(const std::string& line, PlayedGame& g);

// Owns a worker's journal and shards in `dir`: shard files are named
// w<worker>-g<first game>-n<games>.h5, so the next game index is known without opening them;
// beside each, <same name>.records holds its games as text records, one per line. Opening it
// removes the temporary files a killed process of the same worker left.
class ShardWriter {
 public:
  ShardWriter(std::string dir, int worker, int shard_games,
              std::map<std::string, std::string> attributes);
  ~ShardWriter();
  ShardWriter(const ShardWriter&) = delete;
  ShardWriter& operator=(const ShardWriter&) = delete;

  // Games finished by this worker so far (in shards and in the journal): the next game index.
  uint64_t next_index() const { return next_index_; }
  // Appends the game to the journal; writes a shard when the journal is full. Games must come
  // in index order.
  void add(const PlayedGame& g);
  // Writes the journal's games (if any) as a shard.
  void flush();
  const std::vector<std::string>& shards_written() const { return written_; }

 private:
  void write_shard_from_journal();
  std::string journal_path() const;

  std::string dir_;
  int worker_;
  int shard_games_;
  std::map<std::string, std::string> attributes_;
  std::vector<PlayedGame> pending_;
  uint64_t next_index_ = 0;
  uint64_t shard_first_ = 0;
  std::unique_ptr<LineJournal> journal_;
  std::vector<std::string> written_;
};

// Every shard file of a run directory (any worker), oldest game first within each worker.
std::vector<std::string> list_shards(const std::string& dir);
// Games in the finished shards of `dir` (any worker), read from the shard names alone.
uint64_t games_in_shards(const std::string& dir);
// The same, per worker id (workers without a shard are absent).
std::map<int, uint64_t> games_by_worker(const std::string& dir);
// The journal file of worker `worker`: w<worker, 3 digits>.journal.
std::string journal_name(int worker);
// Games in worker `worker`'s journal in `dir` (finished, not yet in a shard).
uint64_t games_in_journal(const std::string& dir, int worker);

}  // namespace fuseki
