#pragma once
// `tevsuite live`'s tables and JSON.
#include <iosfwd>
#include <nlohmann/json.hpp>

#include "live/live_checks.hpp"

namespace tev::reports {

// The target and drafters, the trees, the settings, the verdict table, the generation runs, the
// first-word test and the PASS line.
void print_live(const live::LiveOptions& options, const live::LiveResult& result,
                std::ostream& out);
nlohmann::json live_json(const live::LiveOptions& options, const live::LiveResult& result);

}  // namespace tev::reports
