#pragma once
// Judges one verifier on a suite of trees: sampled χ² of the completed block law against the
// canonical law, E[L] against 1 + C_p, and exact enumeration of its law.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/statistics.hpp"
#include "core/verifier_registry.hpp"
#include "sim/monte_carlo.hpp"
#include "sim/suite.hpp"

namespace tev {

struct CheckConfig {
  std::uint64_t samples = 100000;  // per tree and verifier
  std::uint32_t seed = 20261130;
  int threads = 1;
  // False-alarm budget of the whole check: Bonferroni over the verifiers that share it, then
  // Holm within each verifier over its 2 × trees tests (χ² per tree, E[L] per tree).
  double alpha = 1e-3;
  int verifiers_sharing_alpha = 1;
  double verifier_alpha() const { return alpha / verifiers_sharing_alpha; }
  double exact_tolerance = 1e-12;  // enumeration: laws and E[L] equal to within this
  // Enumerate each verifier's exact law too (lumped: seconds even at V = 151,936, B = 128). Off
  // only on request (`live --no-enumeration`); then verdicts rest on sampling alone and a mutant
  // that sampling misses is reported "not caught", with no power to hold it to.
  bool enumerate = true;
  // The Monte Carlo engine the samples come from: the CPU's, or the GPU's under --device gpu.
  BlockCounts (*monte_carlo)(VerifierId, const DraftTree&, const TargetRows&, const MonteCarloPlan&) = run_monte_carlo;
};

struct TreeEvidence {
  ChiSquareResult chi_square;       // completed block law vs canonical law
  double length_p = 1.0;            // E[L] vs 1 + C_p, exact null variance
  double mean_length = 0.0;         // sampled
  double ceiling = 0.0;             // 1 + C_p
  std::uint64_t completions = 0;    // sampled blocks ending on a drafted child's token
  double exact_tv = 0.0;            // TV(enumerated completed law, canonical law)
  double exact_mean_length = 0.0;   // enumerated E[L]
  double exact_completion = 0.0;    // enumerated P(bonus is a drafted child's token)
  double predicted_power = 0.0;     // P(this tree's χ² rejects at α/m) given the exact law
  double length_sd = 0.0;           // sample standard deviation of L, for confidence intervals
  double shortfall_p = 1.0;         // one-sided: E[L] below 1 + C_p (an unsaturated verifier's gap)
  double excess_p = 1.0;            // one-sided: E[L] above 1 + C_p (what Theorem 1 forbids)
  std::vector<double> prefix;                // (N) P(u)
  std::vector<std::uint64_t> accepted;       // (N) samples that accepted u (returned exit in u's subtree)
  std::vector<double> acceptance_p;          // (N − 1) u ≠ root: two-sided exact binomial p, accepted vs P(u)
  std::vector<double> acceptance_excess_p;   // (N − 1) u ≠ root: one-sided P(X ≥ accepted): above the ceiling P(u)
  std::vector<std::uint64_t> completed_counts;  // (N, V) the sampled completed blocks, for two-sample tests
};

// Everything the samples alone say about a verifier on one tree (no enumeration: the exact_*
// and predicted_power fields stay 0).
TreeEvidence sampled_evidence(const DraftTree& tree, const TargetRows& rows, const BlockCounts& counts);

// Ordered worst first, so std::min of verdicts is the worse one.
enum class Verdict { not_exact, exact_not_saturated, exact_saturated };
std::string verdict_text(Verdict v);

struct VerifierReport {
  VerifierInfo info;
  std::vector<TreeEvidence> trees;
  double min_p_holm = 1.0;            // smallest Holm-adjusted p over the verifier's family
  double min_acceptance_p_holm = 1.0; // per-node acceptance = P(u), Holm over every node of every tree
  double min_excess_p_holm = 1.0;     // per-node acceptance ≤ P(u) (Theorem 1, eq. 8), same family
  std::size_t acceptance_tests = 0;   // nodes tested
  bool sampling_says_exact = true;    // no impossible event, no χ² rejection
  bool sampling_says_saturated = true;
  bool enumeration_says_exact = true;
  bool enumeration_says_saturated = true;
  Verdict verdict = Verdict::exact_saturated;
  double mean_length = 0.0;           // over trees, sampled
  double mean_ceiling = 0.0;          // over trees, 1 + C_p
  double max_exact_tv = 0.0;
  double predicted_power = 0.0;       // P(sampling catches it) from the exact laws: 1 − Π(1 − power per tree)
  double elapsed_seconds = 0.0;
  std::uint64_t samples_per_tree = 0;
  bool enumerated = true;             // the exact_* fields and predicted_power hold
  bool as_expected = false;           // verdict matches the kind (and a mutant with ≥ 99 % power was sampled out)
  std::string caught_by;              // mutants: "sampling and enumeration", "enumeration only", ...
};

VerifierReport check_verifier(VerifierId id, std::span<const SuiteCase> suite, const CheckConfig& config);

}  // namespace tev
