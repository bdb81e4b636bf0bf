#include "apps/verdicts.hpp"

#include <iomanip>
#include <ostream>
#include <sstream>

namespace tev {

std::string fixed(double x, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << x;
  return s.str();
}

std::string scientific(double x) {
  std::ostringstream s;
  s << std::scientific << std::setprecision(2) << x;
  return s.str();
}

std::vector<VerifierReport> check_every_verifier(std::span<const SuiteCase> suite, const ConfigFor& config_for,
                                                 std::ostream& progress) {
  std::vector<std::pair<VerifierInfo, CheckConfig>> chosen;
  for (const VerifierInfo& info : verifier_catalog()) {
    if (const std::optional<CheckConfig> config = config_for(info)) chosen.emplace_back(info, *config);
  }
  std::vector<VerifierReport> reports;
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    progress << "[" << k + 1 << "/" << chosen.size() << "] " << chosen[k].first.name << " ..." << std::flush;
    reports.push_back(check_verifier(chosen[k].first.id, suite, chosen[k].second));
    progress << " " << verdict_text(reports.back().verdict) << " (" << fixed(reports.back().elapsed_seconds, 1) << " s)\n";
  }
  return reports;
}

bool all_as_expected(std::span<const VerifierReport> reports) {
  bool passed = true;
  for (const VerifierReport& r : reports) passed = passed && r.as_expected;
  return passed;
}

void print_verdict_table(std::span<const VerifierReport> reports, std::ostream& out) {
  out << '\n'
      << std::left << std::setw(36) << "verifier" << std::setw(12) << "kind" << std::setw(6) << "trees" << std::setw(9)
      << "samples" << std::setw(10) << "min p(H)"
      << std::setw(23) << "verdict" << std::setw(9) << "mean L" << std::setw(9) << "1+C_p" << std::setw(10)
      << "exact TV" << std::setw(9) << "power" << "caught by\n";
  out << std::string(155, '-') << '\n';
  for (const VerifierReport& r : reports) {
    out << std::left << std::setw(36) << r.info.name << std::setw(12) << kind_name(r.info.kind) << std::setw(6)
        << r.trees.size() << std::setw(9) << r.samples_per_tree << std::setw(10)
        << scientific(r.min_p_holm) << std::setw(23) << verdict_text(r.verdict) << std::setw(9) << fixed(r.mean_length, 4)
        << std::setw(9) << fixed(r.mean_ceiling, 4) << std::setw(10) << (r.enumerated ? scientific(r.max_exact_tv) : "-");
    if (r.info.kind == VerifierKind::mutant) {
      out << std::setw(9) << (r.enumerated ? fixed(r.predicted_power, 3) : "-") << r.caught_by;
    } else {
      out << std::setw(9) << "-" << "-";
    }
    out << (r.as_expected ? "" : "   <-- UNEXPECTED") << '\n';
  }
}

nlohmann::json verifiers_json(std::span<const VerifierReport> reports) {
  nlohmann::json all = nlohmann::json::array();
  for (const VerifierReport& r : reports) {
    nlohmann::json v = {{"name", r.info.name},
                        {"kind", kind_name(r.info.kind)},
                        {"description", r.info.description},
                        {"exact", r.verdict != Verdict::not_exact},
                        {"saturated", r.verdict == Verdict::exact_saturated},
                        {"verdict", verdict_text(r.verdict)},
                        {"as_expected", r.as_expected},
                        {"trees", r.trees.size()},
                        {"samples_per_tree", r.samples_per_tree},
                        {"min_p_holm", r.min_p_holm},
                        {"min_acceptance_p_holm", r.min_acceptance_p_holm},
                        {"min_excess_p_holm", r.min_excess_p_holm},
                        {"mean_L", r.mean_length},
                        {"mean_ceiling", r.mean_ceiling},
                        {"sampling_says_exact", r.sampling_says_exact},
                        {"enumerated", r.enumerated},
                        {"enumeration_says_exact", r.enumeration_says_exact},
                        {"max_exact_tv", r.max_exact_tv},
                        {"seconds", r.elapsed_seconds}};
    if (r.info.kind == VerifierKind::mutant) {
      v["exact_tv"] = r.max_exact_tv;
      v["predicted_power"] = r.predicted_power;
      v["caught_by"] = r.caught_by;
    }
    for (const TreeEvidence& e : r.trees) {
      v["per_tree"].push_back({{"chi2", e.chi_square.statistic}, {"dof", e.chi_square.dof}, {"chi2_p", e.chi_square.p_value},
                               {"impossible", e.chi_square.impossible}, {"length_p", e.length_p},
                               {"mean_L", e.mean_length}, {"ceiling", e.ceiling}, {"completions", e.completions},
                               {"exact_tv", e.exact_tv}, {"exact_mean_L", e.exact_mean_length},
                               {"exact_completion", e.exact_completion}, {"predicted_power", e.predicted_power}});
    }
    all.push_back(v);
  }
  return all;
}

}  // namespace tev
