#include "eval/strength.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

#include "engine/match.h"
#include "engine/outcome.h"
#include "eval/match_journal.h"
#include "eval/placer_match.h"
#include "io/atomic_file.h"
#include "io/progress.h"
#include "io/stop.h"
#include "rules/record.h"
#include "selfplay/journal.h"
#include "selfplay/king_table.h"
#include "selfplay/rollout_placer.h"

namespace fuseki {

std::vector<OptionSection> strength_sections(StrengthSettings& s) {
  std::vector<OptionSection> out;
  out.emplace_back("strength",
                   "Placement strength against fixed references (eval strength; a run measures "
                   "each new network when games > 0).");
  out.back()
      .integer("games", s.games, 0, 100000000,
               "Games per reference, half with each colour: an even number, at least 2 (in a "
               "run, 0: not measured)")
      .text("referee", s.referee,
            "Play-out engine from move 41, separate from self-play's (see play --sente)",
            check_engine_spec)
      .text("references", s.references,
            "Comma-separated reference placers: uniform, or checkpoint files")
      .number("temperature", s.temperature, 0.0, 100.0, "Placement temperature of the network")
      .integer("search_k", s.search_k, 0, 288,
               "The measured network places by its Gumbel search over this many candidate drops "
               "(self-play's search, value head one ply deep); 0: by its policy alone, as the "
               "site does")
      .integer("lookahead_k", s.lookahead_k, 0, 288,
               "The measured network places by looking ahead to move 41: its top k drops each "
               "followed by lookahead_rollouts completed placements valued by the built-in "
               "engine (a search at hundreds of times the policy's cost); 0: off")
      .integer("lookahead_rollouts", s.lookahead_rollouts, 1, 4096,
               "Completed placements per candidate drop when looking ahead")
      .integer("lookahead_nodes", s.lookahead_nodes, 1, 100000000,
               "Built-in engine nodes valuing each completed placement at move 41")
      .number("lookahead_scale", s.lookahead_scale, 1.0, 100000.0,
              "Centipawns to win probability of that evaluation: 1 / (1 + exp(-cp / scale))")
      .integer("lookahead_from", s.lookahead_from, 0, 39,
               "Drops at earlier plies (plies played) are the policy's; 0: every drop looks ahead")
      .integer("threads", s.threads, 1, 1024,
               "Referee play-out threads (and the judge's and the look-ahead's engines)")
      .text("judge", s.judge,
            "Engine spec with its budget (e.g. fairy-stockfish:nodes=100000) that also evaluates "
            "each game's move-41 position: the share of positions the network is ahead in, and "
            "the referee's score by band; empty: none",
            [](const std::string& v) {
              if (!v.empty()) check_engine_spec(v);
            })
      .integer("batch", s.batch, 1, 65536, "Games placed together")
      .integer("max_moves", s.max_moves, 1, 100000, "Moves of ordinary play before a draw")
      .integer("every", s.every, 1, 1000000,
               "In a run: measure every Nth generation's network, and every one the gate "
               "accepts (eval strength measures the one it is given)");
  return out;
}

std::vector<std::string> strength_references(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string item =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t a = item.find_first_not_of(" \t"), b = item.find_last_not_of(" \t");
    item = a == std::string::npos ? "" : item.substr(a, b - a + 1);
    if (item.empty())
      throw std::runtime_error("strength.references: an empty entry in '" + list + "'");
    if (item != "uniform" && !std::filesystem::is_regular_file(item))
      throw std::runtime_error("strength.references: unknown reference '" + item +
                               "' (uniform, or a checkpoint or .onnx file)");
    out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string strength_record_line(const std::string& reference, Color network,
                                 const PlayedGame& game) {
  return record_line(
      game, "reference=" + reference + " network=" + (network == BLACK ? "sente" : "gote"));
}

nlohmann::json judge_summary(const std::string& engine,
                             const std::vector<std::pair<int, double>>& verdicts, int failed) {
  std::vector<int> cps;
  for (const auto& v : verdicts) cps.push_back(v.first);
  std::sort(cps.begin(), cps.end());
  auto share_above = [&](int cp) {
    return cps.empty() ? 0.0
                       : double(cps.end() - std::upper_bound(cps.begin(), cps.end(), cp)) /
                             double(cps.size());
  };
  nlohmann::json bands = nlohmann::json::array();
  const size_t edges = std::size(kJudgeEdges);
  for (size_t b = 0; b <= edges; ++b) {
    nlohmann::json from = b == 0 ? nlohmann::json() : nlohmann::json(kJudgeEdges[b - 1]);
    nlohmann::json to = b == edges ? nlohmann::json() : nlohmann::json(kJudgeEdges[b]);
    int games = 0;
    double points = 0;
    for (const auto& [cp, score] : verdicts)
      if ((b == 0 || cp >= kJudgeEdges[b - 1]) && (b == edges || cp < kJudgeEdges[b])) {
        ++games;
        points += score;
      }
    bands.push_back(
        {{"from", from}, {"to", to}, {"games", games}, {"score", games ? points / games : 0.0}});
  }
  return {{"engine", engine},
          {"positions", cps.size()},
          {"failed", failed},
          {"median_cp", cps.empty() ? 0 : cps[cps.size() / 2]},
          {"ahead_600", share_above(600)},
          {"ahead_1500", share_above(1500)},
          {"bands", bands}};
}

namespace {

// What must be the same for a journal's games to be this measurement's: every setting that
// decides a game (threads do not).
nlohmann::json strength_journal_header(const nlohmann::json& result,
                                       const StrengthSettings& settings,
                                       const StrengthSetup& setup) {
  nlohmann::json h = result;  // referee, seed, games, temperature, searches, rules, kings
  // The network, the references and the king table by their bytes, not their paths.
  h["network"] = journal_identity(result.at("network").get<std::string>());
  h["references"] = nlohmann::json::array();
  for (const std::string& r : strength_references(settings.references))
    h["references"].push_back(journal_identity(r));
  h["judge"] = settings.judge;
  h["batch"] = settings.batch;
  h["max_moves"] = settings.max_moves;
  h["king_band"] = setup.king_band;
  h["king_table"] = journal_identity(setup.table ? setup.table->source() : "");
  h["precision"] = setup.precision;  // (not the device: a run may change it, its games alike)
  return {{"strength_journal", 2}, {"settings", h}};
}

// The position after placement of a measured game: its record up to ply 40 (the side choice
// included).
Game move41_game(const std::string& record, RuleSet rules, int max_moves) {
  Position pos = Position::start(rules);
  std::string prefix;
  int plies = 0;
  for (size_t at = 0; at < record.size() && plies < 40;) {
    size_t end = std::min(record.find(' ', at), record.size());
    std::string token = record.substr(at, end - at);
    if (token.rfind("choose:", 0) != 0) ++plies;
    prefix += (prefix.empty() ? "" : " ") + token;
    at = end + 1;
  }
  play_record(pos, prefix);
  return Game(pos, GameOptions{max_moves});
}

// The judge's summary (judge_summary) of one reference's games: the network's centipawns at
// move 41 of every game not decided there, with the network's score in it. `games`: the
// network's colour and the game's row (its record, seed and result).
nlohmann::json judge_games(std::vector<std::unique_ptr<Player>>& judges,
                           const std::vector<std::pair<Color, GameRow>>& games, RuleSet rules,
                           int max_moves, const std::string& label, const std::string& engine) {
  std::vector<std::pair<Color, const GameRow*>> todo;
  for (const auto& [colour, row] : games)
    if (row.play_moves > 0 && scored(row.winner)) todo.emplace_back(colour, &row);
  std::vector<std::optional<std::pair<int, double>>> out(todo.size());
  Progress progress(label, todo.size());
  std::atomic<size_t> next{0}, done{0};
  auto work = [&](size_t t) {
    Player& judge = *judges[t];
    for (size_t i; !stop_requested() && (i = next++) < todo.size();) {
      const auto& [colour, row] = todo[i];
      Game game = move41_game(row->record, rules, max_moves);
      judge.new_game(Rng::derive(row->seed, 41));
      std::optional<int> cp = judge.evaluate(game);
      if (cp) {
        int mine = game.position().side_to_move() == colour ? *cp : -*cp;
        out[i] = std::make_pair(mine, score_of(row->winner, colour));
      }
      size_t n = ++done;
      if (t == 0) progress.report(n, "", false);
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < judges.size(); ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& t : pool) t.join();
  throw_if_stopped();
  progress.report(todo.size(), "", true);
  std::vector<std::pair<int, double>> verdicts;
  for (const auto& v : out)
    if (v) verdicts.push_back(*v);
  return judge_summary(engine, verdicts, int(out.size() - verdicts.size()));
}

}  // namespace

nlohmann::json measure_strength(const std::string& network, const StrengthSettings& settings,
                                const StrengthSetup& setup, const StrengthGameSink& on_game) {
  if (settings.games < 2 || settings.games % 2)
    throw std::runtime_error("strength.games: " + std::to_string(settings.games) +
                             ": an even number, at least 2 (half with each colour)");
  if (settings.lookahead_k > 0 && settings.search_k > 0)
    throw std::runtime_error(
        "strength.search_k and strength.lookahead_k: the network places by one search at a "
        "time");
  std::vector<std::string> references = strength_references(settings.references);
  // Bad specs fail before any game: the referee, the network, every reference.
  EngineRegistry engines = default_engines();
  try {
    make_player(settings.referee, engines, setup.rules)->prepare();
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("strength.referee: ") + e.what());
  }
  std::vector<std::unique_ptr<Player>> judges;
  if (!settings.judge.empty()) try {
      for (int t = 0; t < settings.threads; ++t) {
        judges.push_back(make_player(settings.judge, engines, setup.rules));
        judges.back()->prepare();
      }
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("strength.judge: ") + e.what());
    }
  net::EvaluatorOptions eo;
  eo.device = setup.device;
  eo.precision = setup.precision;
  NamedPlacer measured = make_named_placer(network, settings.temperature, eo, settings.search_k);
  std::vector<NamedPlacer> refs;
  for (const std::string& r : references)
    refs.push_back(make_named_placer(r, settings.temperature, eo));
  // Looking ahead: a placer per reference, its engines started before any game. Its completions
  // place the opponent's pieces with the measured network's own policy, or uniformly where the
  // reference is uniform placement (the reference's network is not consulted).
  const bool looking = settings.lookahead_k > 0;
  std::vector<std::unique_ptr<RolloutPlacer>> lookers;
  if (looking)
    for (const NamedPlacer& ref : refs) {
      RolloutOptions ro;
      ro.k = settings.lookahead_k;
      ro.rollouts = settings.lookahead_rollouts;
      ro.nodes = uint64_t(settings.lookahead_nodes);
      ro.scale = settings.lookahead_scale;
      ro.own_temperature = ro.opponent_temperature = settings.temperature;
      ro.uniform_opponent = ref.name == "uniform";
      ro.threads = settings.threads;
      ro.noise = false;
      ro.from_ply = settings.lookahead_from;
      lookers.push_back(std::make_unique<RolloutPlacer>(*measured.network, ro, setup.rules,
                                                        measured.placer.get()));
    }

  SelfPlayOptions o;
  o.rules = setup.rules;
  o.seed = setup.seed;
  o.batch = settings.batch;
  o.temperature = settings.temperature;
  o.kings = setup.table ? KingSource::Table : KingSource::Uniform;
  o.table = setup.table;
  o.king_band = setup.king_band;
  o.playout = settings.referee;
  o.playout_threads = settings.threads;
  o.max_moves = settings.max_moves;

  const int pairs = settings.games / 2;
  nlohmann::json lookahead;  // null: the network does not look ahead
  if (looking)
    lookahead = {{"k", settings.lookahead_k},
                 {"rollouts", settings.lookahead_rollouts},
                 {"nodes", settings.lookahead_nodes},
                 {"scale", settings.lookahead_scale},
                 {"from_ply", settings.lookahead_from}};
  nlohmann::json result = {{"network", network},
                           {"referee", settings.referee},
                           {"seed", setup.seed},
                           {"games", 2 * pairs},
                           {"temperature", settings.temperature},
                           {"search_k", settings.search_k},
                           {"lookahead", lookahead},
                           {"rules", rule_info(setup.rules).name},
                           {"kings", setup.table ? "table" : "uniform"},
                           {"references", nlohmann::json::array()}};
  // Looking ahead, a game takes seconds: fewer king pairs a step, for the progress line.
  const int step = looking ? std::min(settings.batch, 2) : settings.batch;
  MatchJournal journal(setup.journal, strength_journal_header(result, settings, setup),
                       "measurement");
  for (size_t r = 0; r < refs.size(); ++r) {
    NamedPlacer& ref = refs[r];
    // The same seeds for every reference: the same king pairs and referee streams.
    Placer& mine = looking ? static_cast<Placer&>(*lookers[r]) : *measured.placer;
    PlacerMatch match(mine, *ref.placer, o);
    MatchTally tally;
    std::vector<std::pair<Color, GameRow>> judged;  // the rows alone: decisions not kept
    play_journalled(match, journal, int(r), pairs, tally, tally.score,
                    {"strength vs " + ref.name, "strength", step, false},
                    [&](Color a, const PlayedGame& game) {
                      if (on_game) on_game(ref.name, a, game);
                      if (!judges.empty()) judged.emplace_back(a, game.row);
                    });
    StrengthEstimate e = strength_estimate(tally.score);
    nlohmann::json by_rank = nlohmann::json::array();
    for (int rank = 0; rank < RANK_NB; ++rank) {
      const Score& s = tally.by_gote_king[BLACK][rank];
      const Score& g = tally.by_gote_king[WHITE][rank];
      if (s.games() + g.games() == 0) continue;
      by_rank.push_back({{"rank", std::string(1, char('a' + rank))},
                         {"as_sente", s.mean()},
                         {"sente_games", s.games()},
                         {"as_gote", g.mean()},
                         {"gote_games", g.games()}});
    }
    result["references"].push_back({{"reference", ref.name},
                                    {"games", e.games},
                                    {"wins", tally.score.wins},
                                    {"draws", tally.score.draws},
                                    {"losses", tally.score.losses},
                                    {"void", tally.voids},
                                    {"score", e.score},
                                    {"ci95", {e.low, e.high}},
                                    {"elo", e.elo},
                                    {"elo_ci95", {e.elo_low, e.elo_high}},
                                    {"as_sente", tally.by_colour[BLACK].mean()},
                                    {"as_gote", tally.by_colour[WHITE].mean()},
                                    {"ruling41_won", tally.ruling41_won},
                                    {"ruling41_lost", tally.ruling41_lost},
                                    {"by_gote_king_rank", by_rank}});
    if (!judges.empty())
      result["references"].back()["judge"] = judge_games(
          judges, judged, setup.rules, settings.max_moves, "judge vs " + ref.name, settings.judge);
  }
  return result;
}

std::vector<OptionSection> strength_command_sections(StrengthCommand& c) {
  std::vector<OptionSection> s = strength_sections(c.settings);
  s.emplace_back("eval_strength", "eval strength's own flags");
  s.back()
      .path("network", c.network, "The placement network checkpoint to measure (required)")
      .custom(
          "rules", "Rule set (with a placement phase)", placement_rule_set_names(),
          [&c](const std::string& v) { c.rules = placement_rule_set_or_throw(v); },
          [&c] { return std::string(rule_info(c.rules).name); })
      .seed("seed", c.seed, "Seed of the games (the same for every reference)")
      .path("king_table", c.king_table,
            "king_pair_table/1 JSON: kings from its band (default: uniform kings)")
      .integer("king_band", c.king_band, 1, 1296, "Pairs closest to even the kings come from")
      .text("device", c.device, "cpu or cuda[:N]")
      .choice("precision", c.precision, {"fp32", "bf16", "fp16"}, "Inference precision")
      .text("out", c.out,
            "Also write the result (JSON) to this file; its games are journalled beside it "
            "(FILE.journal) until then, so a stopped measurement run again goes on where it "
            "stopped")
      .text("records", c.records,
            "Also write every game's record to this file, a line each: the record, then "
            "\"# reference=... network=sente|gote game=... seed=... winner=... reason=... "
            "moves=...\" (fusekilab judge replays it)");
  return s;
}

int run_strength_command(const StrengthCommand& c) {
  if (c.network.empty()) throw std::runtime_error("eval strength: --network is required");
  check_output_path("eval strength: --out", c.out);
  check_output_path("eval strength: --records", c.records);
  // Nothing written may be what is read: the network, a reference, the king table.
  std::vector<NamedFile> inputs = {{"--network", c.network}, {"--king-table", c.king_table}};
  for (const std::string& r : strength_references(c.settings.references))
    if (r != "uniform") inputs.push_back({"a reference", r});
  check_outputs_apart("eval strength",
                      {{"--out", c.out},
                       {"--records", c.records},
                       {"--out's journal", c.out.empty() ? "" : c.out + ".journal"}},
                      inputs);
  std::unique_ptr<KingPairTable> table;
  if (!c.king_table.empty())
    table = std::make_unique<KingPairTable>(KingPairTable::load(c.king_table));
  StrengthSetup setup;
  setup.rules = c.rules;
  setup.seed = c.seed;
  setup.table = table.get();
  setup.king_band = c.king_band;
  setup.device = c.device;
  setup.precision = c.precision;
  // With --out, a stopped or killed measurement goes on where it stopped when run again.
  if (!c.out.empty()) setup.journal = c.out + ".journal";
  std::string records;
  StrengthGameSink keep;
  if (!c.records.empty())
    keep = [&records](const std::string& reference, Color network, const PlayedGame& game) {
      records += strength_record_line(reference, network, game) + "\n";
    };
  nlohmann::json r = measure_strength(c.network, c.settings, setup, keep);
  std::string how;
  if (c.settings.search_k > 0)
    how = ", placing by its search over " + std::to_string(c.settings.search_k) + " candidates";
  if (c.settings.lookahead_k > 0)
    how = ", looking ahead: " + std::to_string(c.settings.lookahead_k) + " candidates, " +
          std::to_string(c.settings.lookahead_rollouts) + " completions each valued at " +
          std::to_string(c.settings.lookahead_nodes) + " nodes" +
          (c.settings.lookahead_from > 0 ? ", from ply " + std::to_string(c.settings.lookahead_from)
                                         : std::string());
  std::printf("eval strength: %s (referee %s, seed %llu%s)\n%s%s\n", c.network.c_str(),
              c.settings.referee.c_str(), (unsigned long long)c.seed, how.c_str(),
              strength_text(r).c_str(), r.dump().c_str());
  if (!c.records.empty()) write_file_atomically(c.records, records);
  if (!c.out.empty()) {
    write_file_atomically(c.out, r.dump(1) + "\n");
    std::filesystem::remove(setup.journal);  // its games are in the result
  }
  return 0;
}

std::string strength_text(const nlohmann::json& result) {
  std::string out;
  for (const auto& r : result.at("references")) {
    char line[256];
    std::snprintf(line, sizeof(line),
                  "vs %s: %.3f [%.3f, %.3f], %+.0f Elo [%+.0f, %+.0f], %d games (%d-%d-%d, %d "
                  "void)\n",
                  r.at("reference").get<std::string>().c_str(), r.at("score").get<double>(),
                  r.at("ci95")[0].get<double>(), r.at("ci95")[1].get<double>(),
                  r.at("elo").get<double>(), r.at("elo_ci95")[0].get<double>(),
                  r.at("elo_ci95")[1].get<double>(), r.at("games").get<int>(),
                  r.at("wins").get<int>(), r.at("draws").get<int>(), r.at("losses").get<int>(),
                  r.at("void").get<int>());
    out += line;
    if (r.contains("as_sente")) {  // results written before these were recorded lack them
      std::snprintf(line, sizeof(line),
                    "  as Sente %.3f, as Gote %.3f; the move-41 ruling: won %d as Sente, lost %d "
                    "as Gote\n",
                    r.at("as_sente").get<double>(), r.at("as_gote").get<double>(),
                    r.at("ruling41_won").get<int>(), r.at("ruling41_lost").get<int>());
      out += line;
    }
    if (r.contains("by_gote_king_rank") && !r.at("by_gote_king_rank").empty()) {
      out += "  by the rank of Gote's king, as Sente / as Gote:";
      const char* separator = " ";
      for (const auto& k : r.at("by_gote_king_rank")) {
        std::snprintf(line, sizeof(line), "%s%s %.2f / %.2f (%d)", separator,
                      k.at("rank").get<std::string>().c_str(), k.at("as_sente").get<double>(),
                      k.at("as_gote").get<double>(),
                      k.at("sente_games").get<int>() + k.at("gote_games").get<int>());
        out += line;
        separator = ", ";
      }
      out += "\n";
    }
    if (r.contains("judge")) {
      const auto& j = r.at("judge");
      std::snprintf(line, sizeof(line),
                    "  judged at move 41 by %s, %d positions (%d not: the engine failed): median "
                    "%+d cp, ahead by over 600 cp in %.0f %%, over 1,500 in %.0f %%; the referee's "
                    "score by band:",
                    j.at("engine").get<std::string>().c_str(), j.at("positions").get<int>(),
                    j.value("failed", 0), j.at("median_cp").get<int>(),
                    100 * j.at("ahead_600").get<double>(), 100 * j.at("ahead_1500").get<double>());
      out += line;
      for (const auto& b : j.at("bands")) {
        std::string from = b.at("from").is_null() ? "" : std::to_string(b.at("from").get<int>());
        std::string to = b.at("to").is_null() ? "" : std::to_string(b.at("to").get<int>());
        std::snprintf(line, sizeof(line), " [%s, %s) %.2f (%d)", from.c_str(), to.c_str(),
                      b.at("score").get<double>(), b.at("games").get<int>());
        out += line;
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace fuseki
