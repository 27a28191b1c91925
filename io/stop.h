// Stopping on request. Slurm stops a job (requeue, preemption, time limit, scancel) with SIGTERM
// and, KillWait seconds later, SIGKILL; a user stops one with Ctrl-C (SIGINT). The handlers only
// set a flag; long work polls it between games, training steps and waits, abandons what is in
// flight (a game in flight is replayed with the same seed when the command runs again), and
// unwinds with Interrupted, so every journal line, shard and lock is left as after a finished
// step. main() turns Interrupted into exit status 128 + the signal (143 for SIGTERM): never 0,
// so `afterok` does not fire on work that is not done, and the job stays requeueable.
// A second SIGINT kills the process at once (the default action).
#pragma once

#include <exception>
#include <string>

namespace fuseki {

// Installs the handlers for SIGTERM, SIGINT and SIGHUP. Safe to call more than once.
void install_stop_handlers();
bool stop_requested();
// The signal that asked for the stop (0 when none).
int stop_signal();
// Asks for a stop as the signal `sig` would (tests); clear_stop() forgets it.
void request_stop(int sig);
void clear_stop();

// Thrown where work stops on request; not a std::runtime_error, so that commands' error handlers
// do not turn a requested stop into a failure.
class Interrupted : public std::exception {
 public:
  explicit Interrupted(int sig);
  int signal() const { return sig_; }
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  int sig_;
  std::string what_;
};

// Throws Interrupted when a stop was requested.
void throw_if_stopped();
// Sleeps up to `seconds`, waking early on a stop request; false when a stop was requested.
bool sleep_unless_stopped(double seconds);

// Fault injection for the requeue tests (docs/cluster.md). With
//   FUSEKILAB_TEST_POINT=<name>[:pause|:hang|:fail]  and  FUSEKILAB_TEST_MARK=<file>
// (and, optionally, FUSEKILAB_TEST_TASK=<Slurm array task id> to limit it to that task), the
// first process to reach the point named creates the mark file (holding its pid) and then
//   pause: waits until it is asked to stop (at most 10 minutes), then goes on;
//   hang:  ignores stop requests for 10 minutes, so that only SIGKILL ends it;
// while `fail` throws std::runtime_error at that point in every process (a task that fails for
// good). Points: start (before the first game), game (in the middle of a game), commit (a shard
// half committed: its records written, its HDF5 file not yet), journal-rewrite (a non-empty
// journal written to its temporary file, not yet renamed), train (the third training step of a
// trainer's run), strength (a step of eval strength's games journalled), match (a step of a
// match's games journalled: `match --out`, the gating match). Without the variables:
// nothing.
void test_point(const char* name);

}  // namespace fuseki
