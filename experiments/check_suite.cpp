#include "experiments/check_suite.hpp"

#include <algorithm>
#include <chrono>

namespace tev::experiments {

bool CheckSuiteResult::selftest_passed() const {
  return std::all_of(selftest.begin(), selftest.end(),
                     [](const judging::KnownAnswer& a) { return a.passed; });
}

judging::JudgingConfig check_judging_defaults() {
  judging::JudgingConfig config;
  config.samples = 200000;
  config.verifiers_sharing_alpha = judging::alpha_shares(true);
  config.independence_tests = true;
  return config;
}

CheckSuiteResult run_check_suite(const CheckSuiteOptions& options,
                                 const judging::VerifierProgress& progress) {
  const auto start = std::chrono::steady_clock::now();
  CheckSuiteResult result;
  result.selftest = judging::run_selftest();
  if (!result.selftest_passed()) return result;
  result.suite = workloads::make_suite(options.suite);
  result.verifiers = judging::check_every_verifier(
      result.suite.cases, [&](const VerifierInfo&) { return std::optional(options.judging); },
      progress);
  result.passed = judging::all_as_expected(result.verifiers);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace tev::experiments
