// The arbiter's game-end rules, the built-in engine, and USI engines including every fault case.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/match.h"
#include "rules/record.h"

using namespace fuseki;

namespace {

Game game_at(RuleSet r, const std::string& sfen, const std::string& moves = "",
             int max_moves = 320) {
  Game g(Position::from_sfen(sfen, r), GameOptions{max_moves});
  Position check = g.position();
  Record rec = play_record(check, moves);
  for (Move m : rec.moves) {
    EXPECT_FALSE(g.over()) << "game ended early: " << reason_name(g.reason());
    if (g.over()) break;
    g.play(m);
  }
  return g;
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s + " ";
  return out;
}

std::string fake(const std::string& name) { return std::string(FAKE_ENGINES_DIR) + "/" + name; }

bool have_program(const std::string& name) { return find_program(name) != name; }

}  // namespace

TEST(GameEnd, MateByAPushedPawn) {
  Game g = game_at(RuleSet::Shogi, "8k/6S2/7GP/9/9/9/9/9/K8 b - 1", "1c1b");
  EXPECT_EQ(g.winner(), Winner::Sente);
  EXPECT_EQ(g.reason(), Reason::Mate);
}

TEST(GameEnd, NoLegalMoveAtMove41Loses) {
  Game g = game_at(RuleSet::Balance,
                   "kpppppppp/plssrl2b/ggn3n2/9/9/3GKG3/3SPS3/LNB3RNL/PPPP1PPPP b - 41");
  EXPECT_EQ(g.winner(), Winner::Gote);
  EXPECT_EQ(g.reason(), Reason::Mate);
}

TEST(GameEnd, NoLegalMoveWithoutCheckIsNotMate) {
  // Gote's king on 9a, not in check: 8a and 8b are the rook's, 9b the pushed pawn's; Gote has
  // nothing else. The side to move loses, by no_legal_move (checkmate keeps the name mate).
  Game g = game_at(RuleSet::Shogi, "k8/9/9/P8/9/9/9/9/1R6K b - 1", "9d9c");
  EXPECT_EQ(g.winner(), Winner::Sente);
  EXPECT_EQ(g.reason(), Reason::NoLegalMove);
  EXPECT_STREQ(reason_name(g.reason()), "no_legal_move");
}

TEST(Outcome, StoredCodesAndNamesRoundTrip) {
  // The values shards and journals hold (pinned by static_asserts in engine/outcome.h too).
  EXPECT_EQ(code(Winner::Sente), 0);
  EXPECT_EQ(code(Winner::Void), 3);
  EXPECT_EQ(code(Winner::None), 4);
  EXPECT_EQ(code(Reason::Ruling41), 2);
  EXPECT_EQ(code(Reason::EngineFailure), 9);
  std::set<std::string> names;
  for (int v = 0; v < kReasonCount; ++v) {
    Reason r = *reason_from_code(v);
    EXPECT_EQ(code(r), v);
    EXPECT_EQ(reason_from_name(reason_name(r)), r);
    names.insert(reason_name(r));
  }
  EXPECT_EQ(names.size(), size_t(kReasonCount));  // a name for every code, no two alike
  for (int v = 0; v <= code(Winner::None); ++v)
    EXPECT_EQ(winner_from_name(winner_name(*winner_from_code(v))), winner_from_code(v));
  EXPECT_FALSE(winner_from_code(5));
  EXPECT_FALSE(winner_from_code(-1));
  EXPECT_FALSE(reason_from_code(kReasonCount));
  EXPECT_FALSE(reason_from_name("stalemate"));
}

TEST(Outcome, Scores) {
  EXPECT_EQ(score_of(Winner::Sente, BLACK), 1.0);
  EXPECT_EQ(score_of(Winner::Sente, WHITE), 0.0);
  EXPECT_EQ(score_of(Winner::Gote, WHITE), 1.0);
  EXPECT_EQ(score_of(Winner::Draw, BLACK), 0.5);
  EXPECT_TRUE(scored(Winner::Draw));
  EXPECT_FALSE(scored(Winner::Void));
  EXPECT_FALSE(scored(Winner::None));
}

