// The identity test sees what binning cannot (mass moved inside a tail), its p-values near a tiny
// level are simulated, and its stated worst-direction TV is met by the least favourable law.
#include "stats/law_identity.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

#include "core/philox_engine.hpp"

namespace tev::stats {
namespace {

constexpr std::uint32_t kSeed = TEV_NULL_SIMULATION_SEED;

// n draws from `law` by inverse CDF on a test-owned Philox site.
std::vector<std::uint64_t> sample(std::span<const double> law, std::uint64_t n, std::uint32_t id) {
  std::vector<double> cumulative(law.size());
  double total = 0.0;
  for (std::size_t i = 0; i < law.size(); ++i) cumulative[i] = total += law[i];
  PhiloxEngine rng(DrawSite{kSeed, Stream::generation, id, 0x7e57});
  std::vector<std::uint64_t> counts(law.size(), 0);
  for (std::uint64_t k = 0; k < n; ++k) {
    const auto at = std::lower_bound(cumulative.begin(), cumulative.end(), rng.uniform() * total) -
                    cumulative.begin();
    ++counts[std::min(static_cast<std::size_t>(at), law.size() - 1)];
  }
  return counts;
}

// A uniform tail of `cells` cells in one group, and the law that keeps only its even cells.
struct TailCase {
  std::vector<double> null, evens;
  std::vector<std::int32_t> groups;
  explicit TailCase(std::size_t cells = 20000)
      : null(cells, 1.0 / static_cast<double>(cells)), evens(cells, 0.0), groups(cells, 0) {
    for (std::size_t i = 0; i < evens.size(); i += 2) evens[i] = 2.0 / static_cast<double>(cells);
  }
};

TEST(PoolCells, TailsAreCutInCellOrderIntoBinsOfEqualMass) {
  const TailCase t;
  const Binning b = pool_cells(t.null, t.groups, 20000.0);  // 1 expected per cell: all light
  ASSERT_EQ(b.bin_probability.size(), static_cast<std::size_t>(kTailBinsPerGroup));
  for (double p : b.bin_probability) EXPECT_NEAR(p, 1.0 / kTailBinsPerGroup, 1e-4);
  for (std::size_t i = 1; i < b.bin_of_cell.size(); ++i)
    EXPECT_GE(b.bin_of_cell[i], b.bin_of_cell[i - 1]);  // contiguous ranges
}

// TV 0.5 moved inside the bins (even cells only): every bin keeps its mass, so the χ² over bins is
// blind; the rare-cell statistic rejects. n = 20,000, level 1e-3 for the whole test.
TEST(IdentityTest, SeesMassMovedInsideATail) {
  const TailCase t;
  const ChiSquareResult r =
      identity_test(sample(t.evens, 20000, 1), t.null, t.groups, TestLevel{1e-3, 1e-3, kSeed, 0});
  EXPECT_GT(r.binned_p_value, 1e-2) << "the bins cannot see it";
  EXPECT_EQ(r.shared_cells, 20000u);
  EXPECT_GT(r.rare_z, 10.0);
  EXPECT_LT(r.p_value, 1e-3);
}

// A point mass (greedy decoding): the guarantee is that of seeing one sample off it, 1 − 0.01^(1/n)
// at power 0.99, at any level; under the null p = 1, and one sample off it gives p = 0.
TEST(IdentityTest, PointMassGuaranteeIsOneSampleOffIt) {
  const std::vector<double> point = {0.0, 1.0, 0.0, 0.0};
  const std::vector<std::int32_t> groups = {0, 0, 1, 1};
  const std::optional<double> tv = worst_case_detectable_tv(point, groups, 20000.0, 1e-6);
  ASSERT_TRUE(tv.has_value());
  EXPECT_NEAR(*tv, 1.0 - std::pow(0.01, 1.0 / 20000.0), 1e-15);
  EXPECT_LT(*tv, 2.5e-4);
  EXPECT_EQ(identity_test(std::vector<std::uint64_t>{0, 20000, 0, 0}, point, groups,
                          TestLevel{1e-6, 1e-6, kSeed, 0})
                .p_value,
            1.0);
  EXPECT_EQ(identity_test(std::vector<std::uint64_t>{0, 19999, 1, 0}, point, groups,
                          TestLevel{1e-6, 1e-6, kSeed, 0})
                .p_value,
            0.0);
}

// Under the null at a level far below the asymptotic tail's reach, the p-value stays well above it.
TEST(IdentityTest, NullSampleIsNotRejected) {
  const TailCase t;
  const ChiSquareResult r =
      identity_test(sample(t.null, 20000, 2), t.null, t.groups, TestLevel{1e-4, 1e-4, kSeed, 0});
  EXPECT_GT(r.p_value, 1e-3) << "binned p " << r.binned_p_value << ", rare z " << r.rare_z;
}

// The Besag–Clifford p-value of a uniform statistic observed at 0.99 is about 0.01: it stops at 20
// exceedances, so after about 2,000 replicates (fixed by the counter-based replicates).
TEST(SequentialMonteCarlo, StopsAfterItsExceedances) {
  const auto replicate = [](std::uint64_t r) {
    return uniform(DrawSite{kSeed, Stream::null_simulation, 7, r}, 0);
  };
  const SequentialPValue p = sequential_monte_carlo_p(0.99, replicate, 20, 1'000'000);
  EXPECT_NEAR(p.p_value, 0.01, 0.005);
  EXPECT_LT(p.replicates, 4000u);
  // Never reached: p = 1/(max + 1), the smallest it can say.
  EXPECT_DOUBLE_EQ(sequential_monte_carlo_p(2.0, replicate, 20, 999).p_value, 1.0 / 1000.0);
}

// The blocks run in parallel, yet the answer is the one-at-a-time rule's: the same stopping
// replicate and p-value, whether it stops in the first block, a later one or not at all.
TEST(SequentialMonteCarlo, ParallelBlocksGiveTheSequentialAnswer) {
  const auto replicate = [](std::uint64_t r) {
    return uniform(DrawSite{kSeed, Stream::null_simulation, 7, r}, 0);
  };
  constexpr std::uint64_t kMax = 200'000;
  for (const double observed : {0.5, 0.99, 0.9995, 2.0}) {
    const double reach = observed - 1e-9 * std::max(1.0, observed);
    std::uint64_t hits = 0, r = 0;
    double p = -1.0;
    while (r < kMax && p < 0.0) {
      if (replicate(r++) >= reach && ++hits == 20) p = 20.0 / static_cast<double>(r);
    }
    if (p < 0.0) p = (static_cast<double>(hits) + 1.0) / (static_cast<double>(kMax) + 1.0);
    const SequentialPValue got = sequential_monte_carlo_p(observed, replicate, 20, kMax);
    EXPECT_EQ(got.replicates, r) << "observed " << observed;
    EXPECT_DOUBLE_EQ(got.p_value, p) << "observed " << observed;
  }
}

// Powers are stated at power_level(level): where the statistic's true p-value equals it, the
// weighted Monte Carlo p-value as capped rejects at `level` with probability ≥ 0.995. Simulated on
// a statistic with a known tail (a uniform replicate; the observed value leaves mass p above it),
// 4,000 trials per level: at 0.995 the misses are Binomial(4000, 0.005), mean 20, so more than 40
// (below 99 %) has probability 4e-5. A level taken as 0.89 × the level would reject about 41 %.
TEST(IdentityTest, PowerLevelIsWhereTheCappedMonteCarloRejects) {
  constexpr std::uint32_t kTrials = 4000;
  for (const double level : {1e-2, 1e-3}) {
    const double p = power_level(level);
    ASSERT_GT(p, 0.0);
    EXPECT_LT(p, 0.1 * level) << "a twentieth of the level, give or take";
    std::uint32_t rejected = 0;
    for (std::uint32_t trial = 0; trial < kTrials; ++trial) {
      const auto replicate = [&](std::uint64_t r) {
        return uniform(DrawSite{kSeed, Stream::null_simulation, trial, r}, 0);
      };
      rejected += weighted_monte_carlo_p(1.0 - p, replicate, level) <= level ? 1 : 0;
    }
    EXPECT_GE(rejected, 0.99 * kTrials) << "level " << level << ", power level " << p;
  }
}

// The weighted Monte Carlo p-value stops at monte_carlo_exceedances(level) exceedances, yet decides
// at `level` as the whole cap does, on every draw: 500 trials per level with a true p of half the
// level (about as many rejections as not) and 500 with ten times the level, against the same
// replicates run to the cap. At ten times the level it stops after about 3/(10·level) replicates,
// an eighth of the cap's 2/(0.89·level).
TEST(SequentialMonteCarlo, StopsWhereTheCapCouldNoLongerReject) {
  constexpr std::uint32_t kTrials = 500;
  for (const double level : {1e-2, 1e-3}) {
    const std::uint64_t cap = monte_carlo_cap(level);
    for (const double truth : {0.5 * level, 10.0 * level}) {
      std::uint32_t rejected = 0;
      std::uint64_t drawn = 0;
      for (std::uint32_t trial = 0; trial < kTrials; ++trial) {
        const auto replicate = [&](std::uint64_t r) {
          return uniform(DrawSite{kSeed, Stream::null_simulation, trial, r}, 1);
        };
        const SequentialPValue stopped =
            sequential_monte_carlo_p(1.0 - truth, replicate, monte_carlo_exceedances(level), cap);
        const SequentialPValue whole =
            sequential_monte_carlo_p(1.0 - truth, replicate, cap + 1, cap);
        const bool rejects = stopped.p_value / kMonteCarloWeight <= level;
        EXPECT_EQ(rejects, whole.p_value / kMonteCarloWeight <= level)
            << "level " << level << ", trial " << trial;
        rejected += rejects ? 1 : 0;
        drawn += stopped.replicates;
      }
      if (truth < level) {
        EXPECT_GT(rejected, kTrials / 10)
            << "both decisions must occur for the comparison to mean anything";
        EXPECT_LT(rejected, kTrials * 9 / 10);
      } else {
        EXPECT_EQ(rejected, 0u);
        EXPECT_LT(static_cast<double>(drawn) / kTrials, 0.25 * static_cast<double>(cap))
            << "level " << level;
      }
    }
  }
}

// A simulated p-value stops at its caller's interrupt poll (core/interrupt.hpp): within the first
// 64 replicates the caller's thread computes, and only there.
TEST(IdentityTest, AnInterruptStopsItsMonteCarlo) {
  struct Interrupted {};
  const TailCase t;
  std::vector<double> mild = t.null;
  for (std::size_t i = 0; i + 1 < mild.size(); i += 2) mild[i] *= 1.1, mild[i + 1] *= 0.9;
  const std::vector<std::uint64_t> counts = sample(mild, 20000, 3);
  const InterruptPoll poll([] { throw Interrupted{}; });
  EXPECT_THROW(identity_test(counts, t.null, t.groups, TestLevel{1.0, 1.0, kSeed, 0}), Interrupted);
}

// A simulated p-value tells its caller's progress line how far it has come: it opens its step at
// 0, then notes the replicates drawn after each block, up to the replicates it drew.
TEST(IdentityTest, ItsMonteCarloNotesTheReplicatesDrawn) {
  std::vector<std::uint64_t> done;
  std::uint64_t most = 0;
  const LongStepNotices notices([&](std::string_view, std::uint64_t d, std::uint64_t m) {
    done.push_back(d);
    most = m;
  });
  const SequentialPValue p = sequential_monte_carlo_p(
      1.0, [](std::uint64_t) { return 0.0; }, 3, 1000);
  EXPECT_EQ(p.replicates, 1000u);
  EXPECT_EQ(most, 1000u);
  ASSERT_GE(done.size(), 3u);
  EXPECT_EQ(done.front(), 0u);
  EXPECT_TRUE(std::is_sorted(done.begin(), done.end()));
  EXPECT_EQ(done.back(), 1000u);
}

// Near a tiny level a p-value is simulated, not read from the asymptotic tail.
TEST(IdentityTest, PValuesNearTheLevelAreSimulated) {
  const TailCase t;
  // A mild within-tail bias: 10 % of the odd cells' mass moved to the even ones.
  std::vector<double> mild = t.null;
  for (std::size_t i = 0; i + 1 < mild.size(); i += 2) mild[i] *= 1.1, mild[i + 1] *= 0.9;
  const ChiSquareResult asymptotic =
      identity_test(sample(mild, 20000, 3), t.null, t.groups, TestLevel{});
  EXPECT_FALSE(asymptotic.simulated);
  const ChiSquareResult near =
      identity_test(sample(mild, 20000, 3), t.null, t.groups, TestLevel{1.0, 1.0, kSeed, 0});
  EXPECT_TRUE(near.simulated);
  // Told not to simulate (its decision made elsewhere), it gives the bounds' p-value: valid, and
  // no smaller than the simulated one.
  const ChiSquareResult bounded =
      identity_test(sample(mild, 20000, 3), t.null, t.groups, TestLevel{1.0, 1.0, kSeed, 0, false});
  EXPECT_FALSE(bounded.simulated);
  EXPECT_GE(bounded.p_value, near.p_value);
}

// A simulated p-value is a function of the run's seed: the same seed gives the same replicates
// and p, another seed other replicates (so the level holds for each run, not on average over case
// layouts with one fixed set of replicates).
TEST(IdentityTest, NullReplicatesAreKeyedByTheRunsSeed) {
  const TailCase t;
  std::vector<double> mild = t.null;
  for (std::size_t i = 0; i + 1 < mild.size(); i += 2) mild[i] *= 1.1, mild[i + 1] *= 0.9;
  const std::vector<std::uint64_t> counts = sample(mild, 20000, 3);
  const auto p = [&](std::uint32_t seed) {
    return identity_test(counts, t.null, t.groups, TestLevel{1.0, 1.0, seed, 0});
  };
  const ChiSquareResult first = p(kSeed), again = p(kSeed), other = p(kSeed + 1);
  ASSERT_TRUE(first.simulated && other.simulated);
  EXPECT_EQ(first.p_value, again.p_value);
  EXPECT_NE(first.p_value, other.p_value);
}

// The stated worst-direction TV: the flat within-bin law at that TV (half of each bin's cells up,
// half down: the least the rare-cell statistic can see per unit of TV) is rejected in at least
// 95 of 100 replicates (predicted ≥ 99 %; binomial P(X ≤ 94 | 0.99) = 5e-4). Level 1e-2, where the
// replicates' Monte Carlo p-values cost little; a 5,000-cell tail, n = 5,000.
TEST(IdentityTest, StatedWorstDirectionTvIsMetByTheFlatAlternative) {
  const TailCase t(5000);
  const double level = 1e-2;
  const std::optional<double> tv = worst_case_detectable_tv(t.null, t.groups, 5000.0, level, 0.99);
  ASSERT_TRUE(tv.has_value());
  EXPECT_LT(*tv, 0.5);
  std::vector<double> flat = t.null;
  for (std::size_t i = 0; i + 1 < flat.size(); i += 2)
    flat[i] *= 1.0 + 2.0 * *tv, flat[i + 1] *= 1.0 - 2.0 * *tv;
  int rejected = 0;
  for (std::uint32_t r = 0; r < 100; ++r) {
    rejected += identity_test(sample(flat, 5000, 100 + r), t.null, t.groups,
                              TestLevel{level, level, kSeed, r})
                    .p_value <= level;
  }
  EXPECT_GE(rejected, 95) << "stated TV " << *tv;
  EXPECT_GE(identity_test_power(t.null, flat, t.groups, 5000.0, level), 0.99);
}

// Mass moved into a bin's rarest cells keeps every bin's mass, so the χ² over bins is blind;
// alone, cells expected fewer than 0.05 times say nothing, so the rare-cell statistic pools them
// into one cell per bin, which sees the move. The tail alternates cells expected once and cells
// expected 0.01 times; the alternative moves TV 0.08 from the first kind to the second inside
// every bin, above the TV the test guarantees there, and must be rejected in at least 95 of 100
// replicates (predicted ≥ 99 %; binomial P(X ≤ 94 | 0.99) = 5e-4). Level 1e-3, n = 20,000.
TEST(IdentityTest, MassMovedIntoTheRarestCellsIsSeen) {
  constexpr std::size_t kPairs = 2000;
  constexpr double kOnce = 1.0 / 20000, kRare = 0.01 / 20000, kMoved = 0.08;
  std::vector<double> null{1.0 - kPairs * (kOnce + kRare)}, moved = null;
  for (std::size_t k = 0; k < kPairs; ++k) {
    null.insert(null.end(), {kOnce, kRare});
    moved.insert(moved.end(), {kOnce * (1.0 - kMoved / (kPairs * kOnce)), kRare + kMoved / kPairs});
  }
  const std::vector<std::int32_t> groups(null.size(), 0);
  const double level = 1e-3;
  const std::optional<double> tv = worst_case_detectable_tv(null, groups, 20000.0, level, 0.99);
  ASSERT_TRUE(tv.has_value());
  EXPECT_LT(*tv, kMoved) << "the test states a guarantee that covers this move";
  int rejected = 0;
  for (std::uint32_t r = 0; r < 100; ++r) {
    rejected += identity_test(sample(moved, 20000, 300 + r), null, groups,
                              TestLevel{level, level, kSeed, r})
                    .p_value <= level;
  }
  EXPECT_GE(rejected, 95) << "stated TV " << *tv;
}

// Strong rejections are decided by valid finite-sample bounds, without simulation: here one cell
// of the tail drew half the samples.
TEST(IdentityTest, StrongRejectionsNeedNoSimulation) {
  const TailCase t;
  std::vector<double> spike = t.null;
  for (double& p : spike) p *= 0.5;
  spike[7] += 0.5;
  const ChiSquareResult r =
      identity_test(sample(spike, 20000, 5), t.null, t.groups, TestLevel{1e-6, 1e-6, kSeed, 0});
  EXPECT_LT(r.p_value, 1e-6);
  EXPECT_FALSE(r.simulated);
}

// Mass moved between exit nodes and spread evenly over their cells is decided by the exact
// binomial tail of a node's count, without simulation: two nodes of 50 cells each, node 0 drawing
// 52 % of n = 100,000 samples instead of 50 % (12.6 standard deviations; every cell alone only
// 1.3). Counts are the expected ones under that law, so no seed enters.
TEST(IdentityTest, MassMovedBetweenNodesNeedsNoSimulation) {
  constexpr std::size_t kCells = 100;
  constexpr double kSamples = 100'000.0;
  std::vector<double> null(kCells, 1.0 / kCells);
  std::vector<std::int32_t> groups(kCells, 0);
  std::vector<std::uint64_t> counts(kCells);
  for (std::size_t i = 0; i < kCells; ++i) {
    groups[i] = i < kCells / 2 ? 0 : 1;
    counts[i] = static_cast<std::uint64_t>(
        std::lround(kSamples * (i < kCells / 2 ? 0.52 : 0.48) / (kCells / 2)));
  }
  const ChiSquareResult r = identity_test(counts, null, groups, TestLevel{1e-6, 1e-6, kSeed, 0});
  EXPECT_LT(r.p_value, 1e-6);
  EXPECT_FALSE(r.simulated);
}

}  // namespace
}  // namespace tev::stats
