#pragma once
// `tevsuite live --drafts sampled`'s tables and JSON.
#include <iosfwd>
#include <nlohmann/json.hpp>

#include "live/live_sampled.hpp"

namespace tev::reports {

// The target and drafters, the first-word table, tokens per round on the same sampled trees,
// TEV's generated text and the PASS line.
void print_live_sampled(const live::LiveSampledOptions& options,
                        const live::LiveSampledResult& result, std::ostream& out);
nlohmann::json live_sampled_json(const live::LiveSampledOptions& options,
                                 const live::LiveSampledResult& result);

}  // namespace tev::reports
