#include "io/settings.h"

#include <unistd.h>

#include <sstream>
#include <stdexcept>

#include "io/atomic_file.h"

namespace fuseki {

std::string first_difference(const std::string& here, const std::string& asked) {
  std::istringstream a(here), b(asked);
  std::string la, lb;
  while (true) {
    bool ga = bool(std::getline(a, la)), gb = bool(std::getline(b, lb));
    if (!ga && !gb) return "no difference";
    if (!ga) la.clear();
    if (!gb) lb.clear();
    if (la != lb) return "'" + la + "' here, '" + lb + "' asked";
  }
}

std::string settings_text(const nlohmann::json& settings) {
  std::string out;
  for (const auto& [key, value] : settings.items()) out += key + " = " + value.dump() + "\n";
  return out;
}

void check_settings_text(const std::string& path, const std::string& here, const std::string& asked,
                         const std::string& hint) {
  if (here != asked)
    throw std::runtime_error(path + ": this directory holds a run with other settings (" +
                             first_difference(here, asked) + "); " + hint);
}

void keep_settings(const std::string& path, const nlohmann::json& settings,
                   const std::string& hint) {
  if (::access(path.c_str(), F_OK) != 0) {
    write_file_atomically(path, settings.dump(1) + "\n");  // a new run
    return;
  }
  nlohmann::json before;
  try {
    before = nlohmann::json::parse(read_file(path));  // an unreadable file throws, naming it
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error(path + ": not a settings file (unreadable JSON); " + hint);
  }
  check_settings_text(path, settings_text(before), settings_text(settings), hint);
}

}  // namespace fuseki
