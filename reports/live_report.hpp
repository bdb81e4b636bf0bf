#pragma once
// `tevsuite live`'s tables and JSON.
#include <iosfwd>
#include <nlohmann/json.hpp>

#include "live/live_checks.hpp"

namespace tev {

// The target and drafters, the trees, the settings, the verdict table, the generation runs, the
// first-word test and the PASS line.
void print_live(const LiveOptions& options, const LiveResult& result, std::ostream& out);
nlohmann::json live_json(const LiveOptions& options, const LiveResult& result);

}  // namespace tev
