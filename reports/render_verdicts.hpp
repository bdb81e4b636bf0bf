#pragma once
// The equivalence reports of the commands that judge verifiers: `check`, `live`, `conformance`,
// `check --drafts sampled` and `live --drafts sampled`. Each shows the verdict per case (tree)
// with its p-values and its power at the verdict's level, the first failing case spelled out, the χ² bins farthest from
// the reference law, and per-node acceptance against P(u) where the tree is fixed.
// The sampled drafts' two are in render_sampled.cpp; what the documents share, in
// render_evidence.hpp.
#include <nlohmann/json.hpp>
#include <string>

#include "reports/document.hpp"
#include "reports/verdict_json.hpp"

namespace tev::reports {

// check or live (the same verifiers-by-trees layout; live trees also name drafter and builder).
reports::Document verifiers_document(const nlohmann::json& results, bool live);
reports::Document conformance_document(const nlohmann::json& results);
reports::Document model_conformance_document(const nlohmann::json& results);
reports::Document generation_conformance_document(const nlohmann::json& results);
reports::Document sampled_check_document(const nlohmann::json& results);
// live --drafts sampled: the first-word verdict per case, and tokens per round on the same trees.
reports::Document live_sampled_document(const nlohmann::json& results);

// What the terminal shows after a report: the overall verdict in one line, and the exit code the
// command that wrote the file returned.
struct VerdictSummary {
  std::string line;
  int exit_code = 0;
};
VerdictSummary verdict_summary(const nlohmann::json& results, ResultsKind kind);

}  // namespace tev::reports
