#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "stats/goodness_of_fit.hpp"

namespace tev::stats {
namespace {

const std::vector<std::int32_t> kOneGroup4 = {0, 0, 0, 0};

TEST(PearsonChiSquare, HandComputedStatistic) {
  // Expected 25 each: X² = (5² + 5² + 0 + 0) / 25 = 2 on 3 dof; P(χ²₃ > 2) = 0.5724067044708798.
  const std::vector<std::uint64_t> counts = {30, 20, 25, 25};
  const std::vector<double> p = {.25, .25, .25, .25};
  const ChiSquareResult r = pearson_chi_square(counts, p, kOneGroup4);
  EXPECT_DOUBLE_EQ(r.statistic, 2.0);
  EXPECT_EQ(r.dof, 3);
  EXPECT_NEAR(r.p_value, 0.5724067044708798, 1e-12);
}

TEST(PearsonChiSquare, ImpossibleEventFailsAtOnce) {
  const std::vector<std::uint64_t> counts = {500, 499, 1, 0};
  const std::vector<double> p = {.5, .5, 0.0, 0.0};
  const ChiSquareResult r = pearson_chi_square(counts, p, kOneGroup4);
  EXPECT_EQ(r.impossible, 1u);
  EXPECT_EQ(r.first_impossible, 2);
  EXPECT_EQ(r.p_value, 0.0);
}

TEST(PoolCells, SmallCellsPoolIntoGroupThenGlobalTails) {
  // n = 100. Group 0: cells .5 (own bin), .03 and .03 (tail 6 ≥ 5: own bin).
  // Group 1: .4 (own bin), .02 (tail 2 < 5: global). Group 2: .02 (global). Global tail 4 < 5
  // joins the smallest bin (group 0's tail, .06). A zero cell stays impossible.
  const std::vector<double> p = {.5, .03, .03, .4, .02, .02, 0.0};
  const std::vector<std::int32_t> groups = {0, 0, 0, 1, 1, 2, 2};
  const Binning b = pool_cells(p, groups, 100.0);
  ASSERT_EQ(b.bin_probability.size(), 3u);
  EXPECT_EQ(b.bin_of_cell[1], b.bin_of_cell[2]);
  EXPECT_EQ(b.bin_of_cell[4], b.bin_of_cell[1]);
  EXPECT_EQ(b.bin_of_cell[5], b.bin_of_cell[1]);
  EXPECT_EQ(b.bin_of_cell[6], kImpossibleCell);
  EXPECT_NEAR(b.bin_probability[static_cast<std::size_t>(b.bin_of_cell[1])], .10, 1e-15);
}

// A sample in a zero cell is impossible whatever bin the pooling gave it: the decision reads the
// cell's own probability. A negative group is refused instead of indexing out of bounds.
TEST(PearsonChiSquare, ImpossibilityComesFromTheProbabilityAndGroupsAreChecked) {
  const std::vector<double> p = {.5, 0.0, .5};
  const ChiSquareResult r = pearson_chi_square(std::vector<std::uint64_t>{10, 1, 10}, p,
                                               std::vector<std::int32_t>{0, 0, 0});
  EXPECT_EQ(r.impossible, 1u);
  EXPECT_EQ(r.first_impossible, 1);
  EXPECT_EQ(r.p_value, 0.0);
  EXPECT_THROW(pool_cells(p, std::vector<std::int32_t>{0, -2, 0}, 10.0), std::invalid_argument);
}

TEST(Holm, StepDownAdjustment) {
  // Sorted: .005·4 = .02, .01·3 = .03, .03·2 = .06, .04·1 → max(.06, .04) = .06.
  const auto adjusted = holm_adjust(std::vector<double>{.01, .04, .03, .005});
  const std::vector<double> expected = {.03, .06, .06, .02};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(adjusted[i], expected[i], 1e-15);
}

TEST(Power, EqualsAlphaUnderTheNullAndGrowsWithTheEffect) {
  const std::vector<double> p = {.25, .25, .25, .25};
  EXPECT_NEAR(chi_square_power(p, p, kOneGroup4, 1000, 0.01), 0.01, 1e-12);
  const std::vector<double> q = {.30, .20, .25, .25};
  const double small = chi_square_power(p, q, kOneGroup4, 100, 0.01);
  const double large = chi_square_power(p, q, kOneGroup4, 10000, 0.01);
  EXPECT_LT(small, 0.5);
  EXPECT_GT(large, 0.999);
  // Mass on an impossible cell: with n = 1000 and q = 0.01 there, detection ≈ 1 − 0.99^1000.
  const std::vector<double> pz = {.5, .5, 0, 0}, qz = {.495, .495, .01, 0};
  EXPECT_GT(chi_square_power(pz, qz, kOneGroup4, 1000, 0.01), 1 - 5e-5);
}

TEST(MeanTest, UsesTheExactNullVariance) {
  // Mean 2.1 vs 2.0 with Var 1 and n = 100: z = 1, two-sided p = 0.31731050786291415.
  EXPECT_NEAR(mean_z_test_p(2.1, 100, 2.0, 1.0), 0.31731050786291415, 1e-12);
  // Zero null variance: exact equality passes, any deviation fails.
  EXPECT_EQ(mean_z_test_p(3.0, 10, 3.0, 0.0), 1.0);
  EXPECT_EQ(mean_z_test_p(2.9, 10, 3.0, 0.0), 0.0);
  // One-sided: z = −1 gives Φ(−1) = 0.15865525393145707; z = +1 gives 0.8413447460685429.
  EXPECT_NEAR(mean_below_z_test_p(1.9, 100, 2.0, 1.0), 0.15865525393145707, 1e-12);
  EXPECT_NEAR(mean_below_z_test_p(2.1, 100, 2.0, 1.0), 0.8413447460685429, 1e-12);
}

TEST(Binomial, ExactTestsAgainstBruteForceSums) {
  // Bin(20, 0.3), summing the pmf over outcomes no more likely than k (computed independently):
  // k = 2 → 0.052627948729727064, k = 10 → 0.08344502962981205; P(X ≥ 10) = 0.047961897331343435.
  EXPECT_NEAR(binomial_two_sided_p(2, 20, 0.3), 0.052627948729727064, 1e-12);
  EXPECT_NEAR(binomial_two_sided_p(10, 20, 0.3), 0.08344502962981205, 1e-12);
  EXPECT_NEAR(binomial_upper_p(10, 20, 0.3), 0.047961897331343435, 1e-12);
  EXPECT_NEAR(binomial_two_sided_p(6, 20, 0.3), 1.0, 1e-12);  // the mode
  EXPECT_EQ(binomial_two_sided_p(0, 10, 0.0), 1.0);
  EXPECT_EQ(binomial_two_sided_p(1, 10, 0.0), 0.0);
  EXPECT_EQ(binomial_two_sided_p(10, 10, 1.0), 1.0);
  // Large n stays fast and sane: 1,000,000 trials, observed exactly at the mean.
  EXPECT_NEAR(binomial_two_sided_p(250000, 1000000, 0.25), 1.0, 1e-3);
  EXPECT_LT(binomial_two_sided_p(252000, 1000000, 0.25), 1e-5);
}

TEST(Homogeneity, IdenticalSamplesPassAndShiftedOnesFail) {
  const std::vector<std::uint64_t> a = {100, 200, 300, 2}, b = {100, 200, 300, 1};
  const ChiSquareResult same = homogeneity_chi_square(a, a);
  EXPECT_DOUBLE_EQ(same.statistic, 0.0);
  EXPECT_EQ(same.dof, 3);  // three large cells and the sparse last cell as the tail bin
  EXPECT_GT(homogeneity_chi_square(a, b).p_value, 0.5);
  const std::vector<std::uint64_t> c = {300, 200, 100, 2};
  EXPECT_LT(homogeneity_chi_square(a, c).p_value, 1e-20);
}

TEST(Kolmogorov, MatchesTabulatedCriticalValues) {
  // Textbook asymptotic critical values: K(1.2238) = 0.90, K(1.3581) = 0.95, K(1.6276) = 0.99,
  // and K(1) = 0.7300003283 (both series agree there to 1e-15).
  EXPECT_NEAR(kolmogorov_cdf(1.2238), 0.90, 1e-4);
  EXPECT_NEAR(kolmogorov_cdf(1.3581), 0.95, 1e-5);
  EXPECT_NEAR(kolmogorov_cdf(1.6276), 0.99, 1e-5);
  EXPECT_NEAR(kolmogorov_cdf(1.0), 0.7300003283226455, 1e-12);
  EXPECT_NEAR(kolmogorov_cdf(0.5), 0.03605475633512489, 1e-12);
  // Continuity across the switch between the two series.
  EXPECT_NEAR(kolmogorov_cdf(1.0 - 1e-12), kolmogorov_cdf(1.0), 1e-10);
}

TEST(Kolmogorov, UniformSampleTest) {
  // Evenly spread points are as uniform as can be: D = 1/(2n).
  std::vector<double> even(1000);
  for (std::size_t i = 0; i < even.size(); ++i) even[i] = (static_cast<double>(i) + 0.5) / 1000.0;
  const auto r = ks_uniform(even);
  EXPECT_NEAR(r.statistic, 0.0005, 1e-15);
  EXPECT_GT(r.p_value, 0.999);
  // Squared uniforms are far from uniform.
  std::vector<double> squared = even;
  for (double& x : squared) x *= x;
  EXPECT_LT(ks_uniform(squared).p_value, 1e-10);
}

}  // namespace
}  // namespace tev::stats

