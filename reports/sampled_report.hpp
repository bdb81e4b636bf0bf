#pragma once
// `tevsuite check --drafts sampled`'s tables and JSON.
#include <iosfwd>
#include <nlohmann/json.hpp>

#include "experiments/sampled_check.hpp"

namespace tev::reports {

// The settings, the verdict table, TEV's E[L] against the q-based verifiers' on the same trees, the PASS line.
void print_sampled_check(const experiments::SampledCheckOptions& options,
                         const experiments::SampledCheckResult& result, std::ostream& out);
nlohmann::json sampled_check_json(const experiments::SampledCheckOptions& options,
                                  const experiments::SampledCheckResult& result);

}  // namespace tev::reports
