#include "io/stop.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace fuseki {
namespace {

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free,
              "the handler may only touch lock-free atomics");

extern "C" void on_stop_signal(int sig) {
  int expected = 0;
  if (!g_signal.compare_exchange_strong(expected, sig) && expected == sig && sig == SIGINT) {
    // Ctrl-C again: the user insists; die as the signal would. (A repeated SIGTERM changes
    // nothing: Slurm signals every process of a job, and SIGKILL follows after KillWait.)
    std::signal(sig, SIG_DFL);
    ::raise(sig);
  }
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "signal " + std::to_string(sig);
  }
}

struct TestPoint {
  std::string name, action, mark;
  bool active = false;
};

const TestPoint& configured_point() {
  static const TestPoint point = [] {
    TestPoint p;
    const char* spec = std::getenv("FUSEKILAB_TEST_POINT");
    if (!spec || !*spec) return p;
    std::string s = spec;
    size_t colon = s.find(':');
    p.name = s.substr(0, colon);
    p.action = colon == std::string::npos ? "pause" : s.substr(colon + 1);
    if (p.action != "pause" && p.action != "hang" && p.action != "fail")
      throw std::runtime_error("FUSEKILAB_TEST_POINT='" + s +
                               "': the action must be pause, hang or fail");
    const char* mark = std::getenv("FUSEKILAB_TEST_MARK");
    p.mark = mark ? mark : "";
    if (p.action != "fail" && p.mark.empty())
      throw std::runtime_error("FUSEKILAB_TEST_POINT is set but FUSEKILAB_TEST_MARK is not");
    const char* task = std::getenv("FUSEKILAB_TEST_TASK");
    const char* here = std::getenv("SLURM_ARRAY_TASK_ID");
    p.active = !task || !*task || (here && std::strcmp(task, here) == 0);
    return p;
  }();
  return point;
}

}  // namespace

void install_stop_handlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // file writes and reads go on; waits poll the flag
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaction(sig, &sa, nullptr);
}

bool stop_requested() { return g_signal.load(std::memory_order_relaxed) != 0; }
int stop_signal() { return g_signal.load(std::memory_order_relaxed); }
void request_stop(int sig) { g_signal.store(sig); }
void clear_stop() { g_signal.store(0); }

Interrupted::Interrupted(int sig)
    : sig_(sig), what_("stopped by " + signal_name(sig) + " before the work was done") {}

void throw_if_stopped() {
  if (int sig = stop_signal()) throw Interrupted(sig);
}

bool sleep_unless_stopped(double seconds) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point end =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(std::max(0.0, seconds)));
  while (!stop_requested()) {
    Clock::time_point now = Clock::now();
    if (now >= end) return true;
    Clock::duration step = std::chrono::milliseconds(20);
    std::this_thread::sleep_for(std::min(step, end - now));
  }
  return false;
}

void test_point(const char* name) {
  const TestPoint& p = configured_point();
  if (!p.active || p.name != name) return;
  if (p.action == "fail")
    throw std::runtime_error(std::string("a failure injected at test point '") + name +
                             "' (FUSEKILAB_TEST_POINT)");
  // Only the first process to get here: the mark is created exclusively.
  int fd = ::open(p.mark.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return;
  std::string pid = std::to_string(::getpid()) + " " + name + "\n";
  if (::write(fd, pid.data(), pid.size()) < 0) {
  }
  ::close(fd);
  auto end = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  while (std::chrono::steady_clock::now() < end) {
    if (p.action == "pause" && stop_requested()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace fuseki
