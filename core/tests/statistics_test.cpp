#include <gtest/gtest.h>

#include <vector>

#include "core/statistics.hpp"

namespace tev {
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
  EXPECT_NEAR(mean_test_p_value(2.1, 100, 2.0, 1.0), 0.31731050786291415, 1e-12);
  // Zero null variance: exact equality passes, any deviation fails.
  EXPECT_EQ(mean_test_p_value(3.0, 10, 3.0, 0.0), 1.0);
  EXPECT_EQ(mean_test_p_value(2.9, 10, 3.0, 0.0), 0.0);
}

}  // namespace
}  // namespace tev
