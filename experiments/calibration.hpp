#pragma once
// Calibration of the suite's own tests: under a true null a test must hold its level, P(p < a) ≤ a.
#include <cstdint>
#include <string>
#include <vector>

#include "stats/goodness_of_fit.hpp"
#include "montecarlo/ranks.hpp"
#include "workloads/suite.hpp"

namespace tev::experiments {

// The nominal rates the series are checked at: false alarms at each must not exceed it.
inline constexpr double kNominalRates[] = {0.05, 0.01};

struct CalibrationSeries {
  std::string test;              // which test's raw p-values
  std::string case_label;        // the tree they were computed on
  bool gates = true;             // false: shown for comparison only (a test the suite does not use)
  std::vector<double> p_values;  // one per seed
  stats::KolmogorovSmirnovResult
      ks;  // against Uniform(0, 1): descriptive (bounds and discrete tests are conservative)
  double false_alarms_05 = 0.0;  // fraction of p < 0.05
  double false_alarms_01 = 0.0;  // fraction of p < 0.01
};

// A chain of depth 10 whose root accepts its child with probability q = rare_count / samples and
// whose deeper nodes accept theirs with probability 1 − 1e-9: L is 1, or 11 with probability ≈ q.
// At n = samples the long path is expected rare_count times, and it carries almost all of Var L.
workloads::CheckCase rare_long_path_case(std::uint64_t samples, double rare_count);

// For seeds 1..seeds, TEV and predraw (both exact and saturated) sample `samples` blocks on the
// case; records the p-values of: the identity test of TEV's completed law (as a verdict at the
// nominal rates uses it), the E[L] shortfall test (Chernoff bound), the exact binomial acceptance
// test of the node whose P(u) is closest to 1/2, and the TEV-vs-predraw homogeneity χ². Then, on rare_long_path_case(samples, 0.2): the E[L] shortfall
// and excess bounds (both used by the suite) and, descriptive, the two-sided z-test with the
// exact null variance that they replace. Every null is true.
std::vector<CalibrationSeries> calibrate_tests(const workloads::CheckCase& c, std::uint32_t seeds,
                                               std::uint64_t samples, int threads,
                                               const montecarlo::Ranks& ranks = {});

}  // namespace tev::experiments
