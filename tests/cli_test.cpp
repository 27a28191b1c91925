// The fusekilab program as a user runs it: outputs, and exit code 2 with one clear error line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

struct Result {
  int code;
  std::string out;  // stdout and stderr together
};

Result run(const std::string& args) {
  std::string cmd = std::string(FUSEKILAB_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string last_line(const std::string& s) {
  size_t end = s.find_last_not_of('\n');
  size_t start = s.rfind('\n', end);
  return s.substr(start == std::string::npos ? 0 : start + 1,
                  end - (start == std::string::npos ? 0 : start + 1) + 1);
}

Result run_stdout(const std::string& args) { return run(args + " 2>/dev/null"); }

}  // namespace

TEST(CliPerft, LastLineIsTheNodeCount) {
  Result r = run_stdout("perft --rules balance --depth 2");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(last_line(r.out), "1296");
}

TEST(CliPerft, MovesPlayFromTheStartPosition) {
  EXPECT_EQ(
      last_line(run_stdout("perft --rules balance --moves 'K*5i K*5a choose:sente' --depth 1").out),
      "245");
  EXPECT_EQ(last_line(run_stdout("perft --rules shogi --moves '7g7f' --depth 0").out), "1");
}

TEST(CliPerft, DivideListsRootMovesThenTheTotal) {
  Result r = run_stdout("perft --rules shogi --depth 2 --divide");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("7g7f: 30"), std::string::npos);
  EXPECT_EQ(last_line(r.out), "900");
}

TEST(CliPerft, SfenOption) {
  Result r = run_stdout("perft --rules shogi --sfen '7lk/9/8S/9/9/9/9/7L1/8K b P 1' --depth 2");
  EXPECT_EQ(last_line(r.out), "639");
}

TEST(CliPerft, PositionsFileTakesMovesAfterASfen) {
  // One count a line: the start, the start with moves played (as --moves would), a bare SFEN.
  const std::string start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
  const std::string file = ::testing::TempDir() + "cli_perft_positions.txt";
  {
    std::ofstream out(file);
    out << start << "\n# a comment\n"
        << start << " moves 7g7f 3c3d\n"
        << "7lk/9/8S/9/9/9/9/7L1/8K b P 1\n";
  }
  Result r = run_stdout("perft --rules shogi --depth 2 --positions '" + file + "'");
  EXPECT_EQ(r.code, 0);
  const std::string after =
      last_line(run_stdout("perft --rules shogi --moves '7g7f 3c3d' --depth 2").out);
  EXPECT_EQ(r.out, "900\n" + after + "\n639\n");
  {
    std::ofstream out(file);
    out << start << " moves 7g7f 7g7f\n";
  }
  Result bad = run("perft --rules shogi --depth 1 --positions '" + file + "'");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("cli_perft_positions.txt:1: "), std::string::npos) << bad.out;
  std::remove(file.c_str());
}

TEST(CliLegal, OneMovePerLine) {
  Result r = run_stdout(
      "legal --rules balance --sfen 'lnsbpgsnl/ppppkpppp/r8/9/9/4R4/PPPPPPPPP/8B/LNSGKGSNL w g 1'");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "G*5c\nG*5d\n");
}

