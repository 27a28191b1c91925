// The machinery resumable jobs share (io/): line journals, settings checks, i/n slices, file
// locks, progress lines, atomic commits.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>

#include "io/atomic_file.h"
#include "io/file_lock.h"
#include "io/journal.h"
#include "io/options.h"
#include "io/progress.h"
#include "io/settings.h"
#include "io/slice.h"

namespace fuseki {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("fusekilab_io_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

void write_raw(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

const LineJournal::Valid kAny = [](const std::string&) { return true; };

TEST(LineJournal, MissingFileIsEmpty) {
  TempDir d;
  EXPECT_TRUE(LineJournal::read(d / "none.jsonl", kAny).empty());
}

TEST(LineJournal, TornLastLineIsDropped) {
  TempDir d;
  write_raw(d / "j", "{\"a\":1}\n{\"a\":2}\n{\"a\":3}");  // killed before the last newline
  auto lines = LineJournal::read(d / "j", kAny);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "{\"a\":2}");
}

TEST(LineJournal, ReadingStopsAtTheFirstRejectedLine) {
  TempDir d;
  write_raw(d / "j", "good 1\ngood 2\nbad\ngood 3\n");
  auto lines =
      LineJournal::read(d / "j", [](const std::string& l) { return l.rfind("good", 0) == 0; });
  EXPECT_EQ(lines, (std::vector<std::string>{"good 1", "good 2"}));
}

TEST(LineJournal, OpeningRemovesTheTemporariesOfProcessesGone) {
  TempDir d;
  // A rewrite killed between its temporary and the rename, by a process id that no longer runs
  // (above any pid_max); this process's own temporaries and other files are left alone.
  const std::string gone = "j.tmp.999999999.0", mine = "j.tmp." + std::to_string(::getpid()) + ".7";
  for (const std::string& name :
       {gone, mine, std::string("j.tmp.notes"), std::string("k.tmp.999999999.0")})
    write_raw(d / name, "x\n");
  LineJournal j(d / "j", {"one"});
  EXPECT_FALSE(std::filesystem::exists(d.path / gone));
  for (const std::string& name :
       {mine, std::string("j.tmp.notes"), std::string("k.tmp.999999999.0")})
    EXPECT_TRUE(std::filesystem::exists(d.path / name)) << name;
}

TEST(LineJournal, RewritesToTheKeptLinesThenAppendsAndClears) {
  TempDir d;
  write_raw(d / "j", "one\ntwo\nthr");
  {
    LineJournal j(d / "j", LineJournal::read(d / "j", kAny));
    EXPECT_EQ(read_file(d / "j"), "one\ntwo\n");
    j.append("three");
    EXPECT_EQ(read_file(d / "j"), "one\ntwo\nthree\n");
    j.clear();
    EXPECT_EQ(read_file(d / "j"), "");
    j.append("four");
  }
  EXPECT_EQ(read_file(d / "j"), "four\n");
}

TEST(Settings, WrittenOnceThenEqualOrRefusedNamingTheDifference) {
  TempDir d;
  nlohmann::json a = {{"seed", 1}, {"rules", "balance"}};
  keep_settings(d / "settings.json", a, "use another --out");
  EXPECT_TRUE(fs::exists(d / "settings.json"));
  EXPECT_NO_THROW(keep_settings(d / "settings.json", a, "use another --out"));
  nlohmann::json b = {{"seed", 2}, {"rules", "balance"}};
  try {
    keep_settings(d / "settings.json", b, "use another --out");
    FAIL() << "other settings accepted";
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("other settings ('seed = 1' here, 'seed = 2' asked); use another --out"),
              std::string::npos)
        << m;
  }
}

TEST(Settings, AnUnreadableFileIsNamed) {
  TempDir d;
  write_raw(d / "settings.json", "{not json");
  EXPECT_THROW(keep_settings(d / "settings.json", {{"seed", 1}}, "hint"), std::runtime_error);
}

TEST(Settings, FirstDifferenceOfTexts) {
  EXPECT_EQ(first_difference("a = 1\nb = 2\n", "a = 1\nb = 3\n"), "'b = 2' here, 'b = 3' asked");
  EXPECT_EQ(first_difference("a = 1\n", "a = 1\nb = 3\n"), "'' here, 'b = 3' asked");
  EXPECT_EQ(first_difference("a = 1\n", "a = 1\n"), "no difference");
}

TEST(Slice, ParsesOnlyIOverN) {
  EXPECT_EQ(parse_slice("0/1", "--worker"), (Slice{0, 1}));
  EXPECT_EQ(parse_slice("3/4", "--shard"), (Slice{3, 4}));
  EXPECT_EQ(parse_slice("3/4", "--shard").text(), "3/4");
  for (const char* bad : {"1/4x", "4/4", "-1/4", "1/0", "a/b", "", "1/", "/4", " 1/4", "1/ 4",
                          "1//4", "1/4/5", "+1/4", "9999999999/4"}) {
    try {
      parse_slice(bad, "--shard");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("--shard '") + bad + "': expected i/n with 0 <= i < n");
    }
  }
}

