#pragma once
// `tevsuite live --drafts sampled`'s tables and JSON.
#include <iosfwd>
#include <nlohmann/json.hpp>

#include "harness/sampled_live.hpp"

namespace tev {

// The target and drafters, the first-word table, tokens per round on the same sampled trees,
// TEV's generated text and the PASS line.
void print_live_sampled(const SampledLiveOptions& options, const SampledLiveResult& result, std::ostream& out);
nlohmann::json live_sampled_json(const SampledLiveOptions& options, const SampledLiveResult& result);

}  // namespace tev
