#include "apps/verdicts.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "reports/verdict_json.hpp"

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
  std::vector<std::pair<VerifierInfo, JudgingConfig>> chosen;
  for (const VerifierInfo& info : verifier_catalog()) {
    if (const std::optional<JudgingConfig> config = config_for(info)) chosen.emplace_back(info, *config);
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

bool only_inconclusive_unexpected(std::span<const VerifierReport> reports) {
  bool any = false;
  for (const VerifierReport& r : reports) {
    if (r.as_expected) continue;
    if (r.verdict != Verdict::inconclusive) return false;
    any = true;
  }
  return any;
}

namespace {

// The largest detectable TV over the verifier's trees: what its weakest tree can see; "none" when
// some tree detects no TV at all.
std::string worst_detectable_tv(const VerifierReport& r) {
  double worst = 0.0;
  for (const TreeEvidence& e : r.trees) {
    if (!e.detectable_tv) return "none";
    worst = std::max(worst, *e.detectable_tv);
  }
  return scientific(worst);
}

}  // namespace

void print_verdict_table(std::span<const VerifierReport> reports, std::ostream& out) {
  out << '\n'
      << std::left << std::setw(36) << "verifier" << std::setw(12) << "kind" << std::setw(6) << "trees" << std::setw(9)
      << "samples" << std::setw(10) << "exact p" << std::setw(10) << "sat p" << std::setw(10) << "TV@99%"
      << std::setw(23) << "verdict" << std::setw(9) << "mean L" << std::setw(9) << "1+C_p" << std::setw(10)
      << "exact TV" << std::setw(9) << "power" << "caught by\n";
  out << std::string(175, '-') << '\n';
  for (const VerifierReport& r : reports) {
    out << std::left << std::setw(36) << r.info.name << std::setw(12) << kind_name(r.info.kind) << std::setw(6)
        << r.trees.size() << std::setw(9) << r.samples_per_tree << std::setw(10) << scientific(r.decision.min_exactness_p_holm)
        << std::setw(10) << scientific(r.decision.min_saturation_p_holm) << std::setw(10) << worst_detectable_tv(r)
        << std::setw(23) << verdict_text(r.verdict) << std::setw(9) << fixed(r.mean_length, 4)
        << std::setw(9) << fixed(r.mean_ceiling, 4) << std::setw(10) << (r.enumerated ? scientific(r.max_exact_tv) : "-");
    if (r.info.kind == VerifierKind::mutant) {
      out << std::setw(9) << (r.enumerated ? fixed(r.predicted_power, 3) : "-") << r.caught_by;
    } else {
      out << std::setw(9) << "-" << "-";
    }
    out << (r.as_expected ? "" : "   <-- UNEXPECTED") << '\n';
  }
  out << "exact p / sat p: smallest Holm-adjusted p of the verifier's exactness family (chi-square per tree) and saturation\n"
         "family (E[L] shortfall per tree, acceptance = P(u) per node), each at half the verifier's alpha. TV@99%: the\n"
         "largest over its trees of the smallest contamination TV the chi-square detects with 99 % power at its Bonferroni\n"
         "level; without enumeration a tree that cannot detect TV 0.05 is 'inconclusive'.\n";
}

nlohmann::json verifiers_json(std::span<const VerifierReport> reports) {
  nlohmann::json all = nlohmann::json::array();
  for (const VerifierReport& r : reports) all.push_back(verifier_json(r));
  return all;
}

}  // namespace tev
