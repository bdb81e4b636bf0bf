#include "reports/verdict_json.hpp"

#include <cmath>

namespace tev {

namespace {
constexpr double kZ95 = 1.959963984540054;  // two-sided 95 % normal quantile
}

nlohmann::json optional_json(const std::optional<double>& x) { return x ? nlohmann::json(*x) : nlohmann::json(nullptr); }

nlohmann::json policy_json(const VerdictPolicy& policy, std::size_t cases) {
  return {{"alpha", policy.alpha},
          {"exactness_alpha", policy.exactness_alpha()},
          {"saturation_alpha", policy.saturation_alpha()},
          {"chi_square_level", policy.chi_square_level(cases)},
          {"required_power", policy.required_power},
          {"max_detectable_tv", policy.max_detectable_tv},
          {"exact_tolerance", policy.exact_tolerance}};
}

nlohmann::json evidence_json(const TreeEvidence& e, const CaseVerdict& verdict) {
  // A 95 % interval for E[L] from the sample standard deviation: descriptive (the test uses the exact law).
  const double half = e.samples > 0 ? kZ95 * e.length_sd / std::sqrt(static_cast<double>(e.samples)) : 0.0;
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
  if (e.enumerated) {
    j["exact_tv"] = e.exact_tv;
    j["exact_mean_L"] = e.exact_mean_length;
    j["exact_completion"] = e.exact_completion;
    j["predicted_power"] = e.predicted_power;
  }
  return j;
}

nlohmann::json verifier_json(const VerifierReport& r) {
  const SubjectVerdict& d = r.decision;
  nlohmann::json v = {{"name", r.info.name},
                      {"kind", kind_name(r.info.kind)},
                      {"description", r.info.description},
                      {"exact", r.verdict == Verdict::exact_saturated || r.verdict == Verdict::exact_not_saturated},
                      {"saturated", r.verdict == Verdict::exact_saturated},
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
  if (r.info.kind == VerifierKind::mutant) {
    v["exact_tv"] = r.max_exact_tv;
    v["predicted_power"] = r.predicted_power;
    v["caught_by"] = r.caught_by;
  }
  v["per_tree"] = nlohmann::json::array();
  for (std::size_t i = 0; i < r.trees.size(); ++i) v["per_tree"].push_back(evidence_json(r.trees[i], d.cases[i]));
  return v;
}

nlohmann::json verifiers_json(std::span<const VerifierReport> reports) {
  nlohmann::json all = nlohmann::json::array();
  for (const VerifierReport& r : reports) all.push_back(verifier_json(r));
  return all;
}

}  // namespace tev
