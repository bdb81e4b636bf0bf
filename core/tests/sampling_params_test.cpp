// The processing of a logit row by a request's sampling parameters: small rows whose answers are
// worked out by hand (in the comments), the order in which min-p and top-p disagree, ties,
// greedy, refusals, and structural properties over random rows (fixed seed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/sampling_params.hpp"

namespace tev {
namespace {

std::vector<double> logs(std::vector<double> p) {
  for (double& x : p) x = std::log(x);
  return p;
}

std::vector<double> processed(const std::vector<double>& logits, const SamplingParams& params) {
  std::vector<double> out(logits.size());
  process_logits(logits, params, out);
  return out;
}

void expect_row(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t a = 0; a < got.size(); ++a) EXPECT_NEAR(got[a], want[a], 1e-12) << "token " << a;
}

const std::vector<double> kRow = logs({0.5, 0.3, 0.2});

TEST(SamplingParams, DefaultsAreTheSoftmax) { expect_row(processed(kRow, {}), {0.5, 0.3, 0.2}); }

TEST(SamplingParams, TemperatureDividesTheLogits) {
  // T = 2: p_a ∝ exp(log p_a / 2) = sqrt(p_a).
  const double total = std::sqrt(0.5) + std::sqrt(0.3) + std::sqrt(0.2);
  expect_row(processed(kRow, {.temperature = 2.0}),
             {std::sqrt(0.5) / total, std::sqrt(0.3) / total, std::sqrt(0.2) / total});
}

TEST(SamplingParams, TopKKeepsTheLargestLogits) {
  expect_row(processed(kRow, {.top_k = 1}), {1.0, 0.0, 0.0});
  expect_row(processed(kRow, {.top_k = 2}), {0.625, 0.375, 0.0});  // 0.5 / 0.8, 0.3 / 0.8
  expect_row(processed(kRow, {.top_k = 3}), {0.5, 0.3, 0.2});      // k = V: off
}

TEST(SamplingParams, TopKKeepsEveryTieAtTheKthValue) {
  expect_row(processed({2.0, 2.0, 1.0}, {.top_k = 1}), {0.5, 0.5, 0.0});
}

TEST(SamplingParams, TopPKeepsTheTokenThatCrossesIt) {
  // Mass before each token, largest first: 0, 0.5, 0.8. Kept while below top_p.
  expect_row(processed(kRow, {.top_p = 0.6}), {0.625, 0.375, 0.0});
  expect_row(processed(kRow, {.top_p = 0.5}), {1.0, 0.0, 0.0});  // 0.5 is not below 0.5
  expect_row(processed(kRow, {.top_p = 0.81}), {0.5, 0.3, 0.2});
}

TEST(SamplingParams, MinPIsRelativeToTheLargest) {
  expect_row(processed(kRow, {.min_p = 0.5}), {0.625, 0.375, 0.0});  // threshold 0.25
  expect_row(processed(kRow, {.min_p = 0.7}), {1.0, 0.0, 0.0});      // threshold 0.35
}

TEST(SamplingParams, TheOrderOfMinPAndTopPMatters) {
  // p = (0.4, 0.3, 0.2, 0.1), min_p 0.3 (threshold 0.12 drops 0.1), top_p 0.75.
  const std::vector<double> row = logs({0.4, 0.3, 0.2, 0.1});
  // min-p first: top-p sees (4, 3, 2) / 9, masses before 0, 4/9, 7/9: keeps two.
  expect_row(processed(row, {.top_p = 0.75, .min_p = 0.3, .order = FilterOrder::min_p_first}),
             {4.0 / 7.0, 3.0 / 7.0, 0.0, 0.0});
  // min-p last: top-p sees the whole row, masses before 0, 0.4, 0.7, 0.9: keeps three.
  expect_row(processed(row, {.top_p = 0.75, .min_p = 0.3, .order = FilterOrder::min_p_last}),
             {4.0 / 9.0, 3.0 / 9.0, 2.0 / 9.0, 0.0});
}

TEST(SamplingParams, TopPSeesTheTopKSurvivorsRenormalized) {
  // top-k 2 leaves (0.625, 0.375); top_p 0.6: masses before 0, 0.625: keeps one.
  expect_row(processed(kRow, {.top_k = 2, .top_p = 0.6}), {1.0, 0.0, 0.0});
}

TEST(SamplingParams, TopPOnTheFullRowIntersectedWithTopK) {
  // p = (0.4, 0.3, 0.2, 0.1), top-k 2, top_p 0.75. vLLM's order: top-p sees (4, 3) / 7, masses
  // before 0, 4/7: keeps both. On the full row, masses before 0, 0.4, 0.7, 0.9: top-p keeps three,
  // top-k two; the intersection is the same two tokens.
  const std::vector<double> row = logs({0.4, 0.3, 0.2, 0.1});
  const SamplingParams full{.top_k = 2, .top_p = 0.75, .order = FilterOrder::top_p_full_and_top_k};
  expect_row(processed(row, full), {4.0 / 7.0, 3.0 / 7.0, 0.0, 0.0});
  // top_p 0.5: on the survivors (masses before 0, 4/7 ≥ 0.5) vLLM keeps one; on the full row
  // (masses before 0, 0.4 < 0.5, 0.7) top-p keeps two, and so does the intersection.
  expect_row(processed(row, {.top_k = 2, .top_p = 0.5}), {1.0, 0.0, 0.0, 0.0});
  expect_row(processed(row, {.top_k = 2, .top_p = 0.5, .order = FilterOrder::top_p_full_and_top_k}),
             {4.0 / 7.0, 3.0 / 7.0, 0.0, 0.0});
  // min-p 0.3 (threshold 0.12) drops 0.1 apart from top-p, which still sees the full row: top_p 0.75
  // keeps three, min-p three, the intersection three.
  expect_row(
      processed(row, {.top_p = 0.75, .min_p = 0.3, .order = FilterOrder::top_p_full_and_top_k}),
      {4.0 / 9.0, 3.0 / 9.0, 2.0 / 9.0, 0.0});
  EXPECT_NEAR(
      filter_margin(row, {.top_k = 2, .top_p = 0.5, .order = FilterOrder::top_p_full_and_top_k}),
      0.1, 1e-12);  // 0.5 - 0.4
}

TEST(SamplingParams, GreedyIsTheFirstArgmax) {
  expect_row(processed({1.0, 3.0, 3.0}, {.temperature = 0.0}), {0.0, 1.0, 0.0});
  expect_row(processed(kRow, {.temperature = 0.0, .top_p = 0.1, .min_p = 0.9}), {1.0, 0.0, 0.0});
}

TEST(SamplingParams, GreedyBelowTheEnginesTemperatureEpsilon) {
  // A temperature below kGreedyTemperature is greedy, even where the logits tie within it.
  const std::vector<double> close{1.0, 1.0 + 1e-7, 0.0};
  for (double t : {0.0, 1e-6, kGreedyTemperature / 2}) {
    EXPECT_TRUE(SamplingParams{.temperature = t}.greedy()) << t;
    expect_row(processed(close, {.temperature = t}), {0.0, 1.0, 0.0});
  }
  EXPECT_FALSE(SamplingParams{.temperature = kGreedyTemperature}.greedy());
  // At the threshold itself the row is sampled: the two close logits share the mass.
  const std::vector<double> p = processed(close, {.temperature = kGreedyTemperature});
  EXPECT_GT(p[0], 0.4);
  EXPECT_GT(p[1], 0.4);
}

TEST(SamplingParams, MinusInfinityCarriesNoMass) {
  expect_row(processed({0.0, -INFINITY, 0.0}, {}), {0.5, 0.0, 0.5});
}

TEST(SamplingParams, OutputMayAliasTheInput) {
  std::vector<double> row = kRow;
  process_logits(row, {.top_k = 2}, row);
  expect_row(row, {0.625, 0.375, 0.0});
}

TEST(SamplingParams, RefusesParametersOutOfRange) {
  std::vector<double> out(3);
  for (const SamplingParams& bad :
       {SamplingParams{.temperature = -1.0}, SamplingParams{.temperature = NAN},
        SamplingParams{.temperature = INFINITY}, SamplingParams{.top_k = -1},
        SamplingParams{.top_p = 0.0}, SamplingParams{.top_p = 1.5}, SamplingParams{.min_p = 1.0},
        SamplingParams{.min_p = -0.1}}) {
    EXPECT_THROW(process_logits(kRow, bad, out), std::invalid_argument);
  }
  EXPECT_THROW(process_logits(std::vector<double>{-INFINITY, -INFINITY}, {},
                              std::span<double>(out).first(2)),
               std::invalid_argument);
  EXPECT_THROW(process_logits(std::vector<double>{NAN, 0.0}, {}, std::span<double>(out).first(2)),
               std::invalid_argument);
}

TEST(SamplingParams, OrderNamesRoundTrip) {
  for (FilterOrder o :
       {FilterOrder::min_p_first, FilterOrder::min_p_last, FilterOrder::top_p_full_and_top_k})
    EXPECT_EQ(parse_order(order_name(o)), o);
  EXPECT_THROW(parse_order("top_p_first"), std::invalid_argument);
}

TEST(SamplingParams, FilterMarginIsTheDistanceToTheNearestThreshold) {
  EXPECT_EQ(filter_margin(kRow, {}), INFINITY);
  EXPECT_NEAR(filter_margin(kRow, {.top_p = 0.6}), 0.1, 1e-12);  // masses before 0, 0.5, 0.8
  EXPECT_NEAR(filter_margin(kRow, {.min_p = 0.5}), 0.2, 1e-12);  // ratios 1, 0.6, 0.4: 0.1 / 0.5
  EXPECT_NEAR(filter_margin(kRow, {.top_k = 1}), std::log(0.5 / 0.3), 1e-12);
  EXPECT_NEAR(filter_margin(std::vector<double>{1.0, 3.0, 2.5}, {.temperature = 0.0}), 0.5, 1e-12);
}

// Over random rows and parameters (fixed seed): a distribution; the argmax always kept; what is
// kept is a top segment of the tempered row (no kept token below a dropped one); never more than
// the top-k set; T = 1 with no filter is the softmax.
TEST(SamplingParams, RandomRowsKeepATopSegment) {
  std::mt19937_64 rng(20261202);
  std::normal_distribution<double> logit(0.0, 3.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t vocab = 2 + rng() % 40;
    std::vector<double> row(vocab);
    for (double& x : row) x = logit(rng);
    const SamplingParams params{.temperature = 0.2 + 2.0 * unit(rng),
                                .top_k = static_cast<std::int64_t>(rng() % (vocab + 1)),
                                .top_p = 0.05 + 0.95 * unit(rng),
                                .min_p = unit(rng) < 0.5 ? 0.0 : 0.5 * unit(rng),
                                .order = static_cast<FilterOrder>(rng() % 3)};
    const std::vector<double> p = processed(row, params);
    double total = 0.0;
    for (double x : p) total += x;
    ASSERT_NEAR(total, 1.0, 1e-12);
    const auto argmax = std::max_element(row.begin(), row.end()) - row.begin();
    ASSERT_GT(p[static_cast<std::size_t>(argmax)], 0.0);
    double lowest_kept = INFINITY, highest_dropped = -INFINITY;
    std::size_t kept = 0;
    for (std::size_t a = 0; a < vocab; ++a) {
      if (p[a] > 0.0) {
        lowest_kept = std::min(lowest_kept, row[a]);
        ++kept;
      } else {
        highest_dropped = std::max(highest_dropped, row[a]);
      }
    }
    ASSERT_GE(lowest_kept, highest_dropped);
    if (params.top_k > 0) {
      ASSERT_LE(kept, static_cast<std::size_t>(params.top_k));
    }
  }
}

}  // namespace
}  // namespace tev
