// USI engines as child processes: start, handshake, options, one search per move, and
// detection of every way an engine can fail (exit, hang past the per-move timeout, garbage).
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/player.h"

namespace fuseki {

struct UsiConfig {
  std::string name = "usi";
  std::string path;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> options;  // setoption name N value V
  // The option that selects the variant (Fairy-Stockfish: UCI_Variant); empty: the engine plays
  // shogi only. `variant` (the rule set's usi_variant) is set through it when the engine starts.
  std::string variant_option;
  std::string variant = "shogi";
  uint64_t nodes = 0;       // go nodes N
  int depth = 0;            // go depth D
  int movetime_ms = 0;      // go btime 0 wtime 0 byoyomi T
  double move_timeout = 0;  // seconds before a search counts as hung; 0: 10 s + 3 x movetime
  double startup_timeout = 15;
  // Sending this option again (its configured value, else the engine's default) clears every
  // cache the engine's search keeps, as a new process would start: Fairy-Stockfish's `Threads`
  // rebuilds its search threads with their tables, which `usinewgame` leaves. Empty: before each
  // game after its first, the process is started again; an engine whose "id name" names
  // Stockfish gets Threads. Either way only for a search limited by nodes or depth, which can
  // repeat itself; a timed search never does.
  std::string reset_option;
};

struct EngineError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An engine's `go perft` (Fairy-Stockfish): leaves per root move and in all.
struct UsiPerft {
  uint64_t nodes = 0;
  double seconds = 0;  // from sending `go perft` to reading the total
  std::map<std::string, uint64_t> divide;
};

// One engine process. Every call that talks to it throws EngineError when it fails.
class UsiEngine {
 public:
  explicit UsiEngine(UsiConfig config) : config_(std::move(config)) {}
  ~UsiEngine() { stop(); }
  UsiEngine(const UsiEngine&) = delete;
  UsiEngine& operator=(const UsiEngine&) = delete;

  void start();  // spawn, usi/usiok, options, isready/readyok
  void stop();   // quit, then kill if it lingers; safe to call twice
  bool running() const { return pid_ > 0; }
  // usinewgame; a process that has played a game since it started is first reset (see
  // UsiConfig::reset_option), so a game does not depend on the games played before it.
  void new_game();
  // position + go; returns the bestmove token ("7g7f", "resign", "win").
  std::string best_move(const std::string& position_command);
  // The same search; also the last score its info lines gave, in centipawns from the mover's
  // side ("score mate N": +-MATE), nullopt when they gave none.
  std::string best_move(const std::string& position_command, std::optional<int>& score);
  // position + `go perft depth` (the position set before the clock starts).
  UsiPerft perft(const std::string& sfen, int depth, double timeout = 600);
  const UsiConfig& config() const { return config_; }
  int starts() const { return starts_; }
  // Starts made to begin a game afresh, not to recover from a failure.
  int renewals() const { return renewals_; }

 private:
  void send(const std::string& line);
  // The next output line, waiting until `deadline` (steady-clock seconds).
  std::string read_line(double deadline, const std::string& waiting_for);
  // Reads lines until one starts with `prefix`; returns it.
  std::string read_until(const std::string& prefix, double timeout,
                         std::vector<std::string>* skipped = nullptr);
  double move_timeout() const;

  UsiConfig config_;
  pid_t pid_ = -1;
  int to_engine_ = -1, from_engine_ = -1;
  std::string buffer_;
  int starts_ = 0, renewals_ = 0;
  int games_ = 0;                                  // games begun since the process started
  std::map<std::string, std::string> advertised_;  // option name -> its "option name" line
  std::string reset_option_;  // config_.reset_option, or the one its "id name" implies
  std::string reset_value_;   // what it is set to between games; empty: a new process instead
};

// A USI engine as a player. A failure stops the process (the next decision restarts it) and is
// reported as Decision::Failure, so the match driver can replay the game or void it.
class UsiPlayer : public Player {
 public:
  explicit UsiPlayer(UsiConfig config) : engine_(std::move(config)) {}
  std::string name() const override { return engine_.config().name; }
  void prepare() override {
    if (!engine_.running()) engine_.start();
  }
  void new_game(uint64_t seed) override;
  Decision decide(const Game& game) override;
  std::optional<int> evaluate(const Game& game) override;
  // Starts after a failure.
  int restarts() const {
    return engine_.starts() > 0 ? engine_.starts() - 1 - engine_.renewals() : 0;
  }

 private:
  UsiEngine engine_;
  bool fresh_game_ = true;
};

}  // namespace fuseki
