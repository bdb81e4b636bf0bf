#include "reports/conformance_report.hpp"

#include <iomanip>
#include <ostream>

#include "reports/document.hpp"
#include "reports/verdict_json.hpp"

namespace tev {

namespace {

using namespace conformance;
using nlohmann::json;
using report::num;

std::string tv_text(const std::optional<double>& tv) { return tv ? num(*tv) : "none"; }

}  // namespace

json conformance_json(const ConformanceReport& report) {
  json j;
  j["format_version"] = 2;
  j["command"] = "conformance";
  j["kind"] = results_kind_name(ResultsKind::conformance);
  j["alpha"] = report.policy.alpha;
  j["policy"] = policy_json(report.policy, report.cases.size());
  j["exactness_tests"] = report.exactness_tests;
  j["saturation_tests"] = report.saturation_tests;
  j["overall"] = verdict_text(report.overall);
  j["exit_code"] = verdict_exit_code(report.overall);
  j["first_failing_case"] = report.first_failing;
  for (const CaseResult& r : report.cases) {
    json c = evidence_json(r.evidence, r.decision);
    c["case_id"] = r.id;
    c["label"] = r.label;
    c["first_impossible"] = r.first_impossible;
    c["prefix"] = r.evidence.prefix;
    j["cases"].push_back(std::move(c));
  }
  return j;
}

int print_conformance(const ConformanceReport& report, std::ostream& out) {
  out << std::left << std::setw(6) << "case" << std::setw(10) << "samples" << std::setw(11) << "impossible" << std::setw(12)
      << "in-tree bon" << std::setw(11) << "exact p(H)" << std::setw(10) << "sat p(H)" << std::setw(9) << "mean L" << std::setw(9)
      << "1+C_p" << std::setw(11) << "TV@99%" << std::setw(23) << "verdict" << "what it exercises\n";
  for (const CaseResult& r : report.cases) {
    out << std::left << std::setw(6) << r.id << std::setw(10) << r.samples << std::setw(11) << r.impossible << std::setw(12)
        << r.evidence.completions << std::setw(11) << num(r.decision.exactness_p_holm) << std::setw(10) << num(r.decision.saturation_p_holm)
        << std::setw(9) << num(r.evidence.mean_length) << std::setw(9) << num(r.evidence.ceiling) << std::setw(11)
        << tv_text(r.evidence.detectable_tv) << std::setw(23) << verdict_text(r.decision.verdict) << r.label << '\n';
  }
  for (const CaseResult& r : report.cases) {
    if (r.impossible > 0) out << "impossible event (" << r.impossible << " in case " << r.id << "), first: " << r.first_impossible << '\n';
  }
  const VerdictPolicy& p = report.policy;
  out << "\nalpha " << p.alpha << " family-wise: " << p.exactness_alpha() << " for exactness (Holm over " << report.exactness_tests
      << " chi-square tests), " << p.saturation_alpha() << " for saturation (Holm over " << report.saturation_tests
      << " E[L] and per-node acceptance tests).\nTV@99%: the smallest contamination (toward uniform noise over possible blocks) "
      << "each case's chi-square detects with " << p.required_power * 100 << " % power at its Bonferroni level "
      << num(p.chi_square_level(report.cases.size())) << "; 'none': no contamination is detected that often.\nA case that "
      << "cannot detect TV " << p.max_detectable_tv << " is 'inconclusive' (exit 4): give it more samples.\n";
  out << "overall: " << verdict_text(report.overall);
  if (!report.first_failing.empty()) out << " (first such case: " << report.first_failing << ")";
  out << '\n';
  return verdict_exit_code(report.overall);
}

void print_emit_summary(const EmitSummary& s, const std::string& out_path, std::ostream& out) {
  out << "wrote " << s.cases << " cases to " << out_path << " (" << s.samples << " samples each)\n";
  const std::vector<double>& tvs = s.detectable_tvs;
  if (!tvs.empty()) {
    out << "judged at family alpha " << s.policy.alpha << " (chi-square level " << num(s.chi_square_level) << " per case), each case detects a "
        << "contamination of TV >= " << num(tvs.front()) << " .. " << num(tvs.back()) << " (median " << num(tvs[tvs.size() / 2])
        << ") with 99 % power\n";
  }
  if (s.undetectable > 0) out << s.undetectable << " case(s) detect no contamination at that level: they will be judged inconclusive\n";
}

}  // namespace tev
