// The match driver: plays a game to its end between two players through the arbiter, replaying
// it when an engine fails, and voiding it when the failures persist.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "engine/game.h"
#include "engine/player.h"
#include "engine/usi.h"

namespace fuseki {

// Plays `initial` to its end; `seed` seeds both players. An engine failure (crash, hang,
// garbage) replays the game from `initial` up to `retries` times, then the game is void. On a
// stop request (io/stop.h) it returns the game unfinished (not over): callers must not keep it.
Game play_game(const Game& initial, Player& sente, Player& gote, uint64_t seed, int retries = 2);

// Completes the placement phase with uniformly random legal drops (and, in Balance, a random
// side choice) from the game seed's placement stream: the uniform placers of engine/placer.h,
// so self-play with them places a game seed's game the same.
void random_placement(Game& game, uint64_t game_seed);

// The program's path: PATH, then /usr/games and /usr/local/games; the name itself if not found.
std::string find_program(const std::string& name);

// Fairy-Stockfish as the test oracle and benchmark peer: $FUSEKILAB_FSF, else found like
// find_program; nullopt when it is not installed. Variant shogi, one thread.
std::optional<UsiConfig> fairy_stockfish_oracle();

// USI engines known by name; the built-in defaults (fairy-stockfish, gpsusi) can be overridden.
using EngineRegistry = std::map<std::string, UsiConfig>;
EngineRegistry default_engines();

// ENGINE specs: "builtin[:nodes=N][:depth=D][:movetime=MS][:noise=CP]", "random",
// "usi:PATH[:nodes=N|depth=D|movetime=MS][:timeout=S]" or a registry name with the same options
// (timeout: seconds before a search counts as hung).
// Throws std::invalid_argument naming the bad part.
// USI engines also take their own options: `usi:PATH:Threads=1:USI_Hash=64`,
// `fairy-stockfish:nodes=500:Threads=2` (checked against what the engine advertises when it
// starts). `rules` selects the variant an engine that plays several is told (UCI_Variant).
std::unique_ptr<Player> make_player(const std::string& spec, const EngineRegistry& engines,
                                    RuleSet rules = RuleSet::Shogi);

// The spec parses as make_player's (no engine is started): for settings checked when they are
// read, before any file is written. Throws std::runtime_error naming the bad part.
void check_engine_spec(const std::string& spec);

}  // namespace fuseki
