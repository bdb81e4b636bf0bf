#pragma once
// The one JSON writer for each typed verdict result: every command that judges verifiers
// (check, live, theorem1, conformance, check --drafts sampled, live --drafts sampled) writes its evidence and verdicts
// through these.
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string_view>

#include "judging/verdicts.hpp"
#include "drafts/language_pair.hpp"
#include "judging/sampled_law.hpp"
#include "judging/verdict_policy.hpp"

namespace tev::reports {

// What a results file holds: every results file carries its kind's name as "kind", beside
// "format_version", so that `tevsuite report` knows how to render it.
enum class ResultsKind {
  theorem1,
  exittrain,
  check,
  sampled_check,
  live,
  live_sampled,
  conformance,
  conformance_model,
  conformance_batch,
  generation_check,
  conformance_generation
};
std::string_view results_kind_name(ResultsKind kind);

// A number, or null where there is none (a TV that no budget detects).
nlohmann::json optional_json(const std::optional<double>& x);
// The policy's levels: how the subject's α is split and what power rule holds.
nlohmann::json policy_json(const judging::VerdictPolicy& policy, std::size_t cases);
// The tests of independence of one stream, as run.
nlohmann::json iid_tests_json(std::span<const stats::IidTest> tests);
// One case's evidence and the policy's verdict on it, with the acceptance count per node and the
// χ² bins farthest from the canonical law (P(u) is the tree's: its writer records it once).
nlohmann::json evidence_json(const judging::TreeEvidence& e, const judging::CaseVerdict& verdict);
nlohmann::json verifier_json(const judging::VerifierReport& r);
// A case's tests of independence, one object per test: its name, samples or pairs counted, χ²,
// dof, p-value and worst-direction TV (null: none).
nlohmann::json iid_tests_json(std::span<const stats::IidTest> tests);
// One sampled-drafts case on one language pair, with the χ² bins (H-token sequences, or a tail
// of them) farthest from p's H-token law.
nlohmann::json sampled_pair_json(const judging::SampledEvidence& e,
                                 const drafts::LanguagePair& pair);
nlohmann::json verifiers_json(std::span<const judging::VerifierReport> reports);

}  // namespace tev::reports
