#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "core/philox.hpp"
#include "core/sampling.hpp"

namespace tev {
namespace {

// Known-answer vectors of Philox4x32-10 from Random123's tests/kat_vectors (counter, key, output).
TEST(Philox, KnownAnswers) {
  struct Kat {
    std::array<std::uint32_t, 4> ctr;
    std::array<std::uint32_t, 2> key;
    std::array<std::uint32_t, 4> out;
  };
  const std::array<Kat, 3> kats = {{
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  }};
  for (const Kat& k : kats) {
    r123::Philox4x32 rng;
    const auto out = rng({{k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]}}, {{k.key[0], k.key[1]}});
    for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], k.out[i]) << "word " << i;
  }
}

TEST(Philox, CounterLayoutIsSampleDrawTreeAndKeyIsSeedStream) {
  const DrawSite site{0xa4093822u, Stream::completion, 0x03707344u,
                      (std::uint64_t{0x85a308d3u} << 32) | 0x243f6a88u};
  r123::Philox4x32 rng;
  const auto expected = rng({{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}},
                            {{0xa4093822u, static_cast<std::uint32_t>(Stream::completion)}});
  const auto got = philox_block(site, 0x13198a2eu);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], expected[i]);
}

TEST(Philox, UniformIsInHalfOpenUnitInterval) {
  EXPECT_EQ(uniform_from(0, 0), 0x1.0p-53);                // smallest: never 0
  EXPECT_EQ(uniform_from(0xffffffffu, 0xffffffffu), 1.0);  // largest: exactly 1
  DrawCounter draws({7, Stream::verifier, 3, 11});
  for (int i = 0; i < 10000; ++i) {
    const double u = draws.next();
    ASSERT_GT(u, 0.0);
    ASSERT_LE(u, 1.0);
  }
  EXPECT_EQ(draws.draws(), 10000u);
}

TEST(PickCumulative, NeverPicksZeroWeightAndHandlesTheEnds) {
  const std::array<double, 5> w = {0.0, 0.25, 0.0, 0.75, 0.0};
  std::array<double, 5> cum{};
  cumulate(w.data(), 5, cum.data());
  EXPECT_EQ(pick_cumulative(cum.data(), 5, 0x1.0p-53), 1);  // smallest u: first positive weight
  EXPECT_EQ(pick_cumulative(cum.data(), 5, 0.25), 1);       // boundary belongs to the left category
  EXPECT_EQ(pick_cumulative(cum.data(), 5, 0.2500001), 3);
  EXPECT_EQ(pick_cumulative(cum.data(), 5, 1.0),
            3);  // u = 1: last positive weight, not the trailing zero
}

// The guided search must return exactly the binary search's index, for every uniform, including
// zero weights, u = 1 and the smallest u; checked over many tables and uniforms.
TEST(PickGuided, AgreesWithTheBinarySearchEverywhere) {
  DrawCounter draws({3, Stream::generation, 0, 0});
  for (std::int32_t n : {1, 2, 3, 7, 64, 65, 1000}) {
    for (int table = 0; table < 20; ++table) {
      std::vector<double> w(static_cast<std::size_t>(n)), cum(w.size());
      for (double& x : w) x = draws.next() < 0.3 ? 0.0 : draws.next();  // about 30 % zero weights
      w.back() += 1e-3;                                                 // a positive total
      cumulate(w.data(), n, cum.data());
      const std::int32_t buckets = guide_buckets(n);
      std::vector<std::int32_t> guide(static_cast<std::size_t>(buckets));
      build_guide(cum.data(), n, buckets, guide.data());
      for (double u : {0x1.0p-53, 1.0})
        ASSERT_EQ(pick_guided(cum.data(), n, guide.data(), buckets, u),
                  pick_cumulative(cum.data(), n, u));
      for (int k = 0; k < 2000; ++k) {
        const double u = draws.next();
        ASSERT_EQ(pick_guided(cum.data(), n, guide.data(), buckets, u),
                  pick_cumulative(cum.data(), n, u))
            << "n " << n << " u " << u;
      }
    }
  }
}

}  // namespace
}  // namespace tev
