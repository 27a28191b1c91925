#include "selfplay/journal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "io/atomic_file.h"
#include "io/journal.h"
#include "io/stop.h"

namespace fuseki {

namespace fs = std::filesystem;
using nlohmann::json;

std::string record_line(const PlayedGame& g, const std::string& fields) {
  const GameRow& w = g.row;
  return w.record + " # " + (fields.empty() ? "" : fields + " ") +
         "game=" + std::to_string(g.index) + " seed=" + std::to_string(w.seed) +
         " winner=" + winner_name(w.winner) + " reason=" + std::to_string(code(w.reason)) +
         " moves=" + std::to_string(w.play_moves);
}

std::string journal_line(const PlayedGame& g) {
  json d = json::array();
  for (const DecisionRow& r : g.decisions) {
    json row = {r.ply, r.mover, r.action, r.move, r.legal, r.prob, r.value};
    if (!r.target.empty()) {
      json t = json::array();
      for (const PolicyTarget& e : r.target) {
        json entry = {e.action, e.prob};
        if (std::isfinite(e.q)) entry.push_back(e.q);
        t.push_back(entry);
      }
      row.push_back(t);  // a search's improved policy: [[action, prob(, q)], ...]
    }
    d.push_back(row);
  }
  const GameRow& w = g.row;
  json j = {{"index", g.index},         {"seed", w.seed},
            {"rules", w.rules},         {"winner", code(w.winner)},
            {"reason", code(w.reason)}, {"play_moves", w.play_moves},
            {"placer", w.placer},       {"chooser", w.chooser_takes},
            {"sk", w.sente_king},       {"gk", w.gote_king},
            {"shapes", w.shapes},       {"ev", w.sente_eval},
            {"record", w.record},       {"d", d}};
  return j.dump();
}

bool parse_journal_line(const std::string& line, PlayedGame& g) {
  try {
    json j = json::parse(line);
    g = PlayedGame{};
    g.index = j.at("index").get<uint64_t>();
    GameRow& w = g.row;
    w.seed = j.at("seed").get<uint64_t>();
    w.rules = j.at("rules").get<int8_t>();
    std::optional<Winner> winner = winner_from_code(j.at("winner").get<int>());
    std::optional<Reason> reason = reason_from_code(j.at("reason").get<int>());
    if (!winner || !reason) return false;
    w.winner = *winner;
    w.reason = *reason;
    w.play_moves = j.at("play_moves").get<int16_t>();
    w.placer = j.at("placer").get<int8_t>();
    w.chooser_takes = j.at("chooser").get<int8_t>();
    w.sente_king = j.at("sk").get<int16_t>();
    w.gote_king = j.at("gk").get<int16_t>();
    w.shapes = j.at("shapes").get<uint8_t>();
    w.sente_eval = j.value("ev", -1.0f);
    w.record = j.at("record").get<std::string>();
    for (const json& r : j.at("d")) {
      std::vector<PolicyTarget> target;
      if (r.size() > 7)
        for (const json& e : r.at(7))
          target.push_back({e.at(0).get<int16_t>(), e.at(1).get<float>(),
                            e.size() > 2 ? e.at(2).get<float>() : PolicyTarget{}.q});
      g.decisions.push_back({0, r.at(0).get<int16_t>(), r.at(1).get<int8_t>(),
                             r.at(2).get<int16_t>(), r.at(3).get<uint16_t>(),
                             r.at(4).get<int16_t>(), r.at(5).get<float>(), r.at(6).get<float>(),
                             std::move(target)});
    }
    return true;
  } catch (const json::exception&) {
    return false;
  }
}

namespace {

const std::regex kShardName(R"(w(\d+)-g(\d+)-n(\d+)\.h5)");

std::string shard_name(int worker, uint64_t first, size_t n) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), "w%03d-g%09llu-n%zu.h5", worker,
                static_cast<unsigned long long>(first), n);
  return buf;
}

}  // namespace

