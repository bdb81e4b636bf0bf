#pragma once
// `tevsuite check`'s table and JSON.
#include <iosfwd>
#include <nlohmann/json.hpp>

#include "experiments/check_suite.hpp"

namespace tev::reports {

// The selftest's failures and summary, the suite, the settings, the verdict table and the PASS line.
void print_check(const experiments::CheckSuiteOptions& options,
                 const experiments::CheckSuiteResult& result, std::ostream& out);
// format_version 2: the config with the policy's levels, the trees, and every verifier's verdict and evidence.
nlohmann::json check_json(const experiments::CheckSuiteOptions& options,
                          const experiments::CheckSuiteResult& result);

}  // namespace tev::reports
