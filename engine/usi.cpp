#include "engine/usi.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "rules/notation.h"

extern char** environ;

namespace fuseki {
namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Writing to an engine that died must report an error, not kill us.
void ignore_sigpipe() {
  static bool done = [] {
    signal(SIGPIPE, SIG_IGN);
    return true;
  }();
  (void)done;
}

// A well-formed USI move (legal or not): 7g7f, 7g7f+, P*7f. Anything else is garbage.
bool looks_like_usi_move(const std::string& m) {
  auto file = [](char c) { return c >= '1' && c <= '9'; };
  auto rank = [](char c) { return c >= 'a' && c <= 'i'; };
  if (m.size() == 4 && m[1] == '*')
    return std::isupper(static_cast<unsigned char>(m[0])) && file(m[2]) && rank(m[3]);
  if (m.size() == 4 || (m.size() == 5 && m[4] == '+'))
    return file(m[0]) && rank(m[1]) && file(m[2]) && rank(m[3]);
  return false;
}

}  // namespace

double UsiEngine::move_timeout() const {
  if (config_.move_timeout > 0) return config_.move_timeout;
  return 10.0 + 3.0 * config_.movetime_ms / 1000.0;
}

void UsiEngine::start() {
  ignore_sigpipe();
  stop();
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0)
    throw EngineError(config_.name + ": pipe: " + std::strerror(errno));
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    throw EngineError(config_.name + ": pipe: " + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(config_.path.c_str()));
  for (auto& a : config_.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, config_.path.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    throw EngineError(config_.name + ": cannot start '" + config_.path + "': " + std::strerror(rc));
  }
  pid_ = pid;
  to_engine_ = in[1];
  from_engine_ = out[0];
  buffer_.clear();
  ++starts_;
  games_ = 0;
  send("usi");
  std::vector<std::string> lines;
  read_until("usiok", config_.startup_timeout, &lines);
  advertised_.clear();
  reset_option_ = config_.reset_option;
  for (const std::string& l : lines) {
    if (l.rfind("option name ", 0) == 0) {
      size_t end = l.find(" type ", 12);
      advertised_[l.substr(12, end == std::string::npos ? end : end - 12)] = l;
    }
    // The Stockfish family given as usi:PATH resets as the named engine does, not by a new
    // process (about 0.3 s for Fairy-Stockfish, against 10 ms).
    if (reset_option_.empty() && l.rfind("id name ", 0) == 0 &&
        l.find("Stockfish") != std::string::npos)
      reset_option_ = "Threads";
  }
  // The reset option's configured value, else the engine's default ("option name N type spin
  // default V ..."); without either, games after the first get a new process.
  reset_value_.clear();
  if (auto it = advertised_.find(reset_option_);
      !reset_option_.empty() && it != advertised_.end()) {
    for (auto& [name, v] : config_.options)
      if (name == reset_option_) reset_value_ = v;
    std::istringstream words(it->second);
    for (std::string word; reset_value_.empty() && words >> word;)
      if (word == "default") words >> reset_value_;
  }
  // Options an engine does not have are ignored by it in silence: refuse them here (an engine
  // that advertises no option at all gets them as given, as do the protocol's own USI_Hash and
  // USI_Ponder, which engines need not advertise).
  auto known = [&](const std::string& name) {
    return advertised_.empty() || advertised_.count(name) > 0 || name == "USI_Hash" ||
           name == "USI_Ponder";
  };
  auto refuse = [&](const std::string& why) {
    stop();
    throw EngineError(config_.name + ": " + why);
  };
  // An engine that offers variants is told the rule set's one even when started as usi:PATH.
  // Fairy-Stockfish calls the option UCI_Variant; later versions, in USI mode, USI_Variant.
  std::string variant_option = config_.variant_option;
  if (variant_option.empty())
    for (const char* name : {"UCI_Variant", "USI_Variant"})
      if (advertised_.count(name)) variant_option = name;
  for (auto& [name, value] : config_.options) {
    if (!known(name)) {
      std::string have;
      for (auto& [n, line] : advertised_) have += (have.empty() ? "" : ", ") + n;
      refuse("no option '" + name + "' (it has: " + have + ")");
    }
    if (name != variant_option) send("setoption name " + name + " value " + value);
  }
  // The variant: through the variant option, which must offer it ("var yarishogi" in a combo).
  if (variant_option.empty()) {
    if (config_.variant != "shogi") refuse("plays shogi only, not " + config_.variant);
  } else {
    auto it = advertised_.find(variant_option);
    if (it != advertised_.end() && it->second.find(" type combo ") != std::string::npos &&
        (it->second + " ").find(" var " + config_.variant + " ") == std::string::npos)
      refuse("this build of the engine does not know the variant '" + config_.variant + "' (" +
             variant_option + " offers no such value)");
    send("setoption name " + variant_option + " value " + config_.variant);
  }
  send("isready");
  read_until("readyok", config_.startup_timeout);
}