namespace tev::stats {
namespace {

// Fair coins: the Chernoff bound of a mean of 0.3 over 100 is e^{−100 KL(0.3 ‖ 0.5)} in closed form.
TEST(MeanBound, MatchesTheBernoulliClosedForm) {
  const std::vector<double> values = {0.0, 1.0}, probs = {.5, .5};
  const double kl = 0.3 * std::log(0.6) + 0.7 * std::log(1.4);
  EXPECT_NEAR(mean_below_chernoff_p(0.3, 100, values, probs), std::exp(-100.0 * kl), 1e-12);
  EXPECT_NEAR(mean_above_chernoff_p(0.7, 100, values, probs), std::exp(-100.0 * kl), 1e-12);
  EXPECT_EQ(mean_below_chernoff_p(0.6, 100, values, probs), 1.0);  // on the other side of the mean
  EXPECT_NEAR(mean_below_chernoff_p(0.0, 10, values, probs), std::pow(0.5, 10),
              1e-15);  // every sample at the bottom
  EXPECT_EQ(mean_below_chernoff_p(-0.1, 10, values, probs),
            0.0);  // below every value the law allows
}

// The bound is a valid p-value: for every outcome k of Binomial(n, q), the bound at k/n is at least
// the exact lower tail P(X ≤ k). Checked exhaustively, including n·q = 0.2, where the z-test is
// anti-conservative by orders of magnitude.
TEST(MeanBound, NeverBelowTheExactTail) {
  for (const auto& [n, q] :
       std::vector<std::pair<std::uint64_t, double>>{{50, 0.5}, {1000, 0.2e-3}, {5000, 0.01}}) {
    const std::vector<double> values = {0.0, 1.0}, probs = {1.0 - q, q};
    double tail = 0.0, term = std::pow(1.0 - q, static_cast<double>(n));
    for (std::uint64_t k = 0; k <= std::min<std::uint64_t>(n, 200); ++k) {
      tail += term;
      const double mean = static_cast<double>(k) / static_cast<double>(n);
      EXPECT_GE(mean_below_chernoff_p(mean, n, values, probs) * (1.0 + 1e-9), std::min(1.0, tail))
          << "n " << n << " q " << q << " k " << k;
      term *= static_cast<double>(n - k) / static_cast<double>(k + 1) * q / (1.0 - q);
    }
  }
}

// What the bound replaces: three events of mass q = 2e-4 at n = 1000 (n·q = 0.2) under the null
// give the z-test p ≈ 1e-9 (it believes the variance is the normal one); the bound stays large.
TEST(MeanBound, RareEventsDoNotFoolIt) {
  const std::uint64_t n = 1000;
  const double q = 2e-4;
  const std::vector<double> values = {0.0, 10.0}, probs = {1.0 - q, q};
  const double mean = 3.0 * 10.0 / static_cast<double>(n);
  EXPECT_LT(mean_z_test_p(mean, n, 10.0 * q, 100.0 * q * (1.0 - q)), 1e-8);
  // Exact: P(X ≥ 3) for X ~ Binomial(1000, 2e-4) ≈ 1.1e-3; the bound must not be below it.
  EXPECT_GT(mean_above_chernoff_p(mean, n, values, probs), 1.1e-3);
}

}  // namespace
}  // namespace tev::stats
