// The tests of independence pass an i.i.d. stream and catch what each is for: two blocks sharing
// their draw, blocks alternating between two laws that average to the reference, a law that
// changes between the stream's halves, and two streams that share their draws.
#include "stats/iid_assumption.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/philox_engine.hpp"

namespace tev::stats {
namespace {

constexpr std::uint32_t kSeed = 20261203;
constexpr double kLevel = 1e-4;  // each test's level here; the stated p-values are valid at it
constexpr std::uint64_t kSamples = 40000;

// 48 cells in 6 groups of 8 (an exit node's row each), uneven masses, a light tail in every group.
struct Law {
  std::vector<double> p;
  std::vector<std::int32_t> groups;
  Law() {
    double total = 0.0;
    for (int i = 0; i < 48; ++i) {
      p.push_back(i % 8 < 3 ? 1.0 + (i % 5) : 0.02 * (1 + i % 3));
      groups.push_back(i / 8);
      total += p.back();
    }
    for (double& x : p) x /= total;
  }
  // The cell at uniform u (inverse CDF), restricted to the CDF range [from, to).
  std::int64_t cell(double u, double from = 0.0, double to = 1.0) const {
    const double target = from + u * (to - from);
    double running = 0.0;
    for (std::size_t i = 0; i < p.size(); ++i) {
      running += p[i];
      if (target < running) return static_cast<std::int64_t>(i);
    }
    return static_cast<std::int64_t>(p.size()) - 1;
  }
};

std::vector<TestLevel> levels() {
  std::vector<TestLevel> out;
  for (std::uint32_t t = 0; t < kIidTests; ++t) out.push_back({kLevel, kLevel, kSeed, t});
  return out;
}

// A stream whose sample s has uniform draw(s, rng) and lies in CDF range range(s).
template <class Draw>
std::vector<std::int64_t> stream(std::uint32_t id, Draw&& draw) {
  PhiloxEngine rng(DrawSite{kSeed, Stream::generation, id, 0x11d});
  std::vector<std::int64_t> out;
  for (std::uint64_t s = 0; s < kSamples; ++s) out.push_back(draw(s, rng));
  return out;
}

std::vector<IidTest> run(const Law& law, const std::vector<std::int64_t>& s) {
  return iid_tests(s, law.p, law.groups, levels(), 0.99);
}

bool rejects(const IidTest& t) { return t.result.p_value <= kLevel; }

TEST(IidTests, AnIidStreamPassesEveryTest) {
  const Law law;
  const std::vector<IidTest> tests = run(
      law, stream(0, [&](std::uint64_t, PhiloxEngine& rng) { return law.cell(rng.uniform()); }));
  ASSERT_EQ(tests.size(), kIidTests);
  for (const IidTest& t : tests) {
    EXPECT_FALSE(rejects(t)) << t.name << " p " << t.result.p_value;
    ASSERT_TRUE(t.detectable_tv.has_value()) << t.name;
    EXPECT_LT(*t.detectable_tv, 0.1) << t.name;
  }
}

// Blocks 2k and 2k + 1 (or 2k + 1 and 2k + 2) share their uniform: each is exact, the pairs at
// that phase are not.
TEST(IidTests, ABlockSharingItsNeighboursDrawIsCaughtAtItsPhase) {
  const Law law;
  for (std::uint64_t phase = 0; phase < 2; ++phase) {
    double last = 0.0;
    const std::vector<IidTest> tests = run(law, stream(1, [&](std::uint64_t s, PhiloxEngine& rng) {
                                             if (s < phase || (s - phase) % 2 == 0)
                                               last = rng.uniform();
                                             return law.cell(last);
                                           }));
    // Each block is exact; the halves' counts are over-dispersed (each draw counted twice), which
    // their tests may see too.
    EXPECT_TRUE(rejects(tests[kStationaritySegments + phase]))
        << tests[kStationaritySegments + phase].name;
  }
}

// Consecutive blocks alternate between the reference moved 10 % towards the first half of its CDF
// and 10 % towards the second: every segment's law is the reference, consecutive pairs are not.
TEST(IidTests, AlternatingLawsThatAverageToTheReferenceAreCaught) {
  const Law law;
  const std::vector<IidTest> tests =
      run(law, stream(2, [&](std::uint64_t s, PhiloxEngine& rng) {
            const double u = rng.uniform();
            if (rng.uniform() >= 0.2) return law.cell(u);
            return s % 2 == 0 ? law.cell(u, 0.0, 0.5) : law.cell(u, 0.5, 1.0);
          }));
  EXPECT_FALSE(rejects(tests[0]) || rejects(tests[1]));
  EXPECT_TRUE(rejects(tests[2]) && rejects(tests[3])) << iid_tests_text(tests);
}

// The first half of the stream leans to the first half of the CDF, the second half to the other:
// the whole averages to the reference, each half is off by TV 0.1.
TEST(IidTests, ALawThatChangesBetweenTheHalvesIsCaught) {
  const Law law;
  const std::vector<IidTest> tests =
      run(law, stream(3, [&](std::uint64_t s, PhiloxEngine& rng) {
            const double u = rng.uniform();
            if (rng.uniform() >= 0.2) return law.cell(u);
            return s < kSamples / 2 ? law.cell(u, 0.0, 0.5) : law.cell(u, 0.5, 1.0);
          }));
  EXPECT_TRUE(rejects(tests[0]) && rejects(tests[1])) << iid_tests_text(tests);
}

// Two streams whose exit node (group) each draws on its own uniform and whose cell within it on
// one uniform both share (a bonus drawn from a shared uniform): each margin is the reference law,
// the pair test sees the shared part; two independent streams pass it.
TEST(IidTests, ThePairTestSeesABonusUniformSharedBetweenTwoStreams) {
  const Law law;
  const Binning bins = pair_bins(law.p, law.groups, static_cast<double>(kSamples));
  EXPECT_LE(bins.bin_probability.size(), kPairBins);
  const PairLaw product = pair_law(bins, bins);
  std::vector<double> group_mass(6, 0.0);
  for (std::size_t i = 0; i < law.p.size(); ++i)
    group_mass[static_cast<std::size_t>(law.groups[i])] += law.p[i];
  // The cell of group g at uniform u within it (inverse CDF of the group's row).
  const auto in_group = [&](std::size_t g, double u) {
    double running = 0.0;
    for (std::size_t i = 8 * g; i < 8 * g + 8; ++i) {
      running += law.p[i] / group_mass[g];
      if (u < running) return static_cast<std::int64_t>(i);
    }
    return static_cast<std::int64_t>(8 * g + 7);
  };
  const auto group_at = [&](double u) {
    double running = 0.0;
    for (std::size_t g = 0; g < 6; ++g) {
      if (u < (running += group_mass[g])) return g;
    }
    return std::size_t{5};
  };
  PhiloxEngine rng(DrawSite{kSeed, Stream::generation, 4, 0x11d});
  std::vector<std::int64_t> first, second, own;
  for (std::uint64_t r = 0; r < kSamples; ++r) {
    const double shared = rng.uniform();
    first.push_back(in_group(group_at(rng.uniform()), shared));
    second.push_back(in_group(group_at(rng.uniform()), shared));
    own.push_back(in_group(group_at(rng.uniform()), rng.uniform()));
  }
  const IidTest shared_test =
      pair_test(first, second, product, {kLevel, kLevel, kSeed, 10}, 0.99, "shared");
  EXPECT_TRUE(rejects(shared_test)) << shared_test.result.p_value;
  const IidTest clean =
      pair_test(first, own, product, {kLevel, kLevel, kSeed, 11}, 0.99, "independent");
  EXPECT_FALSE(rejects(clean)) << clean.result.p_value;
}

// The pair bins depend on the law and the count alone, and never exceed kPairBins.
TEST(IidTests, PairBinsAreFewAndDataIndependent) {
  const Law law;
  for (const double pairs : {10.0, 1000.0, 1e6}) {
    const Binning a = pair_bins(law.p, law.groups, pairs), b = pair_bins(law.p, law.groups, pairs);
    EXPECT_LE(a.bin_probability.size(), kPairBins) << pairs;
    EXPECT_EQ(a.bin_of_cell, b.bin_of_cell);
  }
}

}  // namespace
}  // namespace tev::stats
