#include "apps/check.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "core/exit_law.hpp"

namespace tev {

namespace {

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

void print_suite(const std::vector<SuiteCase>& suite, std::ostream& out) {
  out << "Suite: " << suite.size() << " trees\n";
  for (std::size_t i = 0; i < suite.size(); ++i) {
    const SuiteCase& c = suite[i];
    const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
    out << "  tree " << i << ": " << std::left << std::setw(46) << c.label << " nodes " << std::setw(4) << c.tree.size()
        << " depth " << std::setw(3) << c.tree.max_depth() << " 1+C_p " << fixed(law.ceiling(), 4)
        << "  draft KL " << fixed(c.draft_kl, 3) << " nats\n";
  }
}

void print_table(const std::vector<VerifierReport>& reports, std::uint64_t samples, std::ostream& out) {
  out << '\n'
      << std::left << std::setw(36) << "verifier" << std::setw(12) << "kind" << std::setw(6) << "trees" << std::setw(9)
      << "samples" << std::setw(10) << "min p(H)"
      << std::setw(23) << "verdict" << std::setw(9) << "mean L" << std::setw(9) << "1+C_p" << std::setw(10)
      << "exact TV" << std::setw(9) << "power" << "caught by\n";
  out << std::string(155, '-') << '\n';
  for (const VerifierReport& r : reports) {
    out << std::left << std::setw(36) << r.info.name << std::setw(12) << kind_name(r.info.kind) << std::setw(6)
        << r.trees.size() << std::setw(9) << samples << std::setw(10)
        << scientific(r.min_p_holm) << std::setw(23) << verdict_text(r.verdict) << std::setw(9) << fixed(r.mean_length, 4)
        << std::setw(9) << fixed(r.mean_ceiling, 4) << std::setw(10) << scientific(r.max_exact_tv);
    if (r.info.kind == VerifierKind::mutant) {
      out << std::setw(9) << fixed(r.predicted_power, 3) << r.caught_by;
    } else {
      out << std::setw(9) << "-" << "-";
    }
    out << (r.as_expected ? "" : "   <-- UNEXPECTED") << '\n';
  }
}

nlohmann::json to_json(const CheckOptions& options, const std::vector<SuiteCase>& suite,
                       const std::vector<VerifierReport>& reports, double seconds, bool passed) {
  nlohmann::json j;
  j["format_version"] = 1;
  j["command"] = "check";
  j["config"] = {{"trees", options.suite.trees},       {"vocab", options.suite.vocab},
                 {"budget", options.suite.budget},     {"seed", options.suite.seed},
                 {"samples", options.check.samples},   {"threads", options.check.threads}, {"device", options.device},
                 {"alpha", options.check.alpha}, {"alpha_per_verifier", options.check.verifier_alpha()},       {"exact_tolerance", options.check.exact_tolerance},
                 {"draft_noise", options.suite.draft_noise}};
  for (const SuiteCase& c : suite) {
    const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
    j["trees"].push_back({{"label", c.label}, {"nodes", c.tree.size()}, {"max_depth", c.tree.max_depth()},
                          {"coverage", law.coverage}, {"ceiling", law.ceiling()}, {"draft_kl", c.draft_kl},
                          {"row_max_deviation", c.rows.max_deviation()}});
  }
  for (const VerifierReport& r : reports) {
    nlohmann::json v = {{"name", r.info.name},
                        {"kind", kind_name(r.info.kind)},
                        {"description", r.info.description},
                        {"exact", r.verdict != Verdict::not_exact},
                        {"saturated", r.verdict == Verdict::exact_saturated},
                        {"verdict", verdict_text(r.verdict)},
                        {"as_expected", r.as_expected},
                        {"trees", r.trees.size()},
                        {"samples_per_tree", options.check.samples},
                        {"min_p_holm", r.min_p_holm},
                        {"mean_L", r.mean_length},
                        {"mean_ceiling", r.mean_ceiling},
                        {"sampling_says_exact", r.sampling_says_exact},
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
    j["verifiers"].push_back(v);
  }
  j["seconds"] = seconds;
  j["passed"] = passed;
  return j;
}

}  // namespace

int run_check(const CheckOptions& options, std::ostream& out, std::ostream& progress) {
  const auto start = std::chrono::steady_clock::now();
  // Open the JSON file first: a bad path should fail before the run, not after it.
  std::ofstream json_file;
  if (!options.json_path.empty()) {
    json_file.open(options.json_path);
    if (!json_file) throw std::runtime_error("cannot write " + options.json_path);
  }
  const std::vector<SuiteCase> suite = make_suite(options.suite);
  print_suite(suite, out);
  out << "Samples: " << options.check.samples << " per tree and verifier, seed " << options.check.seed << ", "
      << options.check.threads << " thread(s)"
      << (options.device == "gpu" ? "; Monte Carlo of the fast-path verifiers on the GPU, the others on the CPU" : "")
      << "\nFamily-wise alpha " << options.check.alpha << " for the whole check, "
      << options.check.verifier_alpha() << " per verifier (Bonferroni over " << options.check.verifiers_sharing_alpha
      << " verifiers, Holm over each one's chi-square and E[L] tests)\nEnumeration tolerance "
      << options.check.exact_tolerance << "\n";
  std::vector<VerifierReport> reports;
  const auto catalog = verifier_catalog();
  for (std::size_t k = 0; k < catalog.size(); ++k) {
    progress << "[" << k + 1 << "/" << catalog.size() << "] " << catalog[k].name << " ..." << std::flush;
    reports.push_back(check_verifier(catalog[k].id, suite, options.check));
    progress << " " << verdict_text(reports.back().verdict) << " (" << fixed(reports.back().elapsed_seconds, 1) << " s)\n";
  }
  bool passed = true;
  for (const VerifierReport& r : reports) passed = passed && r.as_expected;
  print_table(reports, options.check.samples, out);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << "\n" << (passed ? "PASS" : "FAIL") << ": every saturated verifier exact and saturated, every unsaturated one "
      << "exact and not saturated, every mutant not exact" << (passed ? "" : " -- does not hold") << " (" << fixed(seconds, 1)
      << " s)\n";
  if (!options.json_path.empty()) {
    json_file << to_json(options, suite, reports, seconds, passed).dump(2) << '\n';
    if (!json_file) throw std::runtime_error("error writing " + options.json_path);
    out << "Wrote " << options.json_path << '\n';
  }
  return passed ? 0 : 1;
}

}  // namespace tev