TEST(Slice, FromSlurmArrayVariables) {
  ::unsetenv("SLURM_ARRAY_TASK_ID");
  ::unsetenv("SLURM_ARRAY_TASK_COUNT");
  EXPECT_THROW(slice_from_slurm("--worker"), std::runtime_error);
  ::setenv("SLURM_ARRAY_TASK_ID", "2", 1);
  ::setenv("SLURM_ARRAY_TASK_COUNT", "8", 1);
  EXPECT_EQ(slice_from_slurm("--worker"), (Slice{2, 8}));
  ::setenv("SLURM_ARRAY_TASK_ID", "8", 1);
  EXPECT_THROW(slice_from_slurm("--worker"), std::runtime_error);
  ::unsetenv("SLURM_ARRAY_TASK_ID");
  ::unsetenv("SLURM_ARRAY_TASK_COUNT");
}

TEST(FileLock, OneHolderAtATime) {
  TempDir d;
  EXPECT_EQ(lock_state(d / "w0.lock"), LockState::Absent);
  {
    FileLock held(d / "w0.lock", "worker 0");
    EXPECT_EQ(lock_state(d / "w0.lock"), LockState::Held);
    try {
      FileLock second(d / "w0.lock", "worker 0");
      FAIL() << "a second holder";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("worker 0 is already running"), std::string::npos);
    }
  }
  EXPECT_EQ(lock_state(d / "w0.lock"), LockState::Free);
  FileLock again(d / "w0.lock", "worker 0");
}

TEST(Progress, RateAndEta) {
  Progress p("selfplay gen-0001", 100);
  EXPECT_EQ(p.line(25, "batch fill 90%", 5.0),
            "selfplay gen-0001: 25/100, 5.00/s, batch fill 90%, ETA 15 s");
  EXPECT_EQ(p.line(0, "", 5.0), "selfplay gen-0001: 0/100, 0.00/s, ETA ?");
  EXPECT_EQ(p.line(100, "", 4.0), "selfplay gen-0001: 100/100, 25.00/s, ETA 0 s");
}