TEST(GameEnd, Ruling41BeforeAnythingElse) {
  Game g = game_at(RuleSet::Fuseki, "lnsbpgsnl/ppppkpppp/r8/9/9/4R3B/PPPPPPPPP/9/LNSGKGSNL w g 1",
                   "G*5c");
  EXPECT_EQ(g.winner(), Winner::Sente);
  EXPECT_EQ(g.reason(), Reason::Ruling41);
}

TEST(GameEnd, SennichiteOnTheFourthOccurrence) {
  const char* sfen = "4k4/9/9/9/9/9/9/9/4K4 b - 1";
  Game three = game_at(RuleSet::Shogi, sfen, repeat("5i4i 5a4a 4i5i 4a5a", 2) + "5i4i 5a4a 4i5i");
  EXPECT_FALSE(three.over());
  Game g = game_at(RuleSet::Shogi, sfen, repeat("5i4i 5a4a 4i5i 4a5a", 3));
  EXPECT_EQ(g.winner(), Winner::Draw);
  EXPECT_EQ(g.reason(), Reason::Sennichite);
}

TEST(GameEnd, PerpetualCheckLosesForTheChecker) {
  Game g =
      game_at(RuleSet::Shogi, "7pk/9/9/9/7R1/9/9/9/K8 b - 1", repeat("2e1e 1a2b 1e2e 2b1a", 3));
  EXPECT_EQ(g.winner(), Winner::Gote);
  EXPECT_EQ(g.reason(), Reason::PerpetualCheck);
}

TEST(GameEnd, RepetitionHistoryStartsAfterPly40) {
  // Placement positions never count; the first position of ordinary play does.
  Game g = game_at(RuleSet::Fuseki, "lnsbpgsnl/ppppkpppp/r8/9/9/4R4/PPPPPPPPP/8B/LNSGKGSNL w g 1",
                   "G*5c " + repeat("5f4f 5b6c 4f5f 6c5b", 2) + "5f4f 5b6c 4f5f");
  EXPECT_FALSE(g.over());
  g.play_text("6c5b");
  EXPECT_EQ(g.reason(), Reason::Sennichite);
}

TEST(GameEnd, MoveCapIsADraw) {
  Game g =
      game_at(RuleSet::Shogi, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
              "7g7f 3c3d 2g2f", 4);
  EXPECT_FALSE(g.over());
  g.play_text("8c8d");
  EXPECT_EQ(g.winner(), Winner::Draw);
  EXPECT_EQ(g.reason(), Reason::MaxMoves);
}

