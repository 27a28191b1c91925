// Self-play shards: round trip, atomic write, clear errors for bad files, and readable by h5py.
#include "selfplay/shard.h"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace fuseki;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / ("fusekilab_shard_test_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

Shard sample() {
  Shard s;
  s.attributes["rules"] = "balance";
  s.attributes["run_seed"] = "7";
  for (int g = 0; g < 3; ++g) {
    GameRow row;
    row.seed = 1000 + uint64_t(g);
    row.rules = 3;
    row.winner = *winner_from_code(g % 3);
    row.reason = Reason::Mate;
    row.play_moves = int16_t(50 + g);
    row.placer = 0;
    row.chooser_takes = 1;
    row.sente_king = 40;
    row.gote_king = 36;
    row.shapes = uint8_t(g);
    row.record = "K*5i K*5a choose:gote P*7g game " + std::to_string(g);
    s.games.push_back(row);
    for (int p = 2; p < 40; ++p)
      s.decisions.push_back({g,
                             int16_t(p),
                             int8_t(p % 2),
                             int16_t(p * 7),
                             uint16_t(p * 11),
                             int16_t(200 - p),
                             0.25f,
                             -0.5f,
                             {}});
  }
  // Search targets on some decisions (a searching placer's), none on the others.
  for (size_t i = 0; i < s.decisions.size(); i += 3)
    for (int k = 0; k < 1 + int(i % 5); ++k)
      s.decisions[i].target.push_back({int16_t(k * 13 + int(i % 7)), 0.1f * float(k + 1),
                                       // a look-ahead's measured value on some (NaN: none)
                                       i % 2 ? 0.25f * float(k) - 0.5f : PolicyTarget{}.q});
  return s;
}

