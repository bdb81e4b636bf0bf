#include "apps/conformance_command.hpp"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "conformance/judge.hpp"
#include "core/statistics.hpp"
#include "reports/verdict_json.hpp"

namespace tev {

namespace {

using namespace conformance;
using nlohmann::json;

bool blank(const std::string& line) { return line.find_first_not_of(" \t\r") == std::string::npos; }

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

}  // namespace

int run_conformance_emit(const EmitConfig& config, const std::string& out_path, std::ostream& out, std::ostream& progress) {
  std::ofstream file(out_path);
  if (!file) throw InputError("cannot write " + out_path);
  const std::vector<std::string> lines = emit_cases(config);
  // The level each case's chi-square is held to when `conformance check` judges all of them at its default alpha.
  const VerdictPolicy policy;
  const double level = policy.chi_square_level(lines.size());
  std::vector<double> tvs;
  std::size_t undetectable = 0;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    file << lines[k] << '\n';
    const Case c = parse_case(lines[k], "emitted case " + std::to_string(k));  // every emitted case must read back
    const std::optional<double> tv = detectable_tv(c.tree, c.rows, c.samples, level, policy.required_power);
    if (tv) {
      tvs.push_back(*tv);
    } else {
      ++undetectable;
    }
    progress << "  " << c.id << ": " << c.tree.size() << " nodes, depth " << c.tree.max_depth() << ", V = " << c.tree.vocab << " - " << c.label << '\n';
  }
  if (!file) throw InputError("error writing " + out_path);
  std::sort(tvs.begin(), tvs.end());
  out << "wrote " << lines.size() << " cases to " << out_path << " (" << config.samples << " samples each)\n";
  if (!tvs.empty()) {
    out << "judged at family alpha " << policy.alpha << " (chi-square level " << num(level) << " per case), each case detects a "
        << "contamination of TV >= " << num(tvs.front()) << " .. " << num(tvs.back()) << " (median " << num(tvs[tvs.size() / 2])
        << ") with 99 % power\n";
  }
  if (undetectable > 0) out << undetectable << " case(s) detect no contamination at that level: they will be judged inconclusive\n";
  return 0;
}

int run_conformance_check(const std::string& cases_path, const std::string& samples_path, std::uint32_t seed, double alpha,
                          const std::string& json_path, std::ostream& out) {
  // Samples may come in any order, so every case stays alive until the end: its tree and rows
  // (the case's text and JSON go after its parse), and its judge's counts, within kMaxHeldCells.
  std::ifstream cases_in = open_input(cases_path);
  CaseReader reader(cases_in, cases_path);
  std::deque<Case> cases;  // a deque: the judges keep pointers to their cases
  std::vector<CaseJudge> judges;
  std::map<std::string, std::size_t> index;
  while (std::optional<Case> c = reader.next()) {
    cases.push_back(std::move(*c));
    index[cases.back().id] = judges.size();
    judges.emplace_back(cases.back(), seed, static_cast<std::uint32_t>(judges.size()));
  }
  std::ifstream samples_in = open_input(samples_path);
  std::string line;
  for (std::size_t k = 1;; ++k) {
    const std::string where = samples_path + ":" + std::to_string(k);
    if (!read_bounded_line(samples_in, line, kMaxSampleLineBytes, where)) break;
    if (blank(line)) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
      throw InputError(where + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object() || !j.contains("case_id") || !j["case_id"].is_string()) throw InputError(where + ": a sample needs a string \"case_id\"");
    const auto it = index.find(j["case_id"].get<std::string>());
    if (it == index.end()) throw InputError(where + ": no case " + j["case_id"].dump() + " in " + cases_path);
    judges[it->second].add_line(line, where);
  }
  return print_report(judge(judges, alpha), json_path, out);
}

int run_conformance_run(const std::string& cases_path, const EmitConfig& emit, const RunOptions& options, const std::string& json_path,
                        std::ostream& out, std::ostream& progress) {
  std::ifstream file;
  std::istringstream emitted;
  if (cases_path.empty()) {
    std::string text;
    for (const std::string& line : emit_cases(emit)) text += line + '\n';
    emitted.str(text);
  } else {
    file = open_input(cases_path);
  }
  CaseReader reader(cases_path.empty() ? static_cast<std::istream&>(emitted) : file, cases_path.empty() ? "emitted cases" : cases_path);
  return print_report(run_verifier_command(reader, options, progress), json_path, out);
}

}  // namespace tev