TEST(GameEnd, IllegalMoveLosesForTheMover) {
  Game g =
      game_at(RuleSet::Shogi, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
  EXPECT_FALSE(g.play_text("7g7e"));
  EXPECT_EQ(g.winner(), Winner::Gote);
  EXPECT_EQ(g.reason(), Reason::IllegalMove);
}

TEST(Declaration, ValidWinsInvalidLoses) {
  Game ok = game_at(RuleSet::Shogi, "4K4/+B7+R/PPPPPPPPP/9/9/9/9/9/4k4 b R2G2S2N2L 1");
  DeclarationCheck d = check_declaration(ok.position());
  EXPECT_TRUE(d.valid);
  EXPECT_EQ(d.pieces_in_zone, 11);
  EXPECT_EQ(d.points, 9 + 10 + 5 + 8);
  ok.declare();
  EXPECT_EQ(ok.winner(), Winner::Sente);
  EXPECT_EQ(ok.reason(), Reason::Declaration);

  // Ten pieces in the zone but 27 points: Sente needs 28.
  Game short_of_points = game_at(RuleSet::Shogi, "4K4/+B7+R/1PPPPPPPP/9/9/9/9/9/4k4 b 2G2S2NL 1");
  EXPECT_EQ(check_declaration(short_of_points.position()).points, 8 + 10 + 7);
  EXPECT_FALSE(check_declaration(short_of_points.position()).valid);
  short_of_points.declare();
  EXPECT_EQ(short_of_points.winner(), Winner::Gote);
}

TEST(Declaration, GoteNeeds27AndNotInCheck) {
  Position gote =
      Position::from_sfen("4K4/9/9/9/9/9/ppppppppp/+b7+r/4k4 w 2g2s2n2l 1", RuleSet::Shogi);
  EXPECT_EQ(check_declaration(gote).points_needed, 27);
  EXPECT_EQ(check_declaration(gote).points, 27);
  EXPECT_TRUE(check_declaration(gote).valid);
}

TEST(Builtin, SameSeedSameGameOtherSeedOtherGame) {
  auto play = [](uint64_t seed) {
    Game g(Position::start(RuleSet::Balance));
    random_placement(g, 42);
    BuiltinPlayer a({300, 0, 0}, 30), b({300, 0, 0}, 30);
    return play_game(g, a, b, seed).record();
  };
  EXPECT_EQ(play(1), play(1));
  EXPECT_NE(play(1), play(2));
}

TEST(Builtin, AlwaysBeatsARandomMover) {
  int wins = 0, played = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    Game g(Position::start(RuleSet::Balance));
    random_placement(g, seed);
    if (g.over()) continue;  // decided by the move-41 ruling before play
    BuiltinPlayer builtin({1000, 0, 0}, 0);
    RandomPlayer random;
    bool builtin_sente = seed % 2;
    Game done =
        builtin_sente ? play_game(g, builtin, random, seed) : play_game(g, random, builtin, seed);
    ++played;
    wins += done.winner() == (builtin_sente ? Winner::Sente : Winner::Gote);
  }
  EXPECT_GT(played, 5);
  EXPECT_EQ(wins, played);
}

// Yari Shogi: the evaluation reads the variant's roles (the promoted yari bishop in the HORSE
// slot is a guard, not a long-range attacker), and the engine beats a random mover every time.
TEST(Builtin, PlaysYariShogi) {
  const Variant& yari = Position::start(RuleSet::Yari).variant();
  EXPECT_TRUE(yari.guard[HORSE]);
  EXPECT_FALSE(yari.strong[HORSE]);
  EXPECT_TRUE(yari.strong[DRAGON]);
  const Variant& shogi = Position::start(RuleSet::Shogi).variant();
  EXPECT_TRUE(shogi.strong[HORSE]);
  EXPECT_TRUE(shogi.guard[SILVER]);
  int wins = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    Game g(Position::start(RuleSet::Yari));
    BuiltinPlayer builtin({1000, 0, 0}, 0);
    RandomPlayer random;
    bool builtin_sente = seed % 2;
    Game done =
        builtin_sente ? play_game(g, builtin, random, seed) : play_game(g, random, builtin, seed);
    wins += done.winner() == (builtin_sente ? Winner::Sente : Winner::Gote);
  }
  EXPECT_EQ(wins, 8);
}

TEST(Builtin, FindsAMateInOne) {
  Position pos = Position::from_sfen("8k/6S2/7GP/9/9/9/9/9/K8 b - 1", RuleSet::Shogi);
  Searcher s;
  SearchResult r = s.search(pos, SearchLimits{0, 3, 0});
  EXPECT_GE(r.score, MATE - 10);
}

TEST(Builtin, DeclaresWhenEntitled) {
  Game g = game_at(RuleSet::Shogi, "4K4/+B7+R/PPPPPPPPP/9/9/9/9/9/4k4 b R2G2S2N2L 1");
  BuiltinPlayer p({1000, 0, 0}, 0);
  p.new_game(1);
  EXPECT_EQ(p.decide(g).kind, Decision::Declare);
}

