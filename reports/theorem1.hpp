#pragma once
// `tevsuite theorem1`: the empirical reproduction of Theorem 1, as one JSON document that
// render_report turns into report.md / report.html with figures.
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>

#include "core/philox.hpp"
#include "engine/ranks.hpp"

namespace tev {

struct Theorem1Options {
  bool quick = false;             // small sweep for smoke tests (under 30 s)
  std::uint64_t samples = 200000;  // per tree and verifier in the sweep; the power section's default budget
  std::int32_t vocab = 32;
  std::uint32_t seed = kDefaultSeed;
  int threads = 1;
  Ranks ranks{};                    // the processes every Monte Carlo run is split over
  double alpha = 1e-3;            // family-wise for the whole sweep, split evenly over the verifiers
  std::uint32_t calibration_seeds = 1000;
  std::uint64_t calibration_samples = 20000;
  std::uint64_t composition_sequences = 200000;
  int power_replicates = 100;
};

// The quick configuration's sizes (fewer budgets, families, seeds and replicates).
Theorem1Options quick_options(Theorem1Options base);

// Runs the sweep, per-node acceptance and homogeneity tests, calibration, power and composition;
// progress lines go to `progress`.
nlohmann::json run_theorem1(const Theorem1Options& options, std::ostream& progress);

}  // namespace tev
