#pragma once
// `tevsuite check`: every verifier on the default synthetic suite, with verdicts.
#include <cstdint>
#include <iosfwd>
#include <string>

#include "sim/verdicts.hpp"
#include "sim/suite.hpp"

namespace tev {

struct CheckOptions {
  SuiteConfig suite;
  JudgingConfig judging;
  std::string json_path;  // empty: no JSON
  std::string device = "cpu";  // where the Monte Carlo runs ("gpu": the fast-path verifiers on the GPU)
};

// Runs the check, prints progress to `progress` and the table to `out`; returns the exit code:
// 0 only when every saturated verifier is exact and saturated, every unsaturated one exact and not
// saturated, and every mutant not exact.
int run_check(const CheckOptions& options, std::ostream& out, std::ostream& progress);

// Runs the known-answer tests of the statistics core (sim/selftest.hpp); prints every result when
// verbose, else only failures and a summary line. Returns 0 when all pass, 1 otherwise.
int run_selftest_command(bool verbose, std::ostream& out);

}  // namespace tev
