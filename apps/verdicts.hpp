#pragma once
// Runs every verifier of the catalog on a suite and reports the verdicts: the table and JSON that
// `tevsuite check` and `tevsuite live` share.
#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/verdicts.hpp"

namespace tev {

std::string fixed(double x, int digits);
std::string scientific(double x);

// config_for(verifier) gives each verifier's settings (samples may differ with its cost), or
// nothing to leave the verifier out.
using ConfigFor = std::function<std::optional<JudgingConfig>(const VerifierInfo&)>;
std::vector<VerifierReport> check_every_verifier(std::span<const SuiteCase> suite, const ConfigFor& config_for,
                                                 std::ostream& progress);
bool all_as_expected(std::span<const VerifierReport> reports);
// True when every verifier not judged as its kind requires is "inconclusive" (and at least one
// is): the run lacked samples, and the command exits 4 rather than 1.
bool only_inconclusive_unexpected(std::span<const VerifierReport> reports);
void print_verdict_table(std::span<const VerifierReport> reports, std::ostream& out);
nlohmann::json verifiers_json(std::span<const VerifierReport> reports);

}  // namespace tev