TEST(MakePlayer, SpecsAndErrors) {
  EngineRegistry reg = default_engines();
  EXPECT_EQ(make_player("builtin", reg)->name(), "builtin:nodes=1000");
  EXPECT_EQ(make_player("builtin:depth=3", reg)->name(), "builtin:depth=3");
  EXPECT_EQ(make_player("random", reg)->name(), "random");
  EXPECT_THROW(make_player("builtin:nodes=x", reg), std::invalid_argument);
  EXPECT_THROW(make_player("builtin:speed=3", reg), std::invalid_argument);
  EXPECT_THROW(make_player("stockfish", reg), std::invalid_argument);
  EXPECT_THROW(make_player("usi:", reg), std::invalid_argument);
}

// ---- USI engines: faults --------------------------------------------------------------------

namespace {
Game post_placement_game(uint64_t seed) {
  for (;; ++seed) {
    Game g(Position::start(RuleSet::Balance));
    random_placement(g, seed);
    if (!g.over()) return g;
  }
}
UsiConfig script(const std::string& name, std::vector<std::string> args = {}) {
  UsiConfig c;
  c.name = name;
  c.path = fake(name);
  c.args = std::move(args);
  c.nodes = 100;
  c.move_timeout = 1.0;
  c.startup_timeout = 5.0;
  return c;
}
}  // namespace

// The move-41 score from any engine: a USI engine's last reported score, the built-in's search.
TEST(Evaluate, UsiScoresAndTheBuiltinSearch) {
  UsiConfig c;
  c.name = "scores";
  c.path = fake("scores.sh");
  c.args = {"cp -57", "mate 3", "mate -2", "none"};
  UsiPlayer usi(c);
  Game game(Position::from_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                                RuleSet::Shogi));
  EXPECT_EQ(usi.evaluate(game), std::optional<int>(-57));
  EXPECT_EQ(usi.evaluate(game), std::optional<int>(MATE));
  EXPECT_EQ(usi.evaluate(game), std::optional<int>(-MATE));
  EXPECT_EQ(usi.evaluate(game), std::nullopt);
  // The built-in: a material edge shows in its score, from the mover's side.
  BuiltinPlayer builtin(SearchLimits{2000, 0, 0}, 0);
  Game up_a_rook(Position::from_sfen(
      "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", RuleSet::Shogi));
  std::optional<int> sente = builtin.evaluate(up_a_rook);
  ASSERT_TRUE(sente);
  EXPECT_GT(*sente, 300);
  RandomPlayer random;
  EXPECT_EQ(random.evaluate(up_a_rook), std::nullopt);
}

TEST(UsiFaults, CrashIsRetriedThenVoid) {
  UsiPlayer crash(script("crash_on_go.sh"));
  BuiltinPlayer builtin({200, 0, 0}, 0);
  Game g = play_game(post_placement_game(1), crash, builtin, 1, 2);
  EXPECT_EQ(g.winner(), Winner::Void);
  EXPECT_EQ(g.reason(), Reason::EngineFailure);
  EXPECT_NE(g.note().find("exited"), std::string::npos) << g.note();
  EXPECT_EQ(crash.restarts(), 2);  // started once per try
}

TEST(UsiFaults, HangIsDetectedByTheMoveTimeout) {
  UsiPlayer hang(script("hang_on_go.sh"));
  BuiltinPlayer builtin({200, 0, 0}, 0);
  Game g = play_game(post_placement_game(2), builtin, hang, 1, 0);
  EXPECT_EQ(g.winner(), Winner::Void);
  EXPECT_NE(g.note().find("hung"), std::string::npos) << g.note();
}

TEST(UsiFaults, GarbageIsAFailureNotAMove) {
  UsiPlayer garbage(script("answer.sh", {"hello"}));
  BuiltinPlayer builtin({200, 0, 0}, 0);
  Game g = play_game(post_placement_game(3), garbage, builtin, 1, 1);
  EXPECT_EQ(g.winner(), Winner::Void);
  EXPECT_NE(g.note().find("garbage"), std::string::npos) << g.note();
}

