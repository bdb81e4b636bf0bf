#include "reports/theorem1.hpp"

#include <cmath>
#include <string>

#include "core/compensated_sum.hpp"
#include "core/exit_law.hpp"
#include "reports/verdict_json.hpp"

namespace tev::reports {

namespace {

using nlohmann::json;

json case_json(const workloads::CheckCase& c, const workloads::SyntheticOrigin& origin) {
  const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
  CompensatedSum total_exit;
  for (double w : law.exit) total_exit.add(w);
  return {{"label", c.label},
          {"shape", std::string(workloads::shape_name(origin.shape))},
          {"family", origin.family.label()},
          {"budget", c.tree.size() - 1},
          {"max_depth", c.tree.max_depth()},
          {"coverage", law.coverage},
          {"ceiling", law.ceiling()},
          {"exit_mass_error", std::abs(total_exit.value() - 1.0)},
          {"coverage_forms_gap", std::abs(law.coverage - law.coverage_by_depth)},
          {"draft_kl", origin.draft_kl},
          {"row_max_deviation", c.rows.max_deviation()}};
}

json series_json(const experiments::CalibrationSeries& s) {
  return {{"test", s.test},
          {"case", s.case_label},
          {"gates", s.gates},
          {"ks_statistic", s.ks.statistic},
          {"ks_p", s.ks.p_value},
          {"false_alarms_05", s.false_alarms_05},
          {"false_alarms_01", s.false_alarms_01},
          {"p_values", s.p_values}};
}

json curve_json(const experiments::PowerCurve& c) {
  json spots = json::array();
  for (const experiments::PowerSpotCheck& s : c.spot_checks) {
    spots.push_back({{"samples", s.samples},
                     {"replicates", s.replicates},
                     {"rejections", s.rejections},
                     {"predicted", s.predicted}});
  }
  return {{"name", c.name},
          {"exact_tv", c.exact_tv},
          {"budgets", c.budgets},
          {"predicted", c.predicted},
          {"budget_for_99", c.budget_for_99},
          {"power_at_default", c.power_at_default},
          {"spot_checks", spots},
          {"spot_check_note", c.spot_check_note}};
}

json sampled_row_json(const experiments::SampledTheoremRow& r, bool with_trees) {
  const judging::ConditionalExactness& c = r.conditional;
  json j = {{"case", r.c.label()},
            {"verifier", std::string(drafts::sampled_verifier_info(r.c.verifier).name)},
            {"drafting", r.c.drafting.label()},
            {"kind", std::string(drafts::sampled_kind_name(r.kind))},
            {"pair", r.pair},
            {"drafter", drafts::drafter_name(r.drafter)},
            {"realized_trees", c.trees},
            {"conditional_max_tv", c.max_tv},
            {"marginal_tv", r.marginal_tv},
            {"mean_L", c.mean_length},
            {"mean_ceiling", c.mean_ceiling},
            {"max_excess", c.max_excess_over_ceiling},
            {"min_excess", c.min_excess_over_ceiling},
            {"excess_mass", c.excess_mass},
            {"worst_tree", c.worst_tree},
            {"worst_tree_probability", c.worst.probability},
            {"worst_tree_mean_L", c.worst.mean_length},
            {"worst_tree_ceiling", c.worst.ceiling}};
  if (with_trees) {
    json trees = json::array();  // (trees) [P(T), 1 + C_p(T), E[L | T]]
    for (const judging::RealizedTree& t : c.per_tree)
      trees.push_back({t.probability, t.ceiling, t.mean_length});
    j["trees"] = std::move(trees);
  }
  return j;
}

json claim_json(const experiments::Claim& c) {
  return {
      {"claim", c.claim}, {"reference", c.reference}, {"evidence", c.evidence}, {"holds", c.holds}};
}

}  // namespace

json theorem1_json(const experiments::Theorem1Results& r) {
  const experiments::Theorem1Options& options = r.options;
  const std::vector<workloads::CheckCase>& cases = r.sweep.cases;
  json results;
  results["format_version"] = 1;
  results["command"] = "theorem1";
  results["kind"] = results_kind_name(ResultsKind::theorem1);
  json split = json::array();
  for (const char* name : experiments::theorem1_families())
    split.push_back({{"family", name}, {"alpha", r.family_alpha}});
  results["config"] = {{"quick", options.quick},
                       {"samples", options.samples},
                       {"vocab", options.vocab},
                       {"seed", options.seed},
                       {"threads", options.threads},
                       {"alpha", options.alpha},
                       {"alpha_split", split},
                       {"alpha_per_verifier", r.judging.verifier_alpha()},
                       {"verdict_policy", policy_json(r.judging.policy(), cases.size())},
                       {"calibration_seeds", options.calibration_seeds},
                       {"calibration_samples", options.calibration_samples},
                       {"composition_sequences", options.composition_sequences},
                       {"power_replicates", options.power_replicates}};

  results["sweep"]["cases"] = json::array();
  for (std::size_t i = 0; i < cases.size(); ++i)
    results["sweep"]["cases"].push_back(case_json(cases[i], r.sweep.origins[i]));
  for (const judging::VerifierReport& report : r.reports)
    results["sweep"]["verifiers"].push_back(verifier_json(report));

  json& accept = results["acceptance_showcase"];
  accept["case"] = r.showcase;
  accept["label"] = cases[r.showcase].label;
  accept["prefix"] = r.reports.front().trees[r.showcase].prefix;
  accept["depth"] = cases[r.showcase].tree.depth;
  for (const judging::VerifierReport& report : r.reports) {
    const judging::TreeEvidence& e = report.trees[r.showcase];
    std::vector<double> rate(e.accepted.size());
    for (std::size_t u = 0; u < rate.size(); ++u)
      rate[u] = static_cast<double>(e.accepted[u]) / static_cast<double>(options.samples);
    accept["verifiers"].push_back(
        {{"name", report.info.name}, {"kind", kind_name(report.info.kind)}, {"acceptance", rate}});
  }

  results["homogeneity"] = json::array();
  for (const experiments::HomogeneityResult& h : r.homogeneity)
    results["homogeneity"].push_back(
        {{"pair", h.pair}, {"min_p_holm", h.min_p_holm}, {"p_values", h.p_values}});

  json& calibration = results["calibration"];
  calibration["case"] = r.calibration_case;
  calibration["seeds"] = options.calibration_seeds;
  calibration["samples"] = options.calibration_samples;
  for (const experiments::CalibrationSeries& s : r.calibration)
    calibration["series"].push_back(series_json(s));

  json& pj = results["power"];
  pj["case"] = r.power.case_label;
  pj["alpha"] = r.power.config.alpha;
  pj["gates"] = false;  // descriptive: predictions and spot checks, in no claim
  pj["default_budget"] = r.power.config.default_budget;
  for (const experiments::PowerCurve& c : r.power.mutants) pj["mutants"].push_back(curve_json(c));
  for (const experiments::PowerCurve& c : r.power.contamination)
    pj["contamination"].push_back(curve_json(c));
  pj["smallest_detectable_tv"] = optional_json(r.power.smallest_detectable_tv);
  pj["power_at_tv_0006"] = r.power.power_at_tv_0006;

  json& cj = results["composition"];
  const experiments::CompositionConfig& composition = r.composition_config;
  cj["config"] = {{"vocab", composition.vocab},   {"tokens", composition.tokens},
                  {"budget", composition.budget}, {"depth", composition.depth},
                  {"rounds", composition.rounds}, {"sequences", composition.sequences}};
  for (const experiments::CompositionResult& c : r.composition) {
    cj["results"].push_back({{"verifier", c.verifier},
                             {"reuses_randomness", c.reuses_randomness},
                             {"chi2", c.chi_square.statistic},
                             {"dof", c.chi_square.dof},
                             {"p_value", c.chi_square.p_value},
                             {"tokens_per_round", c.tokens_per_round},
                             {"ceiling_per_round", c.ceiling_per_round}});
  }

  json& sj = results["sampled_drafts"];
  sj["config"] = {{"vocab", r.sampled_sizes.vocab},
                  {"depth", r.sampled_sizes.depth},
                  {"width", r.sampled_sizes.width},
                  {"horizon", r.sampled_sizes.horizon()},
                  {"exact_tolerance", experiments::kExactTolerance}};
  sj["rows"] = json::array();
  for (const experiments::SampledTheoremRow& row : r.sampled) {
    // The figure's trees: the first pair's q-based rows and TEV on the same policies.
    const bool figure = row.pair == r.sampled.front().pair &&
                        (row.kind == drafts::SampledKind::q_based ||
                         row.c.verifier == drafts::SampledVerifierId::tree_exit);
    sj["rows"].push_back(sampled_row_json(row, figure));
  }
  sj["seconds"] = r.sampled_seconds;

  results["claims"] = json::array();
  for (const experiments::Claim& c : r.claims) results["claims"].push_back(claim_json(c));
  results["passed"] = r.passed;
  results["seconds"] = r.seconds;
  return results;
}

}  // namespace tev::reports