TEST(AtomicFile, CommitRenamesAndCreateIsExclusive) {
  TempDir d;
  write_raw(d / "x.h5.tmp", "data");
  commit_file(d / "x.h5.tmp", d / "x.h5");
  EXPECT_FALSE(fs::exists(d / "x.h5.tmp"));
  EXPECT_EQ(read_file(d / "x.h5"), "data");
  EXPECT_THROW(commit_file(d / "missing.tmp", d / "y"), std::runtime_error);
  EXPECT_TRUE(create_file_atomically(d / "workers", "2\n"));
  EXPECT_FALSE(create_file_atomically(d / "workers", "3\n"));
  EXPECT_EQ(read_file(d / "workers"), "2\n");
  for (const auto& e : fs::directory_iterator(d.path))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

// Settings declared once: a test struct with one option of each kind.
struct Toy {
  int games = 8;
  long budget = 100;
  uint64_t seed = 1;
  double rate = 0.5;
  bool fast = false;
  std::string mode = "a", name = "x", file;
};

std::vector<OptionSection> toy_sections(Toy& t) {
  std::vector<OptionSection> s;
  s.emplace_back("play", "Toy");
  s.back()
      .integer("games", t.games, 1, 100, "games")
      .integer("budget", t.budget, 1L, 1000L, "budget")
      .seed("seed", t.seed, "seed")
      .number("rate", t.rate, 0.0, 1.0, "rate")
      .boolean("fast", t.fast, "fast")
      .choice("mode", t.mode, {"a", "b"}, "mode")
      .text("name", t.name, "name")
      .path("file", t.file, "file");
  return s;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

std::vector<OptionSection*> pointers(std::vector<OptionSection>& s) {
  std::vector<OptionSection*> out;
  for (auto& x : s) out.push_back(&x);
  return out;
}

TEST(Options, DefaultsComeFromTheStructAndRoundTripThroughToml) {
  TempDir dir;
  Toy t;
  auto sections = toy_sections(t);
  EXPECT_EQ(sections[0].find("games")->default_value, "8");
  EXPECT_EQ(sections[0].find("rate")->default_value, "0.5");
  EXPECT_EQ(sections[0].find("mode")->default_value, "\"a\"");
  EXPECT_EQ(sections[0].flag(*sections[0].find("file")), "--file");
  sections[0].qualified_flags();
  EXPECT_EQ(sections[0].flag(*sections[0].find("seed")), "--play.seed");
  t.games = 42;
  t.rate = 0.1;
  t.seed = 9223372036854775807ull;  // the largest TOML integer
  t.name = "quote\" and \\";
  t.fast = true;
  write_raw(dir / "t.toml", to_toml({&sections[0]}));
  Toy back;
  auto back_sections = toy_sections(back);
  read_toml(dir / "t.toml", pointers(back_sections));
  EXPECT_EQ(back.games, 42);
  EXPECT_EQ(back.rate, 0.1);
  EXPECT_EQ(back.seed, t.seed);
  EXPECT_EQ(back.name, t.name);
  EXPECT_TRUE(back.fast);
}

TEST(LogLine, ATornLastLineIsEndedBeforeTheNextIsAppended) {
  TempDir dir;
  const std::string path = (dir.path / "metrics.jsonl").string();
  append_log_line(path, "{\"step\":1}");
  append_log_line(path, "{\"step\":2}");
  EXPECT_EQ(read_file(path), "{\"step\":1}\n{\"step\":2}\n");
  write_raw(dir.path / "metrics.jsonl", "{\"step\":1}\n{\"st");  // killed mid-append
  append_log_line(path, "{\"step\":3}");
  EXPECT_EQ(read_file(path), "{\"step\":1}\n{\"st\n{\"step\":3}\n");
  EXPECT_THROW(append_log_line((dir.path / "no" / "such.jsonl").string(), "x"), std::runtime_error);
}

TEST(Options, BadValuesAndUnknownKeysAreErrorsNamingThem) {
  TempDir dir;
  Toy t;
  auto sections = toy_sections(t);
  auto all = pointers(sections);
  auto file_error = [&](const std::string& text) {
    write_raw(dir / "c.toml", text);
    return error_of([&] { read_toml(dir / "c.toml", all); });
  };
  EXPECT_NE(file_error("[play]\ngames = 0\n").find("play.games: value 0 out of range [1, 100]"),
            std::string::npos);
  EXPECT_NE(file_error("[play]\ngames = \"5\"\n").find("play.games: expected an integer"),
            std::string::npos);
  EXPECT_NE(file_error("[play]\nrate = true\n").find("play.rate: expected a number"),
            std::string::npos);
  EXPECT_NE(file_error("[play]\nfast = 1\n").find("expected true or false"), std::string::npos);
  EXPECT_NE(file_error("[play]\nmode = \"c\"\n").find("'c' is not one of a, b"), std::string::npos);
  EXPECT_NE(file_error("[play]\nspeed = 1\n").find("unknown key play.speed"), std::string::npos);
  EXPECT_NE(file_error("[chess]\nx = 1\n").find("unknown section [chess]"), std::string::npos);
  EXPECT_NE(file_error("[play\n").find("c.toml:1:"), std::string::npos);
  // A key before any section, and a directory where the file should be: each named.
  EXPECT_NE(file_error("games = 2\n").find("'games' is a key outside any section"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_toml(dir.path.string(), all); }).find("Is a directory"),
            std::string::npos);
  // Another command's section is skipped by name where the program has declared no sections
  // (its contents are that command's to check) ...
  EXPECT_EQ(file_error("[eval]\nanything = 1\n[play]\ngames = 3\n"), "no error");
  EXPECT_EQ(t.games, 3);
  // ... and checked as that command reads it where it has, changing nothing here.
  double threshold = 0.5;
  std::vector<OptionSection> every;
  every.emplace_back("eval", "another command's");
  every.back().number("threshold", threshold, 0, 1, "a number");
  set_every_config_section([&](const auto& use) { use(pointers(every)); });
  EXPECT_NE(file_error("[eval]\nanything = 1\n").find("unknown key eval.anything"),
            std::string::npos);
  EXPECT_NE(file_error("[eval]\nthreshold = 2.0\n").find("eval.threshold: value 2"),
            std::string::npos);
  EXPECT_EQ(file_error("[eval]\nthreshold = 0.25\n[play]\ngames = 4\n"), "no error");
  EXPECT_EQ(t.games, 4);
  set_every_config_section(nullptr);
  // Overrides: the same checks, naming the override.
  EXPECT_NE(error_of([&] {
              apply_override("play.budget=5000", all);
            }).find("--set play.budget: value 5000 out of range [1, 1000]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply_override("play.seed=-1", all); }).find("not a non-negative"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              apply_override("play.seed=9223372036854775808", all);
            }).find("out of range [0, 2^63-1]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply_override("play.rate=0.5x", all); }).find("is not a number"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply_override("games=5", all); }).find("expected section.key=value"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply_override("run.games=5", all); }).find("unknown section 'run'"),
            std::string::npos);
  apply_override("play.rate=1", all);
  EXPECT_EQ(t.rate, 1.0);
}

TEST(Options, PathsInAFileAreRelativeToTheFile) {
  TempDir dir;
  fs::create_directories(dir / "sub");
  write_raw(dir / "sub/c.toml", "[play]\nfile = \"../data/t.json\"\nname = \"../n\"\n");
  Toy t;
  auto sections = toy_sections(t);
  read_toml(dir / "sub/c.toml", pointers(sections));
  EXPECT_EQ(t.file, (fs::path(dir / "data") / "t.json").string());
  EXPECT_EQ(t.name, "../n");  // not a path: as written
  apply_override("play.file=rel/x", pointers(sections));
  EXPECT_EQ(t.file, "rel/x");  // on a command line: relative to the working directory
}

TEST(Options, TheMarkdownListsEveryOption) {
  Toy t;
  auto sections = toy_sections(t);
  std::string md = to_markdown({&sections[0]});
  for (const Option& o : sections[0].options())
    EXPECT_NE(md.find("| `" + o.key + "` |"), std::string::npos) << o.key;
  EXPECT_NE(md.find("| `budget` | `--budget` | integer | `100` | 1 .. 1000 | budget |"),
            std::string::npos)
      << md;
}

}  // namespace
}  // namespace fuseki