void expect_error(const fs::path& p, const std::string& what) {
  try {
    read_shard(p.string());
    ADD_FAILURE() << "read " << p;
  } catch (const ShardError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(Shard, RoundTripAndNoTemporaryLeft) {
  fs::path dir = temp_dir();
  fs::path p = dir / "shard.h5";
  Shard s = sample();
  write_shard(p.string(), s);
  for (const auto& e : fs::directory_iterator(dir))  // its temporary (shard.h5.tmp.PID.N) is gone
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  Shard r = read_shard(p.string());
  EXPECT_EQ(r.attributes["rules"], "balance");
  EXPECT_EQ(r.attributes["version"], std::to_string(SHARD_FORMAT_VERSION));
  ASSERT_EQ(r.games.size(), s.games.size());
  ASSERT_EQ(r.decisions.size(), s.decisions.size());
  for (size_t i = 0; i < s.games.size(); ++i) {
    EXPECT_EQ(r.games[i].seed, s.games[i].seed);
    EXPECT_EQ(r.games[i].record, s.games[i].record);
    EXPECT_EQ(r.games[i].winner, s.games[i].winner);
    EXPECT_EQ(r.games[i].shapes, s.games[i].shapes);
  }
  for (size_t i = 0; i < s.decisions.size(); ++i) {
    EXPECT_EQ(r.decisions[i].action, s.decisions[i].action);
    EXPECT_EQ(r.decisions[i].move, s.decisions[i].move);
    EXPECT_FLOAT_EQ(r.decisions[i].prob, s.decisions[i].prob);
    ASSERT_EQ(r.decisions[i].target.size(), s.decisions[i].target.size()) << i;
    for (size_t k = 0; k < s.decisions[i].target.size(); ++k) {
      EXPECT_EQ(r.decisions[i].target[k].action, s.decisions[i].target[k].action);
      EXPECT_FLOAT_EQ(r.decisions[i].target[k].prob, s.decisions[i].target[k].prob);
      const float q = s.decisions[i].target[k].q, back = r.decisions[i].target[k].q;
      if (std::isnan(q))
        EXPECT_TRUE(std::isnan(back)) << i;
      else
        EXPECT_FLOAT_EQ(back, q) << i;
    }
  }
  fs::remove_all(dir);
}

// Shards of earlier versions: this one written, then made what version 2 wrote (no targets/q:
// read with its targets and no measured values), then what version 1 wrote (no targets group,
// version 1: read with its decisions and no targets); version 4 is refused.
TEST(Shard, ReadsVersionOneAndTwoShards) {
  fs::path dir = temp_dir();
  fs::path p = dir / "v1.h5";
  write_shard(p.string(), sample());
  auto set_version = [&](int64_t v, const char* drop) {
    hid_t f = H5Fopen(p.string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    if (drop) {
      ASSERT_GE(H5Ldelete(f, drop, H5P_DEFAULT), 0);
    }
    hid_t a = H5Aopen(f, "version", H5P_DEFAULT);
    ASSERT_GE(H5Awrite(a, H5T_NATIVE_INT64, &v), 0);
    H5Aclose(a);
    H5Fclose(f);
  };
  set_version(2, "targets/q");
  Shard two = read_shard(p.string());
  EXPECT_EQ(two.attributes["version"], "2");
  ASSERT_EQ(two.decisions.size(), sample().decisions.size());
  size_t targets = 0;
  for (size_t i = 0; i < two.decisions.size(); ++i) {
    ASSERT_EQ(two.decisions[i].target.size(), sample().decisions[i].target.size());
    for (const PolicyTarget& t : two.decisions[i].target) EXPECT_TRUE(std::isnan(t.q));
    targets += two.decisions[i].target.size();
  }
  EXPECT_GT(targets, 0u);
  set_version(1, "targets");
  Shard r = read_shard(p.string());
  EXPECT_EQ(r.attributes["version"], "1");
  ASSERT_EQ(r.decisions.size(), sample().decisions.size());
  for (const DecisionRow& d : r.decisions) EXPECT_TRUE(d.target.empty());
  EXPECT_EQ(r.decisions[5].action, sample().decisions[5].action);
  set_version(4, nullptr);
  expect_error(p, "shard format version 4");
  fs::remove_all(dir);
}

TEST(Shard, EmptyShard) {
  fs::path dir = temp_dir();
  write_shard((dir / "empty.h5").string(), Shard{});
  EXPECT_TRUE(read_shard((dir / "empty.h5").string()).games.empty());
  fs::remove_all(dir);
}

TEST(Shard, BadFilesGetOneClearError) {
  fs::path dir = temp_dir();
  expect_error(dir / "missing.h5", "cannot open");
  std::ofstream(dir / "text.h5") << "this is not HDF5\n";
  expect_error(dir / "text.h5", "not an HDF5 file");
  std::ofstream(dir / "empty.h5");
  expect_error(dir / "empty.h5", "not an HDF5 file");
  // A truncated shard.
  write_shard((dir / "full.h5").string(), sample());
  auto size = fs::file_size(dir / "full.h5");
  fs::copy_file(dir / "full.h5", dir / "cut.h5");
  fs::resize_file(dir / "cut.h5", size / 2);
  EXPECT_THROW(read_shard((dir / "cut.h5").string()), ShardError);
  fs::remove_all(dir);
}

TEST(Shard, ReadableWithPythonH5py) {
  const char* py = "/usr/bin/python3";
  if (access(py, X_OK) != 0 || std::system("/usr/bin/python3 -c 'import h5py' 2>/dev/null") != 0)
    GTEST_SKIP() << "Debian's python3-h5py is not installed";
  fs::path dir = temp_dir();
  fs::path p = dir / "shard.h5";
  write_shard(p.string(), sample());
  std::string script =
      "import h5py,sys\n"
      "f=h5py.File(sys.argv[1],'r')\n"
      "assert f.attrs['format'].decode() if isinstance(f.attrs['format'],bytes) else "
      "f.attrs['format']\n"
      "assert int(f.attrs['version'])==3\n"
      "g=f['games']; d=f['decisions']; t=f['targets']\n"
      "assert len(g['seed'])==3 and list(g['seed'][:])==[1000,1001,1002]\n"
      "r=g['record'][0]; r=r.decode() if isinstance(r,bytes) else r\n"
      "assert r.startswith('K*5i K*5a choose:gote'), r\n"
      "assert len(d['action'])==3*38 and int(d['action'][0])==14\n"
      "assert int(t['decision'][0])==0 and int(t['action'][0])==0 and len(t['prob'])>38\n"
      "import math\n"
      "assert len(t['q'])==len(t['prob']) and math.isnan(t['q'][0]) and float(t['q'][1])==-0.5\n"
      "print('h5py ok')\n";
  std::ofstream(dir / "check.py") << script;
  std::string cmd = std::string(py) + " " + (dir / "check.py").string() + " " + p.string();
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  fs::remove_all(dir);
}
