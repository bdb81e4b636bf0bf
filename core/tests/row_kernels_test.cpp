// The row kernels: every ISA copy this CPU can run is checked on its own (exponential accuracy
// against std::exp, the documented summation order, the maximum) and against the others (bit
// identity on random rows). Deterministic: fixed seeds, exact or derived bounds only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/philox.hpp"
#include "core/row_kernels.hpp"

namespace tev {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kUnderflow = -87.33654022f;  // the least float whose e^x is a normal float
constexpr float kOverflow = 88.72283173f;    // the greatest float whose e^x is finite

std::vector<const RowKernels*> available() {
  std::vector<const RowKernels*> out;
  for (RowIsa isa : kRowIsas) {
    if (const RowKernels* k = row_kernels_for(isa)) out.push_back(k);
  }
  return out;
}

float from_bits(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// |got − want| in units of the float spacing just above |want| (want normal and finite).
double ulps(float got, float want) {
  if (got == want) return 0.0;
  const double spacing =
      static_cast<double>(std::nextafter(want, kInf)) - static_cast<double>(want);
  return std::abs(static_cast<double>(got) - static_cast<double>(want)) / spacing;
}

std::vector<float> exps(const RowKernels& k, const std::vector<float>& x) {
  std::vector<float> out(x.size());
  k.exp_store_sum(x.data(), x.size(), 0.0f, 1.0f, out.data());
  return out;
}

// The documented order: lane j sums x[i] for i ≡ j (mod 16) in float, the lanes then in double.
double lane_order_sum(const std::vector<float>& values) {
  float lanes[16] = {};
  for (std::size_t i = 0; i < values.size(); ++i) lanes[i % 16] += values[i];
  double total = 0.0;
  for (float lane : lanes) total += static_cast<double>(lane);
  return total;
}

// A live-like logit row of length n: N(0, 2) with a few -inf entries (masked tokens) and a few
// very negative ones, so that underflow and the tail lanes are both exercised.
std::vector<float> random_row(std::size_t n, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<float> row(n);
  for (float& x : row) x = normal(rng);
  std::uniform_int_distribution<std::size_t> pick(0, n - 1);
  for (int j = 0; j < 3; ++j) row[pick(rng)] = -kInf;
  for (int j = 0; j < 3; ++j) row[pick(rng)] = -200.0f;
  return row;
}

TEST(RowKernels, BaselineAlwaysAndWidestByDefault) {
  const std::vector<const RowKernels*> copies = available();
  ASSERT_FALSE(copies.empty());
  EXPECT_STREQ(copies.front()->name, "baseline");
  EXPECT_EQ(&select_row_kernels(nullptr), copies.back());
  EXPECT_EQ(&select_row_kernels(""), copies.back());
  std::printf("row kernel copies on this CPU:");
  for (const RowKernels* k : copies) std::printf(" %s", k->name);
  std::printf("\n");
}

TEST(RowKernels, SelectHonoursTheRequestAndRefusesTheRest) {
  const char* names[] = {"baseline", "avx2", "avx512"};
  for (std::size_t i = 0; i < std::size(kRowIsas); ++i) {
    if (const RowKernels* k = row_kernels_for(kRowIsas[i])) {
      EXPECT_EQ(&select_row_kernels(names[i]), k);
      EXPECT_STREQ(k->name, names[i]);
    } else {
      EXPECT_THROW(select_row_kernels(names[i]), std::invalid_argument)
          << names[i] << " is not available here";
    }
  }
  EXPECT_THROW(select_row_kernels("avx9"), std::invalid_argument);
}

// The worst error of every copy on x against the correctly rounded (float)std::exp((double)x),
// which must stay within the documented 1 ulp.
void expect_within_one_ulp(const std::vector<float>& x) {
  std::vector<float> want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    want[i] = static_cast<float>(std::exp(static_cast<double>(x[i])));
  for (const RowKernels* k : available()) {
    const std::vector<float> got = exps(*k, x);
    double worst = 0.0;
    float worst_x = 0.0f;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double u = ulps(got[i], want[i]);
      if (!(u <= worst)) worst = u, worst_x = x[i];
    }
    std::printf("%s: max error %.3f ulp over %zu inputs (at x = %.9g)\n", k->name, worst, x.size(),
                worst_x);
    EXPECT_LE(worst, 1.0) << k->name << " at x = " << worst_x;
  }
}

// Every float from `low` up to `high`, both ends included (low ≤ high, same sign).
std::vector<float> every_float(float low, float high) {
  std::vector<float> x;
  for (float v = low; v <= high; v = std::nextafter(v, kInf)) x.push_back(v);
  return x;
}

// Every 101st float (as bit patterns) in [kUnderflow, kOverflow], about 22 million inputs.
TEST(RowKernels, ExpIsWithinOneUlpOfStdExp) {
  std::vector<float> x;
  for (std::uint32_t b = 0; from_bits(b) <= kOverflow; b += 101) x.push_back(from_bits(b));
  for (std::uint32_t b = 0x80000000u; from_bits(b) >= kUnderflow; b += 101)
    x.push_back(from_bits(b));
  expect_within_one_ulp(x);
}

// The exponential adds k to y's exponent bits, which is exact only while the result stays normal
// and finite: every float whose k is an end of the range (k = −126 on [kUnderflow, −125.5 ln 2],
// k = 128 on [127.5 ln 2, kOverflow], 90,858 inputs) is checked, not a sample.
TEST(RowKernels, ExpIsWithinOneUlpAtEveryFloatOfTheExtremeExponents) {
  std::vector<float> x = every_float(kUnderflow, -86.9899f);
  const std::vector<float> top = every_float(88.3763f, kOverflow);
  x.insert(x.end(), top.begin(), top.end());
  expect_within_one_ulp(x);
}

TEST(RowKernels, ExpEdges) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {0.0f,    -0.0f, std::nextafter(kUnderflow, -kInf),
                                -100.0f, -kInf, std::nextafter(kOverflow, kInf),
                                1000.0f, kInf,  nan};
  for (const RowKernels* k : available()) {
    const std::vector<float> e = exps(*k, x);
    EXPECT_EQ(e[0], 1.0f) << k->name;
    EXPECT_EQ(e[1], 1.0f) << k->name;
    for (int i : {2, 3, 4})
      EXPECT_EQ(e[i], 0.0f) << k->name << ": below the smallest normal, x = " << x[i];
    for (int i : {5, 6, 7}) EXPECT_EQ(e[i], kInf) << k->name << ": above ln FLT_MAX, x = " << x[i];
    EXPECT_TRUE(std::isnan(e[8])) << k->name;
    // NaNs with any payload or sign stay NaN (their lanes compute garbage exponent bits).
    for (std::uint32_t b : {0x7fc001ffu, 0xffc00123u, 0x7f800001u, 0xffffffffu}) {
      EXPECT_TRUE(std::isnan(exps(*k, {from_bits(b)})[0]))
          << k->name << std::hex << ": NaN 0x" << b;
    }
    // The ends of the range, where k = 128 and k = −126 are the extreme exponents.
    const std::vector<float> ends = exps(*k, {kOverflow, kUnderflow});
    EXPECT_TRUE(std::isfinite(ends[0])) << k->name << ": e^" << kOverflow << " = " << ends[0];
    EXPECT_GE(ends[1], std::numeric_limits<float>::min()) << k->name;
  }
}