TEST(UsiFaults, IllegalMoveLoses) {
  UsiPlayer illegal(script("answer.sh", {"5e5d"}));  // rank e is empty after placement
  BuiltinPlayer builtin({200, 0, 0}, 0);
  Game g = play_game(post_placement_game(4), illegal, builtin, 1, 1);
  EXPECT_EQ(g.winner(), Winner::Gote);
  EXPECT_EQ(g.reason(), Reason::IllegalMove);
}

TEST(UsiFaults, MissingProgramIsAClearError) {
  UsiConfig c = script("no_such_engine");
  UsiPlayer p(c);
  EXPECT_THROW(p.prepare(), EngineError);
}

// ---- Real engines from Debian ---------------------------------------------------------------

TEST(UsiEngines, FairyStockfishPlaysGamesToTheEnd) {
  if (!have_program("fairy-stockfish")) GTEST_SKIP() << "fairy-stockfish not installed";
  EngineRegistry reg = default_engines();
  auto fsf = make_player("fairy-stockfish:nodes=300", reg);
  BuiltinPlayer builtin({300, 0, 0}, 0);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    Game g = seed % 2 ? play_game(post_placement_game(seed), *fsf, builtin, seed)
                      : play_game(post_placement_game(seed), builtin, *fsf, seed);
    EXPECT_NE(g.winner(), Winner::Void) << g.note();
    EXPECT_NE(g.reason(), Reason::IllegalMove) << g.record();
  }
}

// Between games a process that can repeat its searches (nodes or depth) is reset: by its reset
// option when it has one, else by a new process; a timed search is left alone.
TEST(UsiGames, EachGameAfterTheFirstStartsFromAFreshEngine) {
  std::string log =
      std::filesystem::temp_directory_path() / ("fusekilab_log_" + std::to_string(getpid()));
  auto commands = [&](UsiConfig c) {
    std::filesystem::remove(log);
    c.args = {log};
    UsiEngine e(c);
    for (int game = 0; game < 3; ++game) {
      e.new_game();
      e.best_move("position startpos");
    }
    e.stop();
    std::ifstream in(log);
    std::string all, line;
    while (std::getline(in, line))
      if (line != "isready" && line != "quit") all += line + "; ";
    std::filesystem::remove(log);
    return std::make_pair(all, e.renewals());
  };
  std::string game = "usinewgame; position startpos; go nodes 100; ";
  UsiConfig c = script("log.sh");
  c.reset_option = "Threads";
  EXPECT_EQ(commands(c), std::make_pair("usi; " + game + "setoption name Threads value 1; " + game +
                                            "setoption name Threads value 1; " + game,
                                        0));
  c.options = {{"Threads", "3"}};  // the configured value, not the default
  EXPECT_EQ(commands(c).first, "usi; setoption name Threads value 3; " + game +
                                   "setoption name Threads value 3; " + game +
                                   "setoption name Threads value 3; " + game);
  c.options.clear();
  c.reset_option.clear();  // no reset option: a new process for each game
  EXPECT_EQ(commands(c), std::make_pair("usi; " + game + "usi; " + game + "usi; " + game, 2));
  c.nodes = 0;
  c.movetime_ms = 50;  // timed: nothing to repeat, the process plays on
  std::string timed = "usinewgame; position startpos; go btime 0 wtime 0 byoyomi 50; ";
  EXPECT_EQ(commands(c), std::make_pair("usi; " + timed + timed + timed, 0));
}

