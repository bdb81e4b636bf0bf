#pragma once
// Goodness of fit of sampled (exit node, bonus) counts against the canonical law, and the
// family-wise corrections and power predictions around it.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace tev::stats {

// Cells whose expected count falls below this are pooled (Cochran's rule for Pearson's χ²).
inline constexpr double kMinExpectedCount = 5.0;
inline constexpr std::int32_t kImpossibleCell = -1;
// At most this many bins per group's tail: more bins cost the binned χ² power in its worst
// direction (the critical value grows with the degrees of freedom), and mass moved inside a bin is
// the rare-cell statistic's to see (stats/law_identity.hpp).
inline constexpr int kTailBinsPerGroup = 16;

// How cells are pooled into χ² bins for a given sample count.
struct Binning {
  std::vector<std::int32_t> bin_of_cell;  // (cells) bin of each cell; kImpossibleCell where p = 0
  std::vector<double> bin_probability;    // (bins) total reference probability of each bin
};

// Cells with expected count n·p ≥ 5 keep their own bin. Smaller ones form their group's tail
// (group = exit node for the block law), which is cut in cell order (token order) into up to
// kTailBinsPerGroup bins of equal mass, each of expected count ≥ 5, so mass moved from one part of a
// tail to another (a truncated id range, a first-token bias) moves mass between bins. Tails below 5
// pool, in cell order, into a global tail cut the same way; a global tail still below 5 joins the
// bin of smallest probability. The binning depends on the reference law and n alone, never on the
// counts. Zero-probability cells are never pooled: any count there is an impossible event.
Binning pool_cells(std::span<const double> probability, std::span<const std::int32_t> group_of_cell,
                   double samples);

// group_of_cell for an (N, V) block law: the exit node of each cell.
std::vector<std::int32_t> node_groups(std::int32_t nodes, std::int32_t vocab);

// Pearson's χ² over bins and, from identity_test (stats/law_identity.hpp), the rare-cell statistic.
struct ChiSquareResult {
  double statistic = 0.0;  // Pearson's χ² over the bins
  std::int32_t dof = 0;
  double p_value = 1.0;                // the test's: 0 when any impossible event was seen
  std::uint64_t impossible = 0;        // samples that fell in zero-probability cells
  std::int64_t first_impossible = -1;  // the first such cell, or -1
  std::int32_t bins = 0;
  double binned_p_value = 1.0;  // the χ² over the bins alone
  std::uint64_t shared_cells =
      0;  // cells in bins of several cells (the rare-cell statistic's); 0: it did not run
  double rare_z = 0.0;  // the rare-cell statistic over its exact null standard deviation
  double rare_p_value = 1.0;
  bool simulated =
      false;  // a p-value is a Monte Carlo or Cantelli one (near the level), not asymptotic
};

// Pearson's χ² of counts against the reference probabilities, pooled by pool_cells; p-value from
// Boost.Math's χ² distribution. Fails at once (p = 0) on any impossible event.
ChiSquareResult pearson_chi_square(std::span<const std::uint64_t> counts,
                                   std::span<const double> probability,
                                   std::span<const std::int32_t> group_of_cell);

// One bin of pearson_chi_square and how far its count lies from the reference, for reports.
struct BinDeviation {
  std::int64_t cell = -1;   // the bin's one cell; -1 when it pools several (a tail)
  std::int32_t group = -1;  // its cells' group (the exit node); -1 when it pools several groups
  std::uint64_t cells = 0;  // cells in the bin
  std::uint64_t observed = 0;
  double expected = 0.0;  // n times the bin's reference probability; 0: an impossible cell
  double residual =
      0.0;  // (observed − expected)/√expected, Σ residual² = χ²; +inf for an impossible cell
};

// The same test, which also keeps the `deviations` bins with the largest |residual|, largest first
// (impossible cells with a count come first, each as its own entry), at the cost of the test alone.
ChiSquareResult pearson_chi_square(std::span<const std::uint64_t> counts,
                                   std::span<const double> probability,
                                   std::span<const std::int32_t> group_of_cell,
                                   std::size_t deviations, std::vector<BinDeviation>& largest);
// Only those bins (none without samples).
std::vector<BinDeviation> largest_deviations(std::span<const std::uint64_t> counts,
                                             std::span<const double> probability,
                                             std::span<const std::int32_t> group_of_cell,
                                             std::size_t count);

// The same over a given binning of these cells (from pool_cells at this sample count), keeping the
// `deviations` bins of largest |residual| in `largest` when it is given.
ChiSquareResult binned_chi_square(std::span<const std::uint64_t> counts,
                                  std::span<const double> probability,
                                  std::span<const std::int32_t> group_of_cell, const Binning& bins,
                                  std::size_t deviations, std::vector<BinDeviation>* largest);

