#pragma once
// The one JSON writer for each typed verdict result: every command that judges verifiers
// (check, live, theorem1, conformance) writes its evidence and verdicts through these.
#include <nlohmann/json.hpp>
#include <optional>
#include <span>

#include "sim/verdicts.hpp"
#include "sim/verdict_policy.hpp"

namespace tev {

// A number, or null where there is none (a TV that no budget detects).
nlohmann::json optional_json(const std::optional<double>& x);
// The policy's levels: how the subject's α is split and what power rule holds.
nlohmann::json policy_json(const VerdictPolicy& policy, std::size_t cases);
// One case's evidence and the policy's verdict on it.
nlohmann::json evidence_json(const TreeEvidence& e, const CaseVerdict& verdict);
nlohmann::json verifier_json(const VerifierReport& r);
nlohmann::json verifiers_json(std::span<const VerifierReport> reports);

}  // namespace tev