// A game played by an engine process must not depend on the games that process played before:
// a seed fixes a game however the games are shared among threads. `usinewgame` alone does not
// do it for Fairy-Stockfish (its search threads keep caches across games).
TEST(UsiEngines, AGameDoesNotDependOnTheGamesPlayedBeforeIt) {
  if (!have_program("fairy-stockfish")) GTEST_SKIP() << "fairy-stockfish not installed";
  EngineRegistry reg = default_engines();
  auto sente = make_player("fairy-stockfish:nodes=500", reg);
  auto gote = make_player("fairy-stockfish:nodes=500", reg);
  std::vector<std::string> in_turn;
  for (uint64_t seed = 1; seed <= 8; ++seed)
    in_turn.push_back(play_game(post_placement_game(seed * 10), *sente, *gote, seed).record());
  for (uint64_t seed = 8; seed >= 1; --seed) {
    auto fresh_sente = make_player("fairy-stockfish:nodes=500", reg);
    auto fresh_gote = make_player("fairy-stockfish:nodes=500", reg);
    Game alone = play_game(post_placement_game(seed * 10), *fresh_sente, *fresh_gote, seed);
    EXPECT_NE(alone.winner(), Winner::Void) << alone.note();
    std::istringstream a(alone.record()), b(in_turn[seed - 1]);
    std::string x, y;
    int ply = 0;
    while (a >> x && b >> y && x == y) ++ply;
    EXPECT_EQ(alone.record(), in_turn[seed - 1])
        << "game " << seed << " played alone and after others differs at token " << ply;
  }
}

TEST(UsiEngines, KilledMidGameIsRestartedAndTheGameReplayed) {
  if (!have_program("fairy-stockfish")) GTEST_SKIP() << "fairy-stockfish not installed";
  std::string marker =
      std::filesystem::temp_directory_path() / ("fusekilab_marker_" + std::to_string(getpid()));
  std::filesystem::remove(marker);
  UsiConfig c = script("die_midgame_once.sh", {marker, find_program("fairy-stockfish")});
  c.options = {{"UCI_Variant", "shogi"}, {"Threads", "1"}};
  c.move_timeout = 10;
  UsiPlayer flaky(c);
  BuiltinPlayer builtin({300, 0, 0}, 0);
  Game g = play_game(post_placement_game(5), flaky, builtin, 1, 2);
  std::filesystem::remove(marker);
  EXPECT_NE(g.winner(), Winner::Void) << g.note();
  EXPECT_EQ(flaky.restarts(), 1);
}

TEST(UsiEngines, EngineOptionsFromTheSpecAreCheckedAgainstTheEngine) {
  if (!have_program("fairy-stockfish")) GTEST_SKIP() << "fairy-stockfish not installed";
  EngineRegistry reg = default_engines();
  // The engine's own options ride on the spec; the budget keys keep their meaning.
  auto ok = make_player("fairy-stockfish:nodes=200:Threads=1:USI_Hash=8", reg);
  EXPECT_NO_THROW(ok->prepare());
  Game g = play_game(post_placement_game(7), *ok, *make_player("builtin:nodes=200", reg), 1);
  EXPECT_NE(g.winner(), Winner::Void) << g.note();
  // A misspelt option is refused, naming it and what the engine has (engines ignore unknown
  // options in silence).
  try {
    make_player("fairy-stockfish:Thraeds=2", reg)->prepare();
    FAIL() << "an unknown option was accepted";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("no option 'Thraeds' (it has: "), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(make_player("usi:/bin/true:=3", reg), std::invalid_argument);
}

TEST(UsiEngines, TheRuleSetNamesTheVariantTheEngineIsTold) {
  if (!have_program("fairy-stockfish")) GTEST_SKIP() << "fairy-stockfish not installed";
  EngineRegistry reg = default_engines();
  EXPECT_STREQ(rule_info(RuleSet::Balance).usi_variant, "shogi");
  EXPECT_STREQ(rule_info(RuleSet::Yari).usi_variant, "yarishogi");
  // Fairy-Stockfish is told UCI_Variant=yarishogi for Yari; a build without that variant
  // (Debian's 11.1 has none, and no variant file can add it: 11.1 defines no custom pieces) is
  // one clear error before any game, not games lost on an illegal move. A build with it plays
  // Yari to the end (the WebAssembly build does: ctest yari_fsf_wasm_play).
  auto fsf = make_player("fairy-stockfish:nodes=300", reg, RuleSet::Yari);
  try {
    fsf->prepare();
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("does not know the variant 'yarishogi'"),
              std::string::npos)
        << e.what();
    return;
  }
  Game g(Position::start(RuleSet::Yari), GameOptions{200});
  BuiltinPlayer builtin({300, 0, 0}, 0);
  Game done = play_game(g, *fsf, builtin, 1);
  EXPECT_NE(done.winner(), Winner::Void) << done.note();
  EXPECT_NE(done.reason(), Reason::IllegalMove) << done.record();
}

