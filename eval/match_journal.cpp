#include "eval/match_journal.h"

#include <filesystem>
#include <stdexcept>

#include "net/checkpoint.h"

namespace fuseki {

std::string journal_identity(const std::string& spec) {
  if (spec.empty() || !std::filesystem::is_regular_file(spec)) return spec;
  return "file " + net::file_hash(spec);
}

namespace {

std::string shown(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

std::string first_difference(const nlohmann::json& journal, const nlohmann::json& asked,
                             const std::string& key) {
  if (journal.is_object() && asked.is_object()) {
    for (const auto& [k, v] : journal.items()) {
      const std::string here = key.empty() ? k : key + "." + k;
      if (!asked.contains(k)) return here + ": " + shown(v) + " in the journal, none asked";
      if (std::string d = first_difference(v, asked.at(k), here); !d.empty()) return d;
    }
    for (const auto& [k, v] : asked.items())
      if (!journal.contains(k))
        return (key.empty() ? k : key + "." + k) + ": none in the journal, " + shown(v) + " asked";
    return {};
  }
  if (journal == asked) return {};
  return (key.empty() ? std::string("the header") : key) + ": " + shown(journal) +
         " in the journal, " + shown(asked) + " asked";
}

MatchJournal::MatchJournal(const std::string& path, const nlohmann::json& header,
                           const std::string& what)
    : path_(path) {
  if (path.empty()) return;
  const std::string head = header.dump();
  std::vector<std::string> lines =
      LineJournal::read(path, [](const std::string& l) { return nlohmann::json::accept(l); });
  if (!lines.empty() && lines[0] != head) {
    const std::string difference =
        first_difference(nlohmann::json::parse(lines[0], nullptr, false), header);
    throw std::runtime_error(path + ": the journal of a " + what + " with other settings (" +
                             (difference.empty() ? lines[0] : difference) +
                             "); remove it, or run the " + what + " with those settings");
  }
  size_t keep = 1;  // the header, and every line up to the last step's
  std::map<int, Games> pending;
  for (size_t i = 1; i < lines.size(); ++i) {
    try {
      const nlohmann::json j = nlohmann::json::parse(lines[i]);
      const int part = j.at("ref").get<int>();
      if (j.contains("done")) {
        Games& kept = games_[part];
        kept.insert(kept.end(), pending[part].begin(), pending[part].end());
        pending[part].clear();
        done_[part] = j.at("done").get<int>();
        keep = i + 1;
        continue;
      }
      PlayedGame game;
      if (!parse_journal_line(j.at("game").get<std::string>(), game)) break;
      pending[part].emplace_back(j.at("a").get<std::string>() == "sente" ? BLACK : WHITE,
                                 std::move(game));
    } catch (const nlohmann::json::exception&) {
      break;  // a line of another shape: the journal ends before it
    }
  }
  lines.resize(std::min(lines.size(), keep));
  if (lines.empty()) lines.push_back(head);
  journal_ = std::make_unique<LineJournal>(path, lines);
}

const MatchJournal::Games& MatchJournal::games(int part) const {
  static const Games none;
  auto it = games_.find(part);
  return it == games_.end() ? none : it->second;
}

int MatchJournal::pairs_done(int part) const {
  auto it = done_.find(part);
  return it == done_.end() ? 0 : it->second;
}

void MatchJournal::add_game(int part, Color a_colour, const PlayedGame& game) {
  if (!journal_) return;
  const PlayedGame row{game.index, game.row, {}};  // the decisions are not needed again
  journal_->append(nlohmann::json{
      {"ref", part}, {"a", a_colour == BLACK ? "sente" : "gote"}, {"game", journal_line(row)}}
                       .dump());
}

void MatchJournal::add_step(int part, int pairs_done) {
  if (journal_) journal_->append(nlohmann::json{{"ref", part}, {"done", pairs_done}}.dump());
}

}  // namespace fuseki