TEST(CliErrors, UnknownRuleSet) {
  Result r = run("perft --rules chess --depth 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("unknown rule set 'chess'"), std::string::npos) << r.out;
}

TEST(CliErrors, BadSfen) {
  Result r = run("legal --rules shogi --sfen '9/9/9 b - 1'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("bad SFEN: board has 3 ranks"), std::string::npos) << r.out;
}

TEST(CliErrors, IllegalMoveInRecord) {
  Result r = run("perft --rules balance --moves 'K*5i P*5a' --depth 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("record token 2: move 'P*5a'"), std::string::npos) << r.out;
}

TEST(CliErrors, MissingDepthAndUnknownCommand) {
  EXPECT_EQ(run("perft --rules shogi").code, 2);
  EXPECT_EQ(run("frobnicate").code, 2);
  EXPECT_EQ(run("perft --rules shogi --depth -1").code, 2);
}

TEST(CliDemo, PrintsPerftAndARandomPlacementRecord) {
  Result a = run_stdout("demo --seed 7");
  Result b = run_stdout("demo --seed 7");
  EXPECT_EQ(a.code, 0);
  EXPECT_NE(a.out.find("perft 3: 317520"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("choose:"), std::string::npos) << a.out;
  EXPECT_EQ(a.out, b.out);  // one seed, one game
  EXPECT_NE(a.out, run_stdout("demo --seed 8").out);
}

TEST(CliPlay, JsonlGamesWithWinnerReasonAndSeed) {
  Result r = run_stdout(
      "play --games 2 --seed 9 --sente builtin:nodes=200 --gote random --format jsonl --quiet");
  EXPECT_EQ(r.code, 0);
  size_t lines = 0;
  for (char c : r.out) lines += c == '\n';
  EXPECT_EQ(lines, 2u);
  for (const char* field :
       {"\"record\":\"K*", "\"winner\":", "\"reason\":", "\"seed\":9", "\"game_seed\":", "choose:"})
    EXPECT_NE(r.out.find(field), std::string::npos) << field << " in " << r.out;
  EXPECT_EQ(
      r.out,
      run_stdout(
          "play --games 2 --seed 9 --sente builtin:nodes=200 --gote random --format jsonl --quiet")
          .out);
}

TEST(CliPlay, TextRecordFromAGivenPlacement) {
  Result r = run_stdout(
      "play --rules fuseki --sfen 'lnsbpgsnl/ppppkpppp/r8/9/9/4R3B/PPPPPPPPP/9/LNSGKGSNL w g 1' "
      "--moves G*5c");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out.substr(0, 5), "G*5c ");
  EXPECT_NE(r.out.find("winner=sente reason=ruling41"), std::string::npos) << r.out;
}

TEST(CliPlay, BadEngineSpecIsAnError) {
  Result r = run("play --sente builtin:nodes=abc");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("nodes=abc"), std::string::npos) << r.out;
  Result missing = run("play --sente usi:/nonexistent/engine");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.out.find("cannot start '/nonexistent/engine'"), std::string::npos)
      << missing.out;
}

TEST(CliJudge, OngoingAndFinishedGames) {
  Result ongoing = run_stdout(
      "judge --rules shogi --sfen 'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - "
      "1' --moves '7g7f'");
  EXPECT_EQ(ongoing.out, "ongoing, gote to play move 2\n");
  Result mate = run_stdout(
      "judge --rules shogi --sfen '8k/6S2/7GP/9/9/9/9/9/K8 b - 1' --moves 1c1b --format jsonl");
  EXPECT_NE(mate.out.find("\"winner\":\"sente\",\"reason\":\"mate\",\"ply\":1"), std::string::npos)
      << mate.out;
  Result ruling = run_stdout(
      "judge --rules balance --sfen 'gnsbpgsn1/pppplpppp/r3k4/9/9/4R4/PPPPPPPPP/8B/LNSGKGSNL w l "
      "1' --moves L*4d");
  EXPECT_EQ(ruling.out, "sente ruling41 after ply 40\n");
}

TEST(CliJudge, DeclareReportsPointsAndPieces) {
  Result r = run_stdout(
      "judge --rules shogi --sfen '4K4/+B7+R/PPPPPPPPP/9/9/9/9/9/4k4 b R2G2S2N2L 1' --declare");
  EXPECT_NE(r.out.find("declaration: valid"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pieces in zone: 11/10, points: 32/28"), std::string::npos) << r.out;
}

TEST(CliJudge, MovesAfterTheEndAreAnError) {
  Result r = run("judge --rules shogi --sfen '8k/6S2/7GP/9/9/9/9/9/K8 b - 1' --moves '1c1b 1a2a'");
  EXPECT_EQ(r.code, 2);
}

namespace {
// `play` with the engine `spec` on both sides: the same games with one thread and with `threads`.
void expect_threads_change_nothing(const std::string& spec, int games, int threads) {
  std::string args = "play --games " + std::to_string(games) + " --seed 5 --sente " + spec +
                     " --gote " + spec + " --format jsonl --quiet";
  Result one = run_stdout(args + " --threads 1");
  Result more = run_stdout(args + " --threads " + std::to_string(threads));
  EXPECT_EQ(one.code, 0);
  EXPECT_EQ(one.out, more.out);
}
}  // namespace

TEST(CliPlay, ThreadsChangeNothingButSpeed) {
  expect_threads_change_nothing("builtin:nodes=300:noise=20", 6, 3);
}

// The same with a USI engine, whose processes each play many games (docs/engine.md, "Games do
// not depend on each other").
TEST(CliPlay, ThreadsChangeNothingWithAUsiEngine) {
  if (std::system("command -v fairy-stockfish >/dev/null || test -x /usr/games/fairy-stockfish"))
    GTEST_SKIP() << "fairy-stockfish not installed";
  expect_threads_change_nothing("fairy-stockfish:nodes=1000", 16, 2);
}
