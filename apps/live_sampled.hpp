#pragma once
// `tevsuite live --drafts sampled`: the q-based verifiers and TEV on trees sampled from a live
// drafter (harness/sampled_live.hpp), printed and written as JSON.
#include <iosfwd>
#include <string>

#include "harness/models.hpp"
#include "harness/sampled_live.hpp"

namespace tev {

// Returns 0 when every verdict is the one its kind calls for, 4 when only unpowered
// ('inconclusive') exact verifiers stand in the way, 1 otherwise.
int run_live_sampled(const ModelRequest& models, const SampledLiveOptions& options, const std::string& json_path, std::ostream& out,
                     std::ostream& progress);

}  // namespace tev
