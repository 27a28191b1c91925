// The fusekilab program as a user runs it: outputs, and exit code 2 with one clear error line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
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
  return s.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

Result run_stdout(const std::string& args) { return run(args + " 2>/dev/null"); }

}  // namespace

TEST(CliPerft, LastLineIsTheNodeCount) {
  Result r = run_stdout("perft --rules balance --depth 2");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(last_line(r.out), "1296");
}

TEST(CliPerft, MovesPlayFromTheStartPosition) {
  EXPECT_EQ(last_line(run_stdout("perft --rules balance --moves 'K*5i K*5a choose:sente' --depth 1").out), "245");
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
