#include "reports/verdict_json.hpp"

#include <cmath>

namespace tev::reports {

namespace {
constexpr double kZ95 = 1.959963984540054;  // two-sided 95 % normal quantile

// A χ² bin's counts; `where` names its cells (node and token, or an H-token sequence). A pooled
// bin has no single cell: where stays empty and "cells" says how many it holds.
nlohmann::json deviation_json(const stats::BinDeviation& d, nlohmann::json where) {
  where["cells"] = d.cells;
  where["observed"] = d.observed;
  where["expected"] = d.expected;
  where["impossible"] = d.expected == 0.0;
  where["residual"] = d.expected == 0.0 ? nlohmann::json(nullptr) : nlohmann::json(d.residual);
  return where;
}

nlohmann::json index_or_null(std::int64_t i) {
  return i >= 0 ? nlohmann::json(i) : nlohmann::json(nullptr);
}
}  // namespace

std::string_view results_kind_name(ResultsKind kind) {
  switch (kind) {
    case ResultsKind::theorem1:
      return "theorem1";
    case ResultsKind::exittrain:
      return "exittrain";
    case ResultsKind::check:
      return "check";
    case ResultsKind::sampled_check:
      return "check-sampled-drafts";
    case ResultsKind::live:
      return "live";
    case ResultsKind::live_sampled:
      return "live-sampled";
    case ResultsKind::conformance:
      return "conformance";
    case ResultsKind::conformance_model:
      return "conformance-model-cases";
    case ResultsKind::conformance_batch:
      return "conformance-batch-cases";
    case ResultsKind::generation_check:
      return "check-generation";
    case ResultsKind::conformance_generation:
      return "conformance-generation-cases";
  }
  return "unknown";
}

nlohmann::json optional_json(const std::optional<double>& x) {
  return x ? nlohmann::json(*x) : nlohmann::json(nullptr);
}

nlohmann::json policy_json(const judging::VerdictPolicy& policy, std::size_t cases) {
  return {{"alpha", policy.alpha},
          {"exactness_alpha", policy.exactness_alpha()},
          {"saturation_alpha", policy.saturation_alpha()},
          {"chi_square_level", policy.chi_square_level(cases)},
          {"required_power", policy.required_power},
          {"max_detectable_tv", policy.max_detectable_tv},
          {"exact_tolerance", policy.exact_tolerance}};
}

nlohmann::json iid_tests_json(std::span<const stats::IidTest> tests) {
  nlohmann::json out = nlohmann::json::array();
  for (const stats::IidTest& t : tests) {
    out.push_back({{"test", t.name},
                   {"samples", t.samples},
                   {"chi2", t.result.statistic},
                   {"dof", t.result.dof},
                   {"p", t.result.p_value},
                   {"detectable_tv", optional_json(t.detectable_tv)}});
  }
  return out;
}

nlohmann::json evidence_json(const judging::TreeEvidence& e, const judging::CaseVerdict& verdict) {
  // A 95 % interval for E[L] from the sample standard deviation: descriptive (the test uses the exact law).
  const double half =
      e.samples > 0 ? kZ95 * e.length_sd / std::sqrt(static_cast<double>(e.samples)) : 0.0;
  nlohmann::json j = {{"samples", e.samples},
                      {"invalid", e.invalid},
                      {"chi2", e.chi_square.statistic},
                      {"dof", e.chi_square.dof},
                      {"chi2_p", e.chi_square.p_value},
                      {"impossible", e.chi_square.impossible},
                      {"mean_L", e.mean_length},
                      {"ci_low", e.mean_length - half},
                      {"ci_high", e.mean_length + half},
                      {"ceiling", e.ceiling},
                      {"shortfall_p", e.shortfall_p},
                      {"excess_p", e.excess_p},
                      {"completions", e.completions},
                      {"detectable_tv", optional_json(e.detectable_tv)},
                      {"exactness_p_holm", verdict.exactness_p_holm},
                      {"saturation_p_holm", verdict.saturation_p_holm},
                      {"powered", verdict.powered},
                      {"verdict", verdict_text(verdict.verdict)}};
  j["accepted"] = e.accepted;
  // completed_counts is (N, V): cell v·V + y is exit node v, next token y.
  const std::size_t vocab = e.prefix.empty() ? 0 : e.completed_counts.size() / e.prefix.size();
  j["largest_deviations"] = nlohmann::json::array();
  for (const stats::BinDeviation& d : e.largest_deviations) {
    const nlohmann::json token = d.cell >= 0
                                     ? nlohmann::json(static_cast<std::size_t>(d.cell) % vocab)
                                     : nlohmann::json(nullptr);
    j["largest_deviations"].push_back(
        deviation_json(d, {{"node", index_or_null(d.group)}, {"token", token}}));
  }
  j["iid_tests"] = iid_tests_json(e.iid_tests);
  j["stated_tv"] = optional_json(judging::stated_tv(e));
  if (e.enumerated) {
    j["exact_tv"] = e.exact_tv;
    j["exact_mean_L"] = e.exact_mean_length;
    j["exact_completion"] = e.exact_completion;
    j["predicted_power"] = e.predicted_power;
  }
  return j;
}

nlohmann::json verifier_json(const judging::VerifierReport& r) {
  const judging::SubjectVerdict& d = r.decision;
  nlohmann::json v = {{"name", r.info.name},
                      {"kind", kind_name(r.info.kind)},
                      {"description", r.info.description},
                      {"exact", r.verdict == judging::Verdict::exact_saturated ||
                                    r.verdict == judging::Verdict::exact_not_saturated ||
                                    r.verdict == judging::Verdict::exact_saturation_inconclusive},
                      {"saturated", r.verdict == judging::Verdict::exact_saturated},
                      {"verdict", verdict_text(r.verdict)},
                      {"as_expected", r.as_expected},
                      {"trees", r.trees.size()},
                      {"samples_per_tree", r.samples_per_tree},
                      {"exactness_tests", d.exactness_tests},
                      {"saturation_tests", d.saturation_tests},
                      {"min_exactness_p_holm", d.min_exactness_p_holm},
                      {"min_saturation_p_holm", d.min_saturation_p_holm},
                      {"mean_L", r.mean_length},
                      {"mean_ceiling", r.mean_ceiling},
                      {"sampling_says_exact", d.sampling_says_exact},
                      {"enumerated", r.enumerated},
                      {"enumeration_says_exact", d.enumeration_says_exact},
                      {"powered", d.powered},
                      {"max_exact_tv", r.max_exact_tv},
                      {"seconds", r.elapsed_seconds}};
  if (is_mutant(r.info.kind)) {
    v["exact_tv"] = r.max_exact_tv;
    v["predicted_power"] = r.predicted_power;
    v["caught_by"] = r.caught_by;
  }
  if (r.info.kind == VerifierKind::serial_mutant) v["pair_tv"] = r.max_pair_tv;
  v["per_tree"] = nlohmann::json::array();
  for (std::size_t i = 0; i < r.trees.size(); ++i)
    v["per_tree"].push_back(evidence_json(r.trees[i], d.cases[i]));
  return v;
}

nlohmann::json sampled_pair_json(const judging::SampledEvidence& e,
                                 const drafts::LanguagePair& pair) {
  nlohmann::json j = {{"exact_tv", e.exact.tv},
                      {"enumerated_branches", e.exact.branches},
                      {"conditional_max_tv", e.conditional.max_tv},
                      {"conditional_mean_tv", e.conditional.mean_tv},
                      {"realized_trees", e.conditional.trees},
                      {"max_excess_over_ceiling", e.conditional.max_excess_over_ceiling},
                      {"mean_ceiling", e.conditional.mean_ceiling},
                      {"exact_mean_L", e.exact.mean_length},
                      {"exact_var_L", e.exact.length_variance},
                      {"mean_L", e.counts.mean_length()},
                      {"chi_square", e.chi_square.statistic},
                      {"dof", e.chi_square.dof},
                      {"p_value", e.chi_square.p_value},
                      {"impossible", e.chi_square.impossible},
                      {"length_p_value", e.length_p_value},
                      {"predicted_power", e.predicted_power},
                      {"smallest_detectable_tv", optional_json(e.detectable_tv_toward)}};
  // Binned as judge_statistics bins them: groups are the first H − 1 tokens of a sequence.
  const std::vector<double> reference = pair.sequence_law();
  const auto vocab = static_cast<std::size_t>(pair.vocab());
  const auto groups =
      stats::node_groups(static_cast<std::int32_t>(reference.size() / vocab), pair.vocab());
  j["largest_deviations"] = nlohmann::json::array();
  for (const stats::BinDeviation& d :
       stats::largest_deviations(e.counts.cells, reference, groups, judging::kReportedDeviations)) {
    nlohmann::json sequence = nullptr;  // a cell is its H tokens read as a base-V number
    if (d.cell >= 0) {
      std::vector<std::size_t> tokens(static_cast<std::size_t>(pair.horizon()));
      auto rest = static_cast<std::size_t>(d.cell);
      for (auto t = tokens.rbegin(); t != tokens.rend(); ++t, rest /= vocab) *t = rest % vocab;
      sequence = tokens;
    }
    j["largest_deviations"].push_back(
        deviation_json(d, {{"sequence", sequence}, {"prefix_group", index_or_null(d.group)}}));
  }
  return j;
}

nlohmann::json verifiers_json(std::span<const judging::VerifierReport> reports) {
  nlohmann::json all = nlohmann::json::array();
  for (const judging::VerifierReport& r : reports) all.push_back(verifier_json(r));
  return all;
}

}  // namespace tev::reports
