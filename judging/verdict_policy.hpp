#pragma once
// The one verdict policy: `check`, `live`, `theorem1` and `conformance` all decide "exact" and
// "saturated" here, from the same typed evidence, with the same split of α and the same power rule.
//
// A *subject* (one verifier judged on a suite of cases) spends one family-wise level α:
// - exactness family, α/2, Holm over one p-value per case, a weighted Bonferroni of the case's
//   exactness tests: the identity test (stats/law_identity.hpp) of its completed (exit node, next
//   token) law against the canonical law, with share kIdentityShare of the case's level, and the
//   tests of what Theorem 1 forbids, with the rest: E[L] above 1 + C_p (Chernoff bound) and, per
//   node, acceptance above P(u) (exact binomial upper tail). Any sample in a zero-probability cell
//   (or outside every cell: an invalid path) makes its case not exact at once.
// - saturation family, α/2, Holm: per case E[L] below 1 + C_p (Chernoff bound, valid however rare
//   the events that carry Var L), and per node acceptance below P(u) (exact binomial lower tail);
//   any bonus equal to a drafted child's token proves non-saturation at once.
// - exact enumeration, where it ran, decides with no noise: TV and |E[L] − (1 + C_p)| within the
//   tolerance. Sampling and enumeration must both say "exact".
// - power: where no enumeration ran, a case may be called exact only if every law at TV
//   max_detectable_tv from the canonical one, in any direction and tails included, would be
//   rejected by its identity test with the required power at the level it is actually tested at
//   (the worst-direction detectable TV); otherwise it is "inconclusive". Likewise "saturated" needs
//   the E[L] test to see a shortfall of max_detectable_shortfall tokens with that power at its
//   Bonferroni level; otherwise "exact, saturation inconclusive".
#include <tevsuite/defaults.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/draft_tree.hpp"
#include "core/exact_law.hpp"
#include "stats/law_identity.hpp"
#include "stats/iid_assumption.hpp"
#include "stats/goodness_of_fit.hpp"
#include "core/target_rows.hpp"
#include "montecarlo/monte_carlo.hpp"