std::vector<std::string> list_shards(const std::string& dir) {
  std::vector<std::tuple<int, uint64_t, std::string>> found;
  if (!fs::is_directory(dir)) return {};
  for (const auto& e : fs::directory_iterator(dir)) {
    std::smatch m;
    std::string name = e.path().filename().string();
    if (std::regex_match(name, m, kShardName))
      found.emplace_back(std::stoi(m[1]), std::stoull(m[2]), e.path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(std::get<2>(f));
  return out;
}

std::map<int, uint64_t> games_by_worker(const std::string& dir) {
  std::map<int, uint64_t> games;
  for (const std::string& path : list_shards(dir)) {
    std::smatch m;
    std::string name = fs::path(path).filename().string();
    if (std::regex_match(name, m, kShardName)) games[std::stoi(m[1])] += std::stoull(m[3]);
  }
  return games;
}

uint64_t games_in_shards(const std::string& dir) {
  uint64_t games = 0;
  for (const auto& [worker, n] : games_by_worker(dir)) games += n;
  return games;
}

std::string journal_name(int worker) {
  char name[32];
  std::snprintf(name, sizeof(name), "w%03d.journal", worker);
  return name;
}

uint64_t games_in_journal(const std::string& dir, int worker) {
  return LineJournal::read((fs::path(dir) / journal_name(worker)).string(),
                           [](const std::string& l) {
                             PlayedGame g;
                             return parse_journal_line(l, g);
                           })
      .size();
}

ShardWriter::ShardWriter(std::string dir, int worker, int shard_games,
                         std::map<std::string, std::string> attributes)
    : dir_(std::move(dir)),
      worker_(worker),
      shard_games_(std::max(1, shard_games)),
      attributes_(std::move(attributes)) {
  fs::create_directories(dir_);
  // Temporary files a killed process of this worker left (the worker's lock is held: no other
  // process writes them).
  std::string shards_prefix = shard_name(worker_, 0, 0);  // "w003-g...": up to the '-'
  shards_prefix.erase(shards_prefix.find('-') + 1);
  const std::string journal = journal_name(worker_);
  for (const auto& e : fs::directory_iterator(dir_)) {
    std::string name = e.path().filename().string();
    if ((name.rfind(shards_prefix, 0) == 0 || name.rfind(journal, 0) == 0) &&
        name.find(".tmp") != std::string::npos)
      fs::remove(e.path());
  }
  // Games already in this worker's shards.
  for (const auto& e : fs::directory_iterator(dir_)) {
    std::smatch m;
    std::string name = e.path().filename().string();
    if (std::regex_match(name, m, kShardName) && std::stoi(m[1]) == worker_)
      next_index_ = std::max<uint64_t>(next_index_, std::stoull(m[2]) + std::stoull(m[3]));
  }
  shard_first_ = next_index_;
  // Games in the journal, in order (a torn last line, killed mid-write, is dropped); those
  // already in a shard (killed before the journal was emptied) are skipped.
  std::vector<std::string> kept;
  for (const std::string& line : LineJournal::read(journal_path(), [](const std::string& l) {
         PlayedGame g;
         return parse_journal_line(l, g);
       })) {
    PlayedGame g;
    parse_journal_line(line, g);
    if (g.index < next_index_) continue;
    if (g.index != next_index_) break;
    kept.push_back(line);
    pending_.push_back(std::move(g));
    ++next_index_;
  }
  try {
    journal_ = std::make_unique<LineJournal>(journal_path(), kept);
  } catch (const std::runtime_error& e) {
    throw ShardError(e.what());
  }
  if (int(pending_.size()) >= shard_games_) write_shard_from_journal();
}

ShardWriter::~ShardWriter() = default;

std::string ShardWriter::journal_path() const {
  return (fs::path(dir_) / journal_name(worker_)).string();
}

void ShardWriter::add(const PlayedGame& g) {
  if (g.index != next_index_)
    throw ShardError("self-play game " + std::to_string(g.index) + " out of order");
  try {
    journal_->append(journal_line(g));
  } catch (const std::runtime_error& e) {
    throw ShardError(e.what());
  }
  pending_.push_back(g);
  ++next_index_;
  if (int(pending_.size()) >= shard_games_) write_shard_from_journal();
}

void ShardWriter::flush() {
  if (!pending_.empty()) write_shard_from_journal();
}

void ShardWriter::write_shard_from_journal() {
  Shard s;
  s.attributes = attributes_;
  s.attributes["worker"] = std::to_string(worker_);
  s.attributes["first_game"] = std::to_string(shard_first_);
  for (size_t i = 0; i < pending_.size(); ++i) {
    s.games.push_back(pending_[i].row);
    for (DecisionRow d : pending_[i].decisions) {
      d.game = int32_t(i);
      s.decisions.push_back(d);
    }
  }
  std::string path = (fs::path(dir_) / shard_name(worker_, shard_first_, pending_.size())).string();
  // The same games as text records beside it, one per line (rules.md format plus metadata). They
  // are written first: the HDF5 file's rename is the commit, and a worker stopped between the two
  // writes the same records again when it replays the journal's games.
  std::string text;
  for (const PlayedGame& g : pending_) text += record_line(g) + "\n";
  std::string records = path.substr(0, path.size() - 3) + ".records";
  try {
    write_file_atomically(records, text);
  } catch (const std::runtime_error& e) {
    throw ShardError(std::string("records ") + e.what());
  }
  test_point("commit");
  write_shard(path, s);  // the shard exists in full before the journal is emptied
  written_.push_back(path);
  shard_first_ += pending_.size();
  pending_.clear();
  try {
    journal_->clear();
  } catch (const std::runtime_error& e) {
    throw ShardError(e.what());
  }
}

}  // namespace fuseki
