#pragma once
// `tevsuite live --drafts sampled`'s tables and JSON.
#include <iosfwd>
#include <nlohmann/json.hpp>

#include "live/live_sampled.hpp"

namespace tev {

// The target and drafters, the first-word table, tokens per round on the same sampled trees,
// TEV's generated text and the PASS line.
void print_live_sampled(const LiveSampledOptions& options, const LiveSampledResult& result, std::ostream& out);
nlohmann::json live_sampled_json(const LiveSampledOptions& options, const LiveSampledResult& result);

}  // namespace tev