namespace tev::judging {

// Ordered worst first, so std::min of verdicts is the worse one.
enum class Verdict {
  not_exact,
  inconclusive,
  exact_not_saturated,
  exact_saturation_inconclusive,
  exact_saturated
};
std::string verdict_text(Verdict v);
// The exit code a command returns for its overall verdict: 0 exact and saturated, 1 not exact,
// 3 exact but not saturated, 4 inconclusive (too few samples to call it exact), 5 exact but too
// few samples to call it saturated.
int verdict_exit_code(Verdict v);

// Everything one case (a tree and its target rows) says about a verifier.
struct TreeEvidence {
  std::uint64_t samples = 0;  // samples counted into the law (those with a valid path and bonus)
  std::uint64_t invalid =
      0;  // samples no cell holds (a path off the tree, a bonus out of range): impossible
  stats::ChiSquareResult chi_square;  // identity test: completed block law vs canonical law
  double shortfall_p = 1.0;       // one-sided: E[L] below 1 + C_p (an unsaturated verifier's gap)
  double excess_p = 1.0;          // one-sided: E[L] above 1 + C_p (what Theorem 1, eq. 9 forbids)
  double mean_length = 0.0;       // sampled
  double ceiling = 0.0;           // 1 + C_p
  double length_sd = 0.0;         // sample standard deviation of L, for confidence intervals
  std::uint64_t completions = 0;  // sampled blocks ending on a drafted child's token
  std::optional<double>
      detectable_tv;  // worst-direction TV its identity test detects at the policy's level and power; none: no TV
  std::vector<double> lengths;  // (max depth + 1) the values L takes, for the saturation power rule
  std::vector<double> length_mass;  // (max depth + 1) their canonical probabilities
  bool enumerated = false;          // the exact_* fields hold
  double exact_tv = 0.0;  // TV(enumerated completed law with its off-cell mass, canonical law)
  double exact_mean_length = 0.0;  // enumerated E[L]
  double exact_completion = 0.0;   // enumerated P(bonus is a drafted child's token)
  double predicted_power = 0.0;    // P(this case's χ² rejects at its level) given the exact law
  std::vector<double> prefix;      // (N) P(u)
  std::vector<std::uint64_t>
      accepted;  // (N) samples that accepted u (returned exit in u's subtree)
  std::vector<double>
      acceptance_p;  // (N − 1) u ≠ root: one-sided P(X ≤ accepted): below P(u) (saturation)
  std::vector<double>
      acceptance_excess_p;  // (N − 1) u ≠ root: one-sided P(X ≥ accepted): above the ceiling P(u) (exactness)
  std::vector<std::uint64_t>
      completed_counts;  // (N, V) the sampled completed blocks, for two-sample tests
  std::vector<stats::BinDeviation>
      largest_deviations;  // (≤ kReportedDeviations) χ² bins farthest from the canonical law, for reports
  // The tests of independence (stats/iid_assumption.hpp) where the samples' order is known, else empty:
  // in the exactness family beside the identity test, each powered as it is.
  std::vector<stats::IidTest> iid_tests;
};

// How many of a case's χ² bins its evidence keeps for reports (the largest standardized deviations).
inline constexpr std::size_t kReportedDeviations = 5;

// Everything the samples alone say about a verifier on one tree (no enumeration, no power); the
// identity test's p-values are valid at `level` (the case's identity level, see VerdictPolicy).
TreeEvidence sampled_evidence(const DraftTree& tree, const TargetRows& rows,
                              const montecarlo::BlockCounts& counts, const stats::TestLevel& level);

// Adds what a verifier's exact law says to its evidence on one tree: exact TV and E[L] against the
// canonical law, and the power its χ² with `samples` samples at `level` has against that law
// (0 when the law equals the canonical one within `tolerance`).
void add_exact_evidence(TreeEvidence& e, const DraftTree& tree, const TargetRows& rows,
                        const ExactOutcome& exact, std::uint64_t samples, double level,
                        double tolerance);

// The chance that the sampled identity test at `level` with `samples` samples rejects a verifier
// whose exact law is `exact`: a sample on no cell is an impossible event, not exact at once; without
// one, the samples follow the on-cell law renormalized.
// The same for a law given by its mass on the reference's cells (summing to 1 − off_cells) and
// the mass it puts where the reference has none.
double exact_law_power(std::span<const double> canonical, std::span<const double> on_cells,
                       double off_cells, std::span<const std::int32_t> groups,
                       std::uint64_t samples, double level);
double exact_law_power(std::span<const double> canonical, const ExactOutcome& exact,
                       std::span<const std::int32_t> groups, std::uint64_t samples, double level);

// The identity test's share of a fixed-tree case's exactness level; the tests of what Theorem 1
// forbids (E[L] and acceptance above their ceilings) share the rest. A model case has no Theorem 1
// tests: its identity test (and its tests of independence) then have the whole level.
inline constexpr double kIdentityShare = 0.9;
// Where a case's samples come in a known order (conformance fixed-tree and model cases, a batch's
// requests, the library), its stats::kIidTests tests of independence (stats/iid_assumption.hpp:
// each half, and pairs at every lag 1 .. stats::kSerialLags at two phases) take this share of the
// identity test's, split evenly over them.
inline constexpr double kIidShare = 0.4;

// The null simulations' seed when a policy is not given the run's seed.
inline constexpr std::uint32_t kNullSimulationSeed = TEV_NULL_SIMULATION_SEED;

// The family-wise false-alarm level a run (a check, a live run, a sweep) spends unless told
// otherwise.
inline constexpr double kDefaultAlpha = TEV_DEFAULT_ALPHA;

// How a run that judges several verifiers spends its one family-wise α: Bonferroni, evenly, one
// share per verifier it judges (each share is one subject of this policy) and one per other family
// of tests held to the same α (live's generation and first-word tests). `mutants`: the catalog's
// planted mutants are judged too (check, live --mutants); else only its exact verifiers.
int alpha_shares(bool mutants, int other_families = 0);

struct VerdictPolicy {
  double alpha = kDefaultAlpha;    // family-wise false-alarm level of one subject
  double exact_tolerance = 1e-12;  // enumeration: laws and E[L] equal to within this
  double required_power = 0.99;
  double max_detectable_tv =
      0.05;  // sampling alone calls a case exact only if every law this far is detected
  double max_detectable_shortfall =
      0.05;  // ... and saturated only if an E[L] this many tokens short is detected
  // The run's seed: keys the identity tests' null simulations (Monte Carlo p-values near the
  // level), so that each run's p-values are valid for that run, not on average over case layouts.
  std::uint32_t seed = kNullSimulationSeed;

