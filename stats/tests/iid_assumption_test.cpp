// The tests of independence pass an i.i.d. stream and catch what each is for: two blocks sharing
// their draw (neighbours, or blocks up to kSerialLags apart, replayed or mirrored), blocks
// alternating between two laws that average to the reference, a law that changes between the
// stream's halves, and two streams that share their draws. Every test here runs at level kLevel
// on kSamples samples of a fixed seed.
#include "stats/iid_assumption.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/philox_engine.hpp"

namespace tev::stats {
namespace {

constexpr std::uint32_t kIidSeed = 20261203;
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
  for (std::uint32_t t = 0; t < kIidTests; ++t) out.push_back({kLevel, kLevel, kIidSeed, t});
  return out;
}

// A stream whose sample s has uniform draw(s, rng) and lies in CDF range range(s).
template <class Draw>
std::vector<std::int64_t> stream(std::uint32_t id, Draw&& draw) {
  PhiloxEngine rng(DrawSite{kIidSeed, Stream::generation, id, 0x11d});
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
    EXPECT_TRUE(rejects(tests[serial_test_index(1, phase)]))
        << tests[serial_test_index(1, phase)].name;
  }
}

// The joint law of two samples' pair bins against the product, as a TV: `joint` (bins, bins)
// counts the pairs, the product is the reference's bin law with itself.
double pair_tv(const Binning& bins, std::span<const double> joint) {
  const std::size_t b = bins.bin_probability.size();
  double total = 0.0, tv = 0.0;
  for (double x : joint) total += x;
  for (std::size_t i = 0; i < b; ++i) {
    for (std::size_t j = 0; j < b; ++j)
      tv += std::abs(joint[i * b + j] / total - bins.bin_probability[i] * bins.bin_probability[j]);
  }
  return tv / 2.0;
}

// A stream whose sample i + lag reuses sample i's uniform u (replayed: u; mirrored: 1 − u) for
// every i at `phase` (i mod 2·lag < lag, or >= lag): two generators used in turn at lag 2, each
// replaying its last draw once. Each sample is exact; the pairs at that lag and phase are not,
// by far more than their stated TV, and their test rejects. (Other tests may reject too: a pair
// and its replay are counted twice, which over-disperses the counts.)
TEST(IidTests, ASampleReusingTheDrawOfOneUpToKSerialLagsBackIsCaughtAtItsLagAndPhase) {
  const Law law;
  for (std::size_t lag = 1; lag <= kSerialLags; ++lag) {
    for (std::size_t phase = 0; phase < kSerialPhases; ++phase) {
      for (const bool mirrored : {false, true}) {
        std::vector<double> u;
        const auto id = static_cast<std::uint32_t>(100 + 4 * lag + 2 * phase + (mirrored ? 1 : 0));
        const std::vector<std::int64_t> s = stream(id, [&](std::uint64_t i, PhiloxEngine& rng) {
          const bool reuses = i >= lag && ((i - lag) % (2 * lag) < lag) == (phase == 0);
          u.push_back(!reuses ? rng.uniform() : mirrored ? 1.0 - u[i - lag] : u[i - lag]);
          return law.cell(u.back());
        });
        const std::vector<IidTest> tests = run(law, s);
        const IidTest& t = tests[serial_test_index(lag, phase)];
        const std::string what = t.name + (mirrored ? " mirrored" : " replayed");
        EXPECT_TRUE(rejects(t)) << what << ": " << iid_tests_text(tests);
        // The pairs' binned joint law, measured on the stream in the tests' bins (at the stream's
        // fewest pairs, lag kSerialLags), is far from the product.
        const Binning bins = pair_bins(law.p, law.groups,
                                       static_cast<double>(serial_pairs(kSamples, kSerialLags, 1)));
        const std::size_t b = bins.bin_probability.size();
        std::vector<double> joint(b * b, 0.0);
        for (std::size_t i = 0; i + lag < s.size(); ++i) {
          if ((i % (2 * lag) < lag) != (phase == 0)) continue;
          const std::int32_t x = bins.bin_of_cell[static_cast<std::size_t>(s[i])],
                             y = bins.bin_of_cell[static_cast<std::size_t>(s[i + lag])];
          if (x >= 0 && y >= 0)
            joint[static_cast<std::size_t>(x) * b + static_cast<std::size_t>(y)] += 1.0;
        }
        ASSERT_TRUE(t.detectable_tv.has_value()) << what;
        EXPECT_GT(pair_tv(bins, joint), 2.0 * *t.detectable_tv) << what;
      }
    }
  }
}