TEST(RowKernels, ShiftScaleAndSumFollowTheDocumentedOrder) {
  std::mt19937 rng(12);
  for (std::size_t n : {1, 15, 16, 17, 1000, 1024, 151936}) {
    const std::vector<float> row = random_row(n, rng);
    const float shift = *std::max_element(row.begin(), row.end());
    const float scale = 1.0f / 0.6f;
    std::vector<float> shifted(n);
    for (std::size_t i = 0; i < n; ++i) shifted[i] = (row[i] - shift) * scale;
    for (const RowKernels* k : available()) {
      std::vector<float> out(n, -1.0f);
      const double sum = k->exp_store_sum(row.data(), n, shift, scale, out.data());
      // Storing is exp of the shifted, scaled value, element by element.
      EXPECT_EQ(out, exps(*k, shifted)) << k->name << ", n = " << n;
      EXPECT_EQ(sum, lane_order_sum(out)) << k->name << ", n = " << n;
      EXPECT_EQ(k->exp_sum(row.data(), n, shift, scale), sum) << k->name << ", n = " << n;
    }
  }
}

TEST(RowKernels, MaxIsTheRowMaximumSkippingNaN) {
  std::mt19937 rng(13);
  for (std::size_t n : {1, 7, 16, 31, 1025, 151936}) {
    std::vector<float> row = random_row(n, rng);
    if (n > 1) row[n / 2] = std::numeric_limits<float>::quiet_NaN();
    float want = -kInf;
    for (float x : row) want = x > want ? x : want;  // NaN compares false: skipped
    for (const RowKernels* k : available())
      EXPECT_EQ(k->max(row.data(), n), want) << k->name << ", n = " << n;
  }
}

