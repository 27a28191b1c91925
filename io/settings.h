// Refusing to resume a run directory with other settings: the one check of `init`, `eval table`
// and `eval first-move`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fuseki {

// The first line that differs between two settings texts (one setting per line), as
// "'seed = 1' here, 'seed = 2' asked".
std::string first_difference(const std::string& here, const std::string& asked);

// Settings as text, one "key = value" line per key (values as JSON).
std::string settings_text(const nlohmann::json& settings);

// When `path` exists, its settings must be `settings`: otherwise throws std::runtime_error
// "<path>: this directory holds a run with other settings ('seed = 1' here, 'seed = 2' asked);
// <hint>". When it does not, writes them there (atomically).
void keep_settings(const std::string& path, const nlohmann::json& settings,
                   const std::string& hint);
// The same check for a text file (a TOML config) compared as given; nothing is written.
void check_settings_text(const std::string& path, const std::string& here, const std::string& asked,
                         const std::string& hint);

}  // namespace fuseki