  double exactness_alpha() const { return alpha / 2.0; }
  double saturation_alpha() const { return alpha / 2.0; }
  // The level one case's exactness tests are held to: Bonferroni over the exactness family
  // (Holm's first step).
  double chi_square_level(std::size_t cases) const {
    return exactness_alpha() / static_cast<double>(cases == 0 ? 1 : cases);
  }
  // The level its identity test is held to, at which its detectable TV is stated; with_tree: a
  // fixed-tree case (whose Theorem 1 tests share the level); iid: its tests of independence run
  // beside it.
  double identity_level(std::size_t cases, bool with_tree, bool iid = false) const {
    return chi_square_level(cases) * identity_share(with_tree, iid);
  }
  // Where case `index` of `cases` runs its identity test, for identity_test.
  stats::TestLevel identity_test_level(std::size_t cases, std::size_t index, bool with_tree,
                                       bool iid = false) const {
    return {identity_level(cases, with_tree, iid),
            exactness_alpha() * identity_share(with_tree, iid), seed,
            static_cast<std::uint32_t>(index)};
  }
  // Where the same case runs test t of its stats::kIidTests tests of independence (each its own
  // null-simulation id), in stats::iid_tests' order (halves, then lags 1 .. stats::kSerialLags at
  // phases 0 and 1: stats::serial_test_index).
  stats::TestLevel iid_test_level(std::size_t cases, std::size_t index, bool with_tree,
                                  std::size_t t) const {
    const double share = iid_test_share(with_tree);
    return {chi_square_level(cases) * share, exactness_alpha() * share, seed,
            static_cast<std::uint32_t>(index + ((t + 1) << 24))};
  }
  // All stats::kIidTests of them, in that order, for stats::iid_tests.
  std::vector<stats::TestLevel> iid_test_levels(std::size_t cases, std::size_t index,
                                                bool with_tree) const {
    std::vector<stats::TestLevel> levels;
    for (std::size_t t = 0; t < stats::kIidTests; ++t)
      levels.push_back(iid_test_level(cases, index, with_tree, t));
    return levels;
  }
  static double identity_share(bool with_tree, bool iid) {
    return (with_tree ? kIdentityShare : 1.0) * (iid ? 1.0 - kIidShare : 1.0);
  }
  static double iid_test_share(bool with_tree) {
    return (with_tree ? kIdentityShare : 1.0) * kIidShare / static_cast<double>(stats::kIidTests);
  }
};

// Uniform over the cells where `canonical` is positive (the blocks the target can produce): the
// easiest direction to detect, for descriptive power curves only; verdicts use the worst direction.
std::vector<double> support_noise(std::span<const double> canonical);

// Throws std::invalid_argument unless α, power and the TV lie in (0, 1) and the shortfall is positive.
void validate(const VerdictPolicy& policy);

// The worst-direction TV (stats/law_identity.hpp) that a case's identity test at `level` with
// `samples` samples detects with `power`; none when no TV below 1 is.
std::optional<double> detectable_tv(const DraftTree& tree, const TargetRows& rows,
                                    std::uint64_t samples, double level, double power);
// The same for any reference law and pooling groups (a model case's H-token law).
std::optional<double> detectable_tv(std::span<const double> law,
                                    std::span<const std::int32_t> groups, std::uint64_t samples,
                                    double level, double power);

// The smallest E[L] shortfall (tokens) that the Chernoff E[L]-below test at `level` with `samples`
// samples detects with `power` (normal approximation of the sample mean at the canonical variance);
// none when not even a shortfall down to L = 1 is.
std::optional<double> detectable_shortfall(std::span<const double> lengths,
                                           std::span<const double> mass, std::uint64_t samples,
                                           double level, double power);

struct CaseVerdict {
  double exactness_p_holm = 1.0;   // smallest Holm-adjusted p of the case's exactness tests
  double saturation_p_holm = 1.0;  // smallest Holm-adjusted p of the case's saturation tests
  bool sampled_not_exact = false;
  bool sampled_not_saturated = false;
  bool enumerated_not_exact = false;
  bool enumerated_not_saturated = false;
  bool powered = true;             // enumerated, or detects max_detectable_tv in every direction
  bool saturation_powered = true;  // enumerated, or detects a shortfall of max_detectable_shortfall
  std::optional<double>
      detectable_shortfall;  // at the saturation family's Bonferroni level (sampled fixed-tree cases)
  Verdict verdict = Verdict::exact_saturated;
};

struct SubjectVerdict {
  std::vector<CaseVerdict> cases;              // one per case, in order
  Verdict verdict = Verdict::exact_saturated;  // the worst case's
  std::size_t exactness_tests = 0;
  std::size_t saturation_tests = 0;
  double min_exactness_p_holm = 1.0;
  double min_saturation_p_holm = 1.0;
  bool sampling_says_exact = true;
  bool enumeration_says_exact = true;
  bool powered = true;
};

SubjectVerdict decide(std::span<const TreeEvidence> cases, const VerdictPolicy& policy);

// What a case's sampling guarantees: the largest worst-direction TV of its identity test and its
// tests of independence (none when one of them has none).
std::optional<double> stated_tv(const TreeEvidence& e);
// The smallest raw p-value of its tests of independence (1 without them).
double smallest_iid_p(const TreeEvidence& e);

// A case's tests of independence (stats::iid_tests at `levels`), as member of an exactness family
// of `family` cases whose identity test gave `identity_p` at its share of the case's level. They
// run first without simulating their nulls; where that already rejects the case at its
// Bonferroni level (its identity test's or one of these p-values over its share, times `family`,
// below the exactness α), those p-values stand: valid, from the finite-sample bounds where near
// the level, and the verdict is the same. Otherwise they run again, simulating near the level.
std::vector<stats::IidTest> case_iid_tests(std::span<const std::int64_t> stream,
                                           std::span<const double> law,
                                           std::span<const std::int32_t> groups,
                                           std::vector<stats::TestLevel> levels,
                                           const VerdictPolicy& policy, std::size_t family,
                                           bool with_tree, double identity_p);

}  // namespace tev::judging