// Predicted probability that pearson_chi_square at level alpha rejects when samples are drawn
// from `alternative` instead of `probability`: the non-central χ² with λ = n Σ_b (q_b − p_b)²/p_b
// over the same bins, combined with the chance of at least one impossible event
// (1 − (1 − q_impossible)^n), treating the two as independent.
double chi_square_power(std::span<const double> probability, std::span<const double> alternative,
                        std::span<const std::int32_t> group_of_cell, double samples, double alpha);

// The same over a given binning.
double binned_chi_square_power(const Binning& bins, std::span<const double> probability,
                               std::span<const double> alternative, double samples, double alpha);

// The smallest TV from `probability` of a contamination (1 − ε)·probability + ε·wrong that the χ²
// test at alpha with `samples` samples detects with at least `power`; none when even `wrong` itself
// is not detected that often.
std::optional<double> detectable_tv_toward(std::span<const double> probability,
                                           std::span<const double> wrong,
                                           std::span<const std::int32_t> group_of_cell,
                                           double samples, double alpha, double power = 0.99);

// Mean and sample standard deviation (0 for a single value) of a descriptive series.
struct MeanSd {
  double mean = 0.0;
  double sd = 0.0;
};
MeanSd mean_sd(std::span<const double> xs);

// Holm's step-down adjusted p-values, in the input's order.
std::vector<double> holm_adjust(std::span<const double> p_values);

// Two-sided z-test of a sample mean against mean0 using the exact null variance var0 (never the
// sample variance, which is 0 on near-deterministic rows). With var0 = 0 the mean must equal mean0.
double mean_z_test_p(double sample_mean, std::uint64_t samples, double mean0, double var0);
// One-sided version: small when the sample mean lies significantly below mean0.
double mean_below_z_test_p(double sample_mean, std::uint64_t samples, double mean0, double var0);

// Tests of a sum of independent draws from known laws on a few values (E[L]: exit depth + 1, with
// the exit law's mass at each depth; over many rounds, one law per round's tree). The p-value is
// the Chernoff bound exp(−Σ_t n_t·Λ*), the Cramér rate of the sum: valid at every n, however rare
// the events that carry the variance. (The z-test is not: three rare paths of mass q at n·q = 0.2
// give it p ≈ 3e-10 under the null.) The price is conservatism: about z·√(2π) times the normal
// tail where that one holds.
struct DrawnLaw {
  std::span<const double> values;         // the values a draw can take
  std::span<const double> probabilities;  // their probabilities
  double draws = 1.0;                     // how many independent draws from it the sum holds
};
// Below: small when the observed sum lies below its mean (an unsaturated verifier's gap).
double sum_below_chernoff_p(double observed_sum, std::span<const DrawnLaw> laws);
// Above: small when the observed sum lies above its mean (what Theorem 1, eq. 9 forbids).
double sum_above_chernoff_p(double observed_sum, std::span<const DrawnLaw> laws);
// Two-sided: twice the smaller one-sided bound.
double sum_two_sided_chernoff_p(double observed_sum, std::span<const DrawnLaw> laws);
// The same for the mean of n draws from one law.
double mean_below_chernoff_p(double sample_mean, std::uint64_t samples,
                             std::span<const double> values, std::span<const double> probabilities);
double mean_above_chernoff_p(double sample_mean, std::uint64_t samples,
                             std::span<const double> values, std::span<const double> probabilities);

}  // namespace tev::stats

namespace tev::stats {

// Exact binomial tests of k successes in n trials against success probability p.
// Two-sided: the total probability of outcomes no more likely than k (the "minimum likelihood"
// rule, as R's binom.test). Upper: P(X ≥ k), for "acceptance exceeds its ceiling".
double binomial_two_sided_p(std::uint64_t k, std::uint64_t n, double p);
double binomial_upper_p(std::uint64_t k, std::uint64_t n, double p);
// Lower: P(X ≤ k), for "acceptance falls short of its ceiling".
double binomial_lower_p(std::uint64_t k, std::uint64_t n, double p);

// Pearson's χ² test that two samples over the same cells come from one law (2 × cells contingency
// table). Cells whose pooled expected count is below 5 in either row pool into one tail bin.
ChiSquareResult homogeneity_chi_square(std::span<const std::uint64_t> a,
                                       std::span<const std::uint64_t> b);

// The Kolmogorov distribution P(K ≤ x), K = lim √n D_n: the alternating series
// 1 − 2 Σ (−1)^{k−1} e^{−2k²x²} for x ≥ 1, and the Jacobi-theta form
// √(2π)/x Σ e^{−(2k−1)²π²/(8x²)} below, where the first converges slowly.
double kolmogorov_cdf(double x);

struct KolmogorovSmirnovResult {
  double statistic = 0.0;  // D_n = sup |F_n − F|
  double p_value = 1.0;    // asymptotic, with Stephens' (√n + 0.12 + 0.11/√n) correction
};
// One-sample test that the values are Uniform(0, 1), e.g. p-values under a true null.
KolmogorovSmirnovResult ks_uniform(std::vector<double> values);

}  // namespace tev::stats
