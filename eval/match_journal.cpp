#include "eval/match_journal.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "eval/stats.h"
#include "io/progress.h"
#include "io/stop.h"
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

int play_journalled(PlacerMatch& match, MatchJournal& journal, int part, int pairs,
                    MatchTally& tally, const Score& shown, const JournalledSteps& how,
                    const PlacerMatch::GameSink& on_game, const std::function<bool()>& decided) {
  for (const auto& [a_colour, game] : journal.games(part)) {  // a stopped match's, again
    tally.add(a_colour, game.row);
    if (on_game) on_game(a_colour, game);
  }
  int done = journal.pairs_done(part);
  const int resumed = done;  // the rate and ETA are of the games played now
  if (resumed > 0)
    std::fprintf(stderr, "%s: %d of %d games from %s\n", how.label.c_str(), 2 * resumed, 2 * pairs,
                 journal.path().c_str());
  // The same games again, so the same decisions after each step.
  bool stop = resumed > 0 && decided && decided();
  Progress progress(how.label, uint64_t(2 * (pairs - resumed)));
  while (!stop && done < pairs) {
    const int chunk = std::min(how.pairs_a_step, pairs - done);
    match.play(uint64_t(done), uint64_t(chunk), tally, [&](Color a_colour, const PlayedGame& game) {
      if (on_game) on_game(a_colour, game);
      journal.add_game(part, a_colour, game);
    });
    done += chunk;
    journal.add_step(part, done);
    test_point(how.test_point);
    const StrengthEstimate e = strength_estimate(shown);
    char extra[96];
    std::snprintf(extra, sizeof(extra), "score %.3f [%.3f, %.3f]", e.score, e.low, e.high);
    progress.report(uint64_t(2 * (done - resumed)), extra, how.report_every_step || done == pairs);
    stop = decided && decided();
  }
  return done;
}

}  // namespace fuseki