// Decisions downstream compare these sums, so every copy must give the same bits: random rows at
// V = 151,936 and odd sizes, three temperatures.
TEST(RowKernels, CopiesAreBitIdentical) {
  const std::vector<const RowKernels*> copies = available();
  if (copies.size() < 2)
    GTEST_SKIP() << "only the " << copies.front()->name << " copy runs on this CPU";
  std::mt19937 rng(14);
  for (std::size_t n : {1, 3, 17, 1023, 1025, 4099, 151935, 151936}) {
    for (float temperature : {0.6f, 1.0f, 1e-3f}) {
      const std::vector<float> row = random_row(n, rng);
      const float shift = copies.front()->max(row.data(), n), scale = 1.0f / temperature;
      std::vector<float> reference(n);
      const double reference_sum =
          copies.front()->exp_store_sum(row.data(), n, shift, scale, reference.data());
      for (const RowKernels* k : copies) {
        std::vector<float> out(n);
        const double sum = k->exp_store_sum(row.data(), n, shift, scale, out.data());
        EXPECT_EQ(std::memcmp(out.data(), reference.data(), n * sizeof(float)), 0)
            << k->name << ", n = " << n << ", T = " << temperature;
        EXPECT_EQ(std::memcmp(&sum, &reference_sum, sizeof sum), 0)
            << k->name << ": " << sum << " vs " << reference_sum;
        const double no_store = k->exp_sum(row.data(), n, shift, scale);
        EXPECT_EQ(std::memcmp(&no_store, &reference_sum, sizeof sum), 0) << k->name;
        EXPECT_EQ(k->max(row.data(), n), shift) << k->name;
      }
    }
  }
}

// What the blocked pass of one copy returns, for comparing copies bit for bit.
struct Blocked {
  float top = 0.0f;
  double total = 0.0;
  std::vector<float> max, factor;
  std::vector<double> sum;
  bool operator==(const Blocked& o) const {
    return std::memcmp(&top, &o.top, sizeof top) == 0 &&
           std::memcmp(&total, &o.total, sizeof total) == 0 && max == o.max &&
           std::memcmp(factor.data(), o.factor.data(), factor.size() * sizeof(float)) == 0 &&
           std::memcmp(sum.data(), o.sum.data(), sum.size() * sizeof(double)) == 0;
  }
};

Blocked blocked(const RowKernels& k, const std::vector<float>& row, float scale) {
  const std::size_t blocks = (row.size() + kRowBlock - 1) / kRowBlock;
  Blocked b{0.0f, 0.0, std::vector<float>(blocks), std::vector<float>(blocks),
            std::vector<double>(blocks)};
  b.top = k.blocks(row.data(), row.size(), scale, b.max.data(), b.factor.data(), b.sum.data(),
                   &b.total);
  return b;
}