void UsiEngine::stop() {
  if (pid_ <= 0) return;
  if (to_engine_ >= 0) {
    const char quit[] = "quit\n";
    ssize_t ignored = write(to_engine_, quit, sizeof(quit) - 1);
    (void)ignored;
  }
  // Give it a moment to leave on its own, then make sure.
  for (int i = 0; i < 20; ++i) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    usleep(5000);
  }
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  if (to_engine_ >= 0) close(to_engine_);
  if (from_engine_ >= 0) close(from_engine_);
  to_engine_ = from_engine_ = -1;
}

void UsiEngine::send(const std::string& line) {
  std::string data = line + "\n";
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(to_engine_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw EngineError(config_.name + ": the engine stopped reading (exited?)");
    done += size_t(n);
  }
}

std::string UsiEngine::read_line(double deadline, const std::string& waiting_for) {
  while (true) {
    size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    if (buffer_.size() > (1 << 20))
      throw EngineError(config_.name + ": garbage output (1 MiB without a line)");
    double left = deadline - now();
    if (left <= 0) throw EngineError(config_.name + ": no '" + waiting_for + "' in time (hung)");
    pollfd p{from_engine_, POLLIN, 0};
    int r = poll(&p, 1, int(left * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char chunk[4096];
    ssize_t n = read(from_engine_, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw EngineError(config_.name + ": the engine exited while we waited for '" + waiting_for +
                        "'");
    buffer_.append(chunk, size_t(n));
  }
}

std::string UsiEngine::read_until(const std::string& prefix, double timeout,
                                  std::vector<std::string>* skipped) {
  double deadline = now() + timeout;
  while (true) {
    std::string line = read_line(deadline, prefix);
    if (line.compare(0, prefix.size(), prefix) == 0) return line;
    if (skipped) skipped->push_back(line);
  }
}

UsiPerft UsiEngine::perft(const std::string& sfen, int depth, double timeout) {
  if (!running()) start();
  send("position sfen " + sfen);
  send("isready");
  read_until("readyok", config_.startup_timeout);
  UsiPerft result;
  double t0 = now(), deadline = t0 + timeout;
  send("go perft " + std::to_string(depth));
  uint64_t sum = 0;
  while (true) {
    std::string line = read_line(deadline, "Nodes searched");
    if (line.rfind("Nodes searched:", 0) == 0) {
      result.seconds = now() - t0;
      result.nodes = std::strtoull(line.c_str() + 15, nullptr, 10);
      if (!result.divide.empty() && sum != result.nodes)
        throw EngineError(config_.name + ": perft total " + std::to_string(result.nodes) +
                          " is not the sum of its root moves " + std::to_string(sum));
      return result;
    }
    // Root move lines: "<move>: <count>".
    size_t colon = line.find(": ");
    if (colon == std::string::npos || colon == 0 || line.find(' ') < colon) continue;
    std::string count = line.substr(colon + 2);
    if (count.empty() || count.find_first_not_of("0123456789") != std::string::npos) continue;
    uint64_t n = std::stoull(count);
    result.divide[line.substr(0, colon)] = n;
    sum += n;
  }
}

void UsiEngine::new_game() {
  if (!running()) {
    start();
  } else if (games_ > 0 && (config_.nodes > 0 || config_.depth > 0) && config_.movetime_ms == 0) {
    if (reset_value_.empty()) {
      start();
      ++renewals_;
    } else {
      send("setoption name " + reset_option_ + " value " + reset_value_);
    }
  }
  ++games_;
  send("usinewgame");
  send("isready");
  read_until("readyok", config_.startup_timeout);
}

std::string UsiEngine::best_move(const std::string& position_command) {
  std::optional<int> ignored;
  return best_move(position_command, ignored);
}

std::string UsiEngine::best_move(const std::string& position_command, std::optional<int>& score) {
  if (!running()) start();
  send(position_command);
  std::string go = "go";
  if (config_.nodes) go += " nodes " + std::to_string(config_.nodes);
  if (config_.depth) go += " depth " + std::to_string(config_.depth);
  if (config_.movetime_ms) go += " btime 0 wtime 0 byoyomi " + std::to_string(config_.movetime_ms);
  if (go == "go") go += " depth 1";
  send(go);
  std::vector<std::string> info;
  std::string line = read_until("bestmove", move_timeout(), &info);
  score.reset();
  for (const std::string& l : info) {  // the last score given is the search's
    size_t at = l.find(" score ");
    if (l.rfind("info", 0) != 0 || at == std::string::npos) continue;
    std::istringstream in(l.substr(at + 7));
    std::string kind, value;
    if (!(in >> kind >> value)) continue;
    if (kind == "mate") score = value[0] == '-' ? -MATE : MATE;  // "mate -0": mated now
    if (kind == "cp") {
      char* end = nullptr;
      long cp = std::strtol(value.c_str(), &end, 10);
      if (end && *end == '\0') score = int(std::clamp(cp, -long(MATE), long(MATE)));
    }
  }
  size_t start = line.find_first_not_of(' ', 8);
  if (start == std::string::npos) throw EngineError(config_.name + ": garbage: '" + line + "'");
  size_t end = line.find(' ', start);
  return line.substr(start, end == std::string::npos ? end : end - start);
}

void UsiPlayer::new_game(uint64_t) { fresh_game_ = true; }

namespace {

std::string position_command(const Game& game) {
  std::string cmd = "position sfen " + game.play_start_sfen();
  std::vector<Move> moves = game.play_moves_list();
  if (!moves.empty()) {
    cmd += " moves";
    for (Move m : moves) {
      cmd += ' ';
      cmd += move_to_usi(m, game.position().variant());
    }
  }
  return cmd;
}

}  // namespace

std::optional<int> UsiPlayer::evaluate(const Game& game) {
  try {
    if (fresh_game_) {
      engine_.new_game();
      fresh_game_ = false;
    }
    std::optional<int> score;
    engine_.best_move(position_command(game), score);
    return score;
  } catch (const EngineError&) {
    engine_.stop();
    fresh_game_ = true;
    return std::nullopt;
  }
}

Decision UsiPlayer::decide(const Game& game) {
  std::string cmd = position_command(game);
  try {
    if (fresh_game_) {
      engine_.new_game();
      fresh_game_ = false;
    }
    std::string best = engine_.best_move(cmd);
    if (best == "resign") return {Decision::Resign, "", ""};
    if (best == "win") return {Decision::Declare, "", ""};
    if (!looks_like_usi_move(best)) throw EngineError(name() + ": garbage bestmove '" + best + "'");
    return {Decision::Play, best, ""};
  } catch (const EngineError& e) {
    engine_.stop();
    fresh_game_ = true;
    return {Decision::Failure, "", e.what()};
  }
}

}  // namespace fuseki