// An engine given as usi:PATH that offers variants (USI_Variant, as later Fairy-Stockfish builds
// call UCI_Variant in USI mode) is told the rule set's variant, and refuses one it lacks.
TEST(UsiEngines, AVariantOptionIsFoundWithoutANamedEngine) {
  std::string log =
      std::filesystem::temp_directory_path() / ("fusekilab_variants_" + std::to_string(getpid()));
  std::filesystem::remove(log);
  UsiConfig c = script("variants.sh", {log});
  c.options = {{"USI_Variant", "minishogi"}};  // the rule set's variant wins over the spec's
  UsiPlayer shogi(c);
  shogi.prepare();
  c.variant = "yarishogi";
  UsiPlayer yari(c);
  try {
    yari.prepare();
    ADD_FAILURE() << "an engine without yarishogi accepted Yari";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "does not know the variant 'yarishogi' (USI_Variant offers no such value)"),
              std::string::npos)
        << e.what();
  }
  std::ifstream in(log);
  std::string sent((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(log);
  EXPECT_EQ(sent, "setoption name USI_Variant value shogi\n");
}

TEST(UsiEngines, AShogiOnlyEngineRefusesAnotherVariant) {
  if (!have_program("gpsusi")) GTEST_SKIP() << "gpsusi not installed";
  EngineRegistry reg = default_engines();
  try {
    make_player("gpsusi:movetime=50", reg, RuleSet::Yari)->prepare();
    FAIL() << "gpsusi accepted Yari";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("plays shogi only, not yarishogi"), std::string::npos)
        << e.what();
  }
}

TEST(UsiEngines, GpsusiPlaysAGameToTheEnd) {
  if (!have_program("gpsusi")) GTEST_SKIP() << "gpsusi not installed";
  EngineRegistry reg = default_engines();
  auto gps = make_player("gpsusi:movetime=50", reg);
  BuiltinPlayer builtin({300, 0, 0}, 0);
  Game g = play_game(post_placement_game(6), builtin, *gps, 1);
  EXPECT_NE(g.winner(), Winner::Void) << g.note();
  EXPECT_NE(g.reason(), Reason::IllegalMove) << g.record();
}

TEST(YariGameEnd, ThreefoldRepetitionIsADraw) {
  const char* sfen = "3k3/7/7/7/7/7/7/7/3K3 b - 1";
  Game g = game_at(RuleSet::Yari, sfen, "4i3i 4a3a 3i4i 3a4a 4i3i 4a3a 3i4i");
  EXPECT_FALSE(g.over());
  g.play_text("3a4a");
  EXPECT_EQ(g.winner(), Winner::Draw);
  EXPECT_EQ(g.reason(), Reason::Sennichite);
}

TEST(YariGameEnd, PerpetualCheckLoses) {
  Game g = game_at(RuleSet::Yari, "5pk/7/7/7/5R1/7/7/7/K6 b - 1",
                   "2e1e 1a2b 1e2e 2b1a 2e1e 1a2b 1e2e 2b1a");
  EXPECT_EQ(g.winner(), Winner::Gote);
  EXPECT_EQ(g.reason(), Reason::PerpetualCheck);
}

TEST(YariGameEnd, NoEnteringKingDeclaration) {
  Game g = game_at(RuleSet::Yari, "3K3/+B5+R/PPPPPPP/7/7/7/7/7/3k3 b RN2P 1");
  EXPECT_FALSE(check_declaration(g.position()).valid);
}
