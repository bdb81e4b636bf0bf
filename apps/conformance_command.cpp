#include "apps/conformance_command.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "conformance/files.hpp"
#include "conformance/judge.hpp"
#include "core/statistics.hpp"
#include "reports/verdict_json.hpp"

namespace tev {

namespace {

using namespace conformance;
using nlohmann::json;

std::ifstream open_input(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read " + path);
  return in;
}

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

std::string tv_text(const std::optional<double>& tv) { return tv ? num(*tv) : "none"; }

json report_json(const ConformanceReport& report) {
  json j;
  j["format_version"] = 2;
  j["command"] = "conformance";
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
    j["cases"].push_back(std::move(c));
  }
  return j;
}

int print_report(const ConformanceReport& report, const std::string& json_path, std::ostream& out) {
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
  if (!json_path.empty()) {
    std::ofstream file(json_path);
    file << report_json(report).dump(2) << '\n';
    if (!file) throw InputError("cannot write " + json_path);
    out << "wrote " << json_path << '\n';
  }
  return verdict_exit_code(report.overall);
}

// Writes the emitted lines and says what each case's chi-square detects at the default alpha.
// describe(line, k, level, power) reads line k back (every emitted case must) and returns its
// detectable TV at that level and power, and its progress line.
template <class Describe>
int write_emitted(const std::vector<std::string>& lines, std::uint64_t samples, const std::string& what, const std::string& out_path,
                  std::ostream& out, std::ostream& progress, Describe describe) {
  std::ofstream file(out_path);
  if (!file) throw InputError("cannot write " + out_path);
  // The level each case's chi-square is held to when `conformance check` judges all of them at its default alpha.
  const VerdictPolicy policy;
  const double level = policy.chi_square_level(lines.size());
  std::vector<double> tvs;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    file << lines[k] << '\n';
    const auto [tv, line] = describe(lines[k], k, level, policy.required_power);
    if (tv) tvs.push_back(*tv);
    progress << "  " << line << '\n';
  }
  if (!file) throw InputError("error writing " + out_path);
  std::sort(tvs.begin(), tvs.end());
  out << "wrote " << lines.size() << " " << what << " to " << out_path << " (" << samples << " samples each)\n";
  if (!tvs.empty()) {
    out << "judged at family alpha " << policy.alpha << " (chi-square level " << num(level) << " per case), each case detects a "
        << "contamination of TV >= " << num(tvs.front()) << " .. " << num(tvs.back()) << " (median " << num(tvs[tvs.size() / 2])
        << ") with 99 % power\n";
  }
  if (tvs.size() < lines.size()) out << lines.size() - tvs.size() << " case(s) detect no contamination at that level: they will be judged inconclusive\n";
  return 0;
}

}  // namespace

int run_conformance_emit(const EmitConfig& config, const std::string& out_path, std::ostream& out, std::ostream& progress) {
  return write_emitted(emit_cases(config), config.samples, "cases", out_path, out, progress,
                       [](const std::string& line, std::size_t k, double level, double power) {
                         const Case c = parse_case(line, "emitted case " + std::to_string(k));
                         return std::pair{detectable_tv(c.tree, c.rows, c.samples, level, power),
                                          c.id + ": " + std::to_string(c.tree.size()) + " nodes, depth " + std::to_string(c.tree.max_depth()) +
                                              ", V = " + std::to_string(c.tree.vocab) + " - " + c.label};
                       });
}

int run_conformance_emit_models(const ModelEmitConfig& config, const std::string& out_path, std::ostream& out, std::ostream& progress) {
  return write_emitted(emit_model_cases(config), config.samples, "model cases", out_path, out, progress,
                       [](const std::string& line, std::size_t k, double level, double power) {
                         const ModelCase c = parse_model_case(line, "emitted case " + std::to_string(k));
                         const std::vector<double> law = c.pair.sequence_law();
                         const auto groups = node_groups(static_cast<std::int32_t>(law.size() / static_cast<std::size_t>(c.pair.vocab())), c.pair.vocab());
                         return std::pair{detectable_tv(law, groups, c.samples, level, power),
                                          c.id + ": V = " + std::to_string(c.pair.vocab()) + ", D = " + std::to_string(c.depth) + ", hint " +
                                              c.drafting->label() + " - " + c.label};
                       });
}

int run_conformance_check(const std::string& cases_path, const std::string& samples_path, std::uint32_t seed, double alpha,
                          const std::string& json_path, std::ostream& out) {
  if (cases_file_version(cases_path) == kModelFormatVersion) {
    return print_model_report(check_model_files(cases_path, samples_path, seed, alpha), json_path, out);
  }
  return print_report(check_case_files(cases_path, samples_path, seed, alpha), json_path, out);
}

int run_conformance_run(const std::string& cases_path, const EmitConfig& emit, const ModelEmitConfig* model_emit, const RunOptions& options,
                        const std::string& json_path, std::ostream& out, std::ostream& progress) {
  std::ifstream file;
  std::istringstream emitted;
  if (cases_path.empty()) {
    std::string text;
    for (const std::string& line : model_emit ? emit_model_cases(*model_emit) : emit_cases(emit)) text += line + '\n';
    emitted.str(text);
  } else {
    file = open_input(cases_path);
  }
  std::istream& in = cases_path.empty() ? static_cast<std::istream&>(emitted) : file;
  const std::string source = cases_path.empty() ? "emitted cases" : cases_path;
  if (cases_path.empty() ? model_emit != nullptr : cases_file_version(cases_path) == kModelFormatVersion) {
    ModelCaseReader reader(in, source);
    return print_model_report(run_model_verifier_command(reader, options, progress), json_path, out);
  }
  CaseReader reader(in, source);
  return print_report(run_verifier_command(reader, options, progress), json_path, out);
}

}  // namespace tev
