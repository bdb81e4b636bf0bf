#pragma once
// `tevsuite check`: the known-answer selftest, then every verifier of the catalog judged on the
// default synthetic suite.
#include <string>
#include <vector>

#include "judging/selftest.hpp"
#include "workloads/suite.hpp"
#include "judging/verdicts.hpp"

namespace tev::experiments {

// The check's judging defaults, `tevsuite check`'s and the library's alike: 200,000 samples per
// tree and verifier, the whole check's alpha split over every verifier of the catalog (the verdict
// policy's alpha_shares), and the tests of independence on the recorded order of the samples.
judging::JudgingConfig check_judging_defaults();

struct CheckSuiteOptions {
  workloads::SuiteConfig suite;
  // judging.monte_carlo is the GPU's engine under --device gpu
  judging::JudgingConfig judging = check_judging_defaults();
  std::string device =
      "cpu";  // where the Monte Carlo runs ("gpu": the fast-path verifiers on the GPU)
};

struct CheckSuiteResult {
  std::vector<judging::KnownAnswer> selftest;
  workloads::SyntheticSuite suite;  // empty when the selftest failed: nothing was judged
  std::vector<judging::VerifierReport> verifiers;  // in catalog order
  double seconds = 0.0;
  // Every saturated verifier exact and saturated, every unsaturated one exact and not saturated,
  // every mutant not exact (and sampled out where its power is ≥ 99 %), after a passing selftest.
  bool passed = false;
  bool selftest_passed() const;
  int exit_code() const { return passed ? 0 : 1; }
};

CheckSuiteResult run_check_suite(const CheckSuiteOptions& options,
                                 const judging::VerifierProgress& progress = {});

}  // namespace tev::experiments
