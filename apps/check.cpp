#include "apps/check.hpp"

#include <chrono>
#include <cstdio>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "apps/results_file.hpp"
#include "apps/verdicts.hpp"
#include "core/exit_law.hpp"
#include "reports/verdict_json.hpp"
#include "sim/selftest.hpp"

namespace tev {

namespace {

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

nlohmann::json to_json(const CheckOptions& options, const std::vector<SuiteCase>& suite,
                       const std::vector<VerifierReport>& reports, double seconds, bool passed) {
  nlohmann::json j;
  j["format_version"] = 2;
  j["command"] = "check";
  j["config"] = {{"trees", options.suite.trees},       {"vocab", options.suite.vocab},
                 {"budget", options.suite.budget},     {"seed", options.suite.seed},
                 {"samples", options.judging.samples},   {"threads", options.judging.threads}, {"device", options.device},
                 {"alpha", options.judging.alpha}, {"alpha_per_verifier", options.judging.verifier_alpha()},
                 {"verdict_policy", policy_json(options.judging.policy(), suite.size())}, {"exact_tolerance", options.judging.exact_tolerance},
                 {"draft_noise", options.suite.draft_noise}};
  for (const SuiteCase& c : suite) {
    const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
    j["trees"].push_back({{"label", c.label}, {"nodes", c.tree.size()}, {"max_depth", c.tree.max_depth()},
                          {"coverage", law.coverage}, {"ceiling", law.ceiling()}, {"draft_kl", c.draft_kl},
                          {"row_max_deviation", c.rows.max_deviation()}});
  }
  j["verifiers"] = verifiers_json(reports);
  j["seconds"] = seconds;
  j["passed"] = passed;
  return j;
}

}  // namespace

int run_selftest_command(bool verbose, std::ostream& out) {
  const std::vector<KnownAnswer> answers = run_selftest();
  std::size_t failed = 0;
  for (const KnownAnswer& a : answers) {
    if (!a.passed) ++failed;
    if (verbose || !a.passed) out << (a.passed ? "  ok    " : "  FAIL  ") << a.name << ": " << a.detail << '\n';
  }
  out << "selftest: " << answers.size() - failed << " of " << answers.size() << " known-answer tests of the statistics core passed"
      << (failed == 0 ? "" : " -- this build cannot be trusted to judge anything") << '\n';
  return failed == 0 ? 0 : 1;
}

int run_check(const CheckOptions& options, std::ostream& out, std::ostream& progress) {
  const auto start = std::chrono::steady_clock::now();
  ResultsFile json_file(options.json_path);
  if (run_selftest_command(false, out) != 0) return 1;
  const std::vector<SuiteCase> suite = make_suite(options.suite);
  print_suite(suite, out);
  out << "Samples: " << options.judging.samples << " per tree and verifier, seed " << options.judging.seed << ", "
      << options.judging.threads << " thread(s)"
      << (options.device == "gpu" ? "; Monte Carlo of the fast-path verifiers on the GPU, the others on the CPU" : "")
      << "\nFamily-wise alpha " << options.judging.alpha << " for the whole check, "
      << options.judging.verifier_alpha() << " per verifier (Bonferroni over " << options.judging.verifiers_sharing_alpha
      << " verifiers); each verifier spends half on exactness (Holm over its chi-square tests) and half on saturation\n"
      << "(Holm over its E[L] and per-node acceptance tests)\nEnumeration tolerance "
      << options.judging.exact_tolerance << "\n";
  const std::vector<VerifierReport> reports = check_every_verifier(suite, [&](const VerifierInfo&) { return std::optional(options.judging); }, progress);
  const bool passed = all_as_expected(reports);
  print_verdict_table(reports, out);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << "\n" << (passed ? "PASS" : "FAIL") << ": every saturated verifier exact and saturated, every unsaturated one "
      << "exact and not saturated, every mutant not exact" << (passed ? "" : " -- does not hold") << " (" << fixed(seconds, 1)
      << " s)\n";
  if (json_file.wanted()) json_file.write(to_json(options, suite, reports, seconds, passed), out);
  return passed ? 0 : 1;
}

}  // namespace tev