// At the stated TV itself: sample i + 2 (i mod 4 < 2) replays (or mirrors) sample i's uniform with
// probability r, else draws its own, so that the pairs' binned joint law is r·(the full reuse's) +
// (1 − r)·product, at TV r·(the full reuse's TV) = the test's stated TV@99%. The test must reject
// it with probability ≥ 0.99: 20 replicates of kSamples samples at level kLevel, at least 19 reject.
TEST(IidTests, ALag2ReuseAtTheStatedTvIsRejected) {
  const Law law;
  constexpr std::size_t lag = 2, index = serial_test_index(2, 0);
  const Binning bins =
      pair_bins(law.p, law.groups, static_cast<double>(serial_pairs(kSamples, kSerialLags, 1)));
  const std::size_t b = bins.bin_probability.size();
  // The full reuse's joint law of bins, replayed (the diagonal) or mirrored (u → 1 − u), measured
  // on a million uniforms.
  for (const bool mirrored : {false, true}) {
    std::vector<double> joint(b * b, 0.0);
    PhiloxEngine rng(DrawSite{kIidSeed, Stream::generation, 300, 0x11d});
    for (int k = 0; k < 1000000; ++k) {
      const double u = rng.uniform();
      const std::int32_t
          x = bins.bin_of_cell[static_cast<std::size_t>(law.cell(u))],
          y = bins.bin_of_cell[static_cast<std::size_t>(law.cell(mirrored ? 1.0 - u : u))];
      if (x >= 0 && y >= 0)
        joint[static_cast<std::size_t>(x) * b + static_cast<std::size_t>(y)] += 1.0;
    }
    const double full = pair_tv(bins, joint);
    // The stated TV depends on the law and the count alone: read it off a stream with no cells.
    const double stated =
        *run(law, std::vector<std::int64_t>(kSamples, kNoCell))[index].detectable_tv;
    const double r = stated / full;
    ASSERT_LT(r, 1.0);
    int rejected = 0;
    for (std::uint32_t rep = 0; rep < 20; ++rep) {
      std::vector<double> u;
      const std::vector<std::int64_t> s =
          stream(400 + rep + (mirrored ? 100 : 0), [&](std::uint64_t i, PhiloxEngine& g) {
            const bool pair_second = i >= lag && (i - lag) % (2 * lag) < lag;
            const double own = g.uniform(), coin = g.uniform();
            u.push_back(!pair_second || coin >= r ? own : mirrored ? 1.0 - u[i - lag] : u[i - lag]);
            return law.cell(u.back());
          });
      rejected += rejects(run(law, s)[index]) ? 1 : 0;
    }
    EXPECT_GE(rejected, 19) << (mirrored ? "mirrored" : "replayed") << ": stated TV " << stated
                            << ", full reuse's TV " << full;
  }
}

// Each lag's two phases hold every pair at that lag once, their pairs disjoint within a phase.
TEST(IidTests, EachLagsPhasesHoldItsPairsOnceAndDisjoint) {
  for (const std::uint64_t n : {9u, 10u, 17u, 40000u, 40001u, 40003u}) {
    for (std::size_t lag = 1; lag <= kSerialLags; ++lag) {
      std::uint64_t both = 0;
      for (std::size_t phase = 0; phase < kSerialPhases; ++phase) {
        std::vector<int> used(n, 0);
        std::uint64_t pairs = 0;
        for (std::uint64_t i = 0; i + lag < n; ++i) {
          if ((i % (2 * lag) < lag) != (phase == 0)) continue;
          ++pairs;
          EXPECT_EQ(++used[i] + ++used[i + lag], 2) << n << " lag " << lag << " phase " << phase;
        }
        EXPECT_EQ(serial_pairs(n, lag, phase), pairs) << n << " lag " << lag << " phase " << phase;
        EXPECT_GT(pairs, 0u);
        both += pairs;
      }
      EXPECT_EQ(both, n - lag);
    }
  }
  std::vector<std::string> names;
  for (std::size_t lag = 1; lag <= kSerialLags; ++lag) {
    for (std::size_t phase = 0; phase < kSerialPhases; ++phase)
      names.push_back(serial_test_name(lag, phase));
  }
  EXPECT_EQ(names[0], "pairs (2k, 2k+1)");
  EXPECT_EQ(names[3], "pairs (i, i+2), i mod 4 >= 2");
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::unique(names.begin(), names.end()), names.end());
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
  EXPECT_TRUE(rejects(tests[serial_test_index(1, 0)]) && rejects(tests[serial_test_index(1, 1)]))
      << iid_tests_text(tests);
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
  PhiloxEngine rng(DrawSite{kIidSeed, Stream::generation, 4, 0x11d});
  std::vector<std::int64_t> first, second, own;
  for (std::uint64_t r = 0; r < kSamples; ++r) {
    const double shared = rng.uniform();
    first.push_back(in_group(group_at(rng.uniform()), shared));
    second.push_back(in_group(group_at(rng.uniform()), shared));
    own.push_back(in_group(group_at(rng.uniform()), rng.uniform()));
  }
  const IidTest shared_test =
      pair_test(first, second, product, {kLevel, kLevel, kIidSeed, 10}, 0.99, "shared");
  EXPECT_TRUE(rejects(shared_test)) << shared_test.result.p_value;
  const IidTest clean =
      pair_test(first, own, product, {kLevel, kLevel, kIidSeed, 11}, 0.99, "independent");
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
