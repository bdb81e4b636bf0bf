#pragma once
// Calibration of the suite's own tests: under a true null their raw p-values must be uniform.
#include <cstdint>
#include <string>
#include <vector>

#include "core/statistics.hpp"
#include "sim/suite.hpp"

namespace tev {

struct CalibrationSeries {
  std::string test;              // which test's raw p-values
  std::vector<double> p_values;  // one per seed
  KolmogorovSmirnovResult ks;    // against Uniform(0, 1)
  double false_alarms_05 = 0.0;  // fraction of p < 0.05
  double false_alarms_01 = 0.0;  // fraction of p < 0.01
};

// For seeds 1..seeds, TEV and predraw (both exact and saturated) sample `samples` blocks on the
// case; records the raw p-values of: χ² of TEV's completed law, the E[L] z-test, the exact
// binomial acceptance test of the node whose P(u) is closest to 1/2, and the TEV-vs-predraw
// homogeneity χ². Every null is true, so each series should look Uniform(0, 1).
std::vector<CalibrationSeries> calibrate_tests(const SuiteCase& c, std::uint32_t seeds, std::uint64_t samples, int threads);

}  // namespace tev
