#include "reports/check_report.hpp"

#include <iomanip>
#include <ostream>

#include "core/exit_law.hpp"
#include "core/format.hpp"
#include "reports/verdict_json.hpp"
#include "reports/verdict_table.hpp"

namespace tev::reports {

namespace {

void print_suite(const workloads::SyntheticSuite& suite, std::ostream& out) {
  out << "Suite: " << suite.cases.size() << " trees\n";
  for (std::size_t i = 0; i < suite.cases.size(); ++i) {
    const workloads::CheckCase& c = suite.cases[i];
    const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
    out << "  tree " << i << ": " << std::left << std::setw(46) << c.label << " nodes "
        << std::setw(4) << c.tree.size() << " depth " << std::setw(3) << c.tree.max_depth()
        << " 1+C_p " << fixed(law.ceiling(), 4) << "  draft KL "
        << fixed(suite.origins[i].draft_kl, 3) << " nats\n";
  }
}

}  // namespace

void print_check(const experiments::CheckSuiteOptions& options,
                 const experiments::CheckSuiteResult& result, std::ostream& out) {
  if (print_selftest(result.selftest, false, out) != 0) return;
  const judging::JudgingConfig& judging = options.judging;
  print_suite(result.suite, out);
  out << "Samples: " << judging.samples << " per tree and verifier, seed " << judging.seed << ", "
      << judging.threads << " thread(s)"
      << (options.device == "gpu"
              ? "; Monte Carlo of the fast-path verifiers on the GPU, the others on the CPU"
              : "")
      << "\nFamily-wise alpha " << judging.alpha << " for the whole check, "
      << judging.verifier_alpha() << " per verifier (Bonferroni over "
      << judging.verifiers_sharing_alpha
      << " verifiers); each verifier spends half on exactness (Holm over its trees: identity test "
         "and tests of independence\n"
         "at lags 1 to 4 on the order of its samples) and half on saturation\n"
      << "(Holm over its E[L] and per-node acceptance tests)\nEnumeration tolerance "
      << judging.exact_tolerance << "\n";
  print_verdict_table(result.verifiers, out);
  out << "\n"
      << (result.passed ? "PASS" : "FAIL")
      << ": every saturated verifier exact and saturated, every unsaturated one "
      << "exact and not saturated, every mutant not exact (serial mutants: caught by the tests of "
         "independence)"
      << (result.passed ? "" : " -- does not hold") << " (" << fixed(result.seconds, 1) << " s)\n";
}

nlohmann::json check_json(const experiments::CheckSuiteOptions& options,
                          const experiments::CheckSuiteResult& result) {
  const judging::JudgingConfig& judging = options.judging;
  nlohmann::json j;
  j["format_version"] = 2;
  j["command"] = "check";
  j["kind"] = results_kind_name(ResultsKind::check);
  j["config"] = {{"trees", options.suite.trees},
                 {"vocab", options.suite.vocab},
                 {"budget", options.suite.budget},
                 {"seed", options.suite.seed},
                 {"samples", judging.samples},
                 {"threads", judging.threads},
                 {"device", options.device},
                 {"alpha", judging.alpha},
                 {"alpha_per_verifier", judging.verifier_alpha()},
                 {"verdict_policy", policy_json(judging.policy(), result.suite.cases.size())},
                 {"exact_tolerance", judging.exact_tolerance},
                 {"draft_noise", options.suite.draft_noise}};
  for (std::size_t i = 0; i < result.suite.cases.size(); ++i) {
    const workloads::CheckCase& c = result.suite.cases[i];
    const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
    j["trees"].push_back({{"label", c.label},
                          {"nodes", c.tree.size()},
                          {"max_depth", c.tree.max_depth()},
                          {"coverage", law.coverage},
                          {"ceiling", law.ceiling()},
                          {"draft_kl", result.suite.origins[i].draft_kl},
                          {"row_max_deviation", c.rows.max_deviation()},
                          {"prefix", law.prefix}});
  }
  j["verifiers"] = verifiers_json(result.verifiers);
  j["seconds"] = result.seconds;
  j["passed"] = result.passed;
  return j;
}

}  // namespace tev::reports