// The blocked pass is the documented composition of the other kernels: per block its maximum, its
// exp_sum relative to that maximum times the factor e^{(m_b − m)·scale} (the same exponential),
// the total in block order; a block of −inf adds exactly 0. The floor is its log-sum-exp.
TEST(RowKernels, BlockedPassIsTheDocumentedComposition) {
  std::mt19937 rng(15);
  for (std::size_t n : {1, 17, 1023, 1024, 1025, 5000, 151936}) {
    std::vector<float> row = random_row(n, rng);
    if (n > 3000) std::fill(row.begin() + 1024, row.begin() + 2048, -kInf);  // a masked block
    const float scale = 1.0f / 0.6f;
    for (const RowKernels* k : available()) {
      const Blocked got = blocked(*k, row, scale);
      EXPECT_EQ(got.top, k->max(row.data(), n)) << k->name;
      double total = 0.0;
      for (std::size_t b = 0; b < got.max.size(); ++b) {
        const std::size_t begin = b * kRowBlock, len = std::min(kRowBlock, n - begin);
        EXPECT_EQ(got.max[b], k->max(row.data() + begin, len)) << k->name << " block " << b;
        if (got.max[b] == -kInf) {
          EXPECT_EQ(got.factor[b], 0.0f);
          EXPECT_EQ(got.sum[b], 0.0);
          continue;
        }
        float factor = 0.0f;
        const float shift_from_top = got.max[b];
        k->exp_store_sum(&shift_from_top, 1, got.top, scale, &factor);
        EXPECT_EQ(got.factor[b], factor) << k->name << " block " << b;
        EXPECT_EQ(got.sum[b], k->exp_sum(row.data() + begin, len, got.max[b], scale) *
                                  static_cast<double>(factor))
            << k->name << " block " << b;
        total += got.sum[b];
      }
      EXPECT_EQ(got.total, total) << k->name << ", n = " << n;
      // The floor keeps a running sum instead: the same log-sum-exp up to float rounding.
      const double lse = k->logsumexp(row.data(), n, scale);
      const double want = static_cast<double>(got.top) * scale + std::log(got.total);
      EXPECT_NEAR(lse, want, 1e-6 * std::max(1.0, std::abs(want))) << k->name << ", n = " << n;
    }
  }
}

// Decisions read the blocked pass (TEV's masses, every draw's block sums), so the copies must agree
// on it bit for bit too, and on the floor's value.
TEST(RowKernels, CopiesAgreeOnTheBlockedPassBitForBit) {
  const std::vector<const RowKernels*> copies = available();
  if (copies.size() < 2)
    GTEST_SKIP() << "only the " << copies.front()->name << " copy runs on this CPU";
  std::mt19937 rng(16);
  for (std::size_t n : {1, 3, 17, 1023, 1025, 4099, 151935, 151936}) {
    for (float temperature : {0.6f, 1.0f, 1e-3f}) {
      const std::vector<float> row = random_row(n, rng);
      const Blocked reference = blocked(*copies.front(), row, 1.0f / temperature);
      const double reference_lse = copies.front()->logsumexp(row.data(), n, 1.0f / temperature);
      for (const RowKernels* k : copies) {
        EXPECT_TRUE(blocked(*k, row, 1.0f / temperature) == reference)
            << k->name << ", n = " << n << ", T = " << temperature;
        const double lse = k->logsumexp(row.data(), n, 1.0f / temperature);
        EXPECT_EQ(std::memcmp(&lse, &reference_lse, sizeof lse), 0)
            << k->name << ", n = " << n << ", T = " << temperature;
      }
    }
  }
}

// The batched Philox is Random123's Philox4x32-10 word for word, in every copy: counters across the
// 2^32 boundary of the sample word, batch sizes around the vector widths, several keys.
TEST(RowKernels, PhiloxBlocksAreRandom123Blocks) {
  for (const RowKernels* k : available()) {
    for (std::uint32_t seed : {0u, 1u, kDefaultSeed, 0xffffffffu}) {
      for (std::uint64_t first :
           {std::uint64_t{0}, std::uint64_t{0xfffffff0}, std::uint64_t{1} << 40}) {
        for (std::size_t count : {1, 3, 8, 16, 37}) {
          std::vector<std::uint32_t> out(4 * count);
          k->philox_blocks(seed, static_cast<std::uint32_t>(Stream::verifier), 5, 77, first, count,
                           out.data());
          for (std::size_t i = 0; i < count; ++i) {
            const auto want = philox_block(DrawSite{seed, Stream::verifier, 77, first + i}, 5);
            for (int w = 0; w < 4; ++w)
              ASSERT_EQ(out[4 * i + w], want[w])
                  << k->name << " seed " << seed << " counter " << first + i << " word " << w;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace tev
