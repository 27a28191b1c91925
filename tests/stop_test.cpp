// Stopping on request (io/stop.h): the flag, the exception, waits that wake on a stop, and the
// signal handlers (SIGTERM asks once and may repeat; a second SIGINT kills).
#include "io/stop.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <stdexcept>
#include <type_traits>

namespace fuseki {
namespace {

struct StopTest : ::testing::Test {
  void SetUp() override { clear_stop(); }
  void TearDown() override { clear_stop(); }
};

TEST_F(StopTest, NothingRequestedNothingThrown) {
  EXPECT_FALSE(stop_requested());
  EXPECT_NO_THROW(throw_if_stopped());
  EXPECT_TRUE(sleep_unless_stopped(0.01));
}

TEST_F(StopTest, RequestThrowsInterruptedWithTheSignal) {
  request_stop(SIGTERM);
  EXPECT_TRUE(stop_requested());
  try {
    throw_if_stopped();
    FAIL() << "no Interrupted";
  } catch (const Interrupted& e) {
    EXPECT_EQ(e.signal(), SIGTERM);
    EXPECT_NE(std::string(e.what()).find("SIGTERM"), std::string::npos);
  }
  // Not a runtime_error: a command's error handler must not catch it as a failure.
  EXPECT_FALSE((std::is_base_of_v<std::runtime_error, Interrupted>));
}

TEST_F(StopTest, SleepWakesOnAStop) {
  request_stop(SIGINT);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(sleep_unless_stopped(60));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(50));
}

TEST_F(StopTest, SigtermSetsTheFlagEvenTwice) {
  install_stop_handlers();
  std::raise(SIGTERM);
  EXPECT_EQ(stop_signal(), SIGTERM);
  std::raise(SIGTERM);  // Slurm signals every process of a job: a repeat changes nothing
  EXPECT_EQ(stop_signal(), SIGTERM);
}

TEST_F(StopTest, SecondSigintKills) {
  EXPECT_EXIT(
      {
        install_stop_handlers();
        std::raise(SIGINT);
        if (!stop_requested()) std::_Exit(3);
        std::raise(SIGINT);
        std::_Exit(4);
      },
      ::testing::KilledBySignal(SIGINT), "");
}

TEST_F(StopTest, NoTestPointWithoutTheVariables) {
  EXPECT_NO_THROW(test_point("start"));
  EXPECT_NO_THROW(test_point("commit"));
}

}  // namespace
}  // namespace fuseki
