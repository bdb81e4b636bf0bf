#pragma once
// `tevsuite theorem1`: the empirical reproduction of Theorem 1. Runs the sweep, per-node
// acceptance and homogeneity tests, calibration, power, composition and the sampled-drafts
// enumeration, and decides every claim from their typed results; reports/theorem1 writes them as
// the results document.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/philox.hpp"
#include "core/verifier_catalog.hpp"
#include "drafts/sampled_verifiers.hpp"
#include "montecarlo/ranks.hpp"
#include "experiments/calibration.hpp"
#include "experiments/composition.hpp"
#include "experiments/power.hpp"
#include "judging/sampled_law.hpp"
#include "judging/verdicts.hpp"
#include "workloads/suite.hpp"

namespace tev::experiments {

struct Theorem1Options {
  bool quick = false;  // small sweep for smoke tests (about 7 s on 2 cores)
  std::uint64_t samples =
      200000;  // per tree and verifier in the sweep; the power section's default budget
  std::int32_t vocab = 32;
  std::uint32_t seed = kDefaultSeed;
  int threads = 1;
  montecarlo::Ranks ranks{};  // the processes every Monte Carlo run is split over
  double alpha =
      judging::kDefaultAlpha;  // family-wise for the whole sweep, split evenly over the verifiers
  std::uint32_t calibration_seeds = 1000;
  std::uint64_t calibration_samples = 20000;
  std::uint64_t composition_sequences = 200000;
  int power_replicates = 100;
};

// The quick configuration's sizes (fewer budgets, families, seeds and replicates).
Theorem1Options quick_options(Theorem1Options base);

// Results within this of the exact value count as equal (enumeration in floating point).
inline constexpr double kExactTolerance = 1e-12;

// The families of tests that share theorem1's one family-wise α, each spending an equal share.
std::span<const char* const> theorem1_families();

// Theorem 1 given the tree, on sampled drafts: one verifier on one drafting policy and language
// pair, every realized tree enumerated (no randomness).
struct SampledTheoremRow {
  drafts::SampledCase c;
  drafts::SampledKind kind = drafts::SampledKind::target_only;
  std::string pair;
  drafts::DrafterKind drafter = drafts::DrafterKind::perturbed;
  judging::ConditionalExactness conditional;
  double marginal_tv = 0.0;  // TV(Σ_T P(T)·law given T, p's H-token law)
};

// The sampled-drafts enumeration's sizes: drafting depth 2 and width 2 over V = 4, horizon 3.
struct SampledTheoremSizes {
  std::int32_t vocab = 4;
  std::int32_t depth = 2;
  std::int32_t width = 2;
  std::int32_t horizon() const { return depth + 1; }
};

struct HomogeneityResult {
  std::string pair;
  std::vector<double> p_values;  // one per tree
  double min_p_holm = 1.0;       // the smallest Holm-adjusted p-value
};

struct PowerSection {
  std::string case_label;
  PowerConfig config;
  std::vector<PowerCurve> mutants;
  std::vector<PowerCurve> contamination;
  std::optional<double> smallest_detectable_tv;
  double power_at_tv_0006 = 0.0;
};

struct Claim {
  std::string claim;
  std::string reference;  // where in the paper
  std::string evidence;
  bool holds = false;
};

struct Theorem1Results {
  Theorem1Options options;
  double family_alpha = 0.0;        // each family's share of options.alpha
  judging::JudgingConfig judging;   // the sweep's
  workloads::SyntheticSuite sweep;  // every tree of the sweep, with its shape and family
  std::vector<judging::VerifierReport> reports;  // one per exact verifier
  std::size_t showcase = 0;  // the sweep case whose per-node acceptance is shown
  std::vector<HomogeneityResult> homogeneity;
  std::string calibration_case;
  std::vector<CalibrationSeries> calibration;
  PowerSection power;
  CompositionConfig composition_config;
  std::vector<CompositionResult> composition;
  SampledTheoremSizes sampled_sizes;
  std::vector<SampledTheoremRow> sampled;
  double sampled_seconds = 0.0;
  std::vector<Claim> claims;
  bool passed = false;  // every claim holds and every verdict is as expected
  double seconds = 0.0;
};

// Runs every part in order, printing progress lines to `progress`, and decides the claims.
Theorem1Results run_theorem1(const Theorem1Options& options, std::ostream& progress);

}  // namespace tev::experiments
