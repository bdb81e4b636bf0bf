#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>

#include "exittrain/exittrain_live.hpp"
#include "exittrain/gradient_check.hpp"

namespace tev::exittrain {
namespace {

constexpr std::int32_t kLiveVocab = 12;
const std::vector<Token> kFrequent = {
    3, 7, 0, 9, 5};  // K = 5; words 1, 2, 4, 6, 8, 10, 11 share the other bucket

FrequentWordsDrafter small_drafter() {
  FrequentWordsDrafter drafter(kLiveVocab, kFrequent, {2, 2, 3}, 0.5, 7);
  std::mt19937 rng(11);
  std::normal_distribution<double> normal(0.0, 0.5);
  for (double& w : drafter.parameters()) w += normal(rng);  // biases off zero too
  return drafter;
}

double loss_at(const FrequentWordsDrafter& drafter, std::span<const Token> context,
               std::span<const RowTerm> terms) {
  std::vector<double> logits(static_cast<std::size_t>(drafter.horizon() * kLiveVocab));  // (H, V)
  drafter.logits(context, logits);
  return weighted_cross_entropy(logits, kLiveVocab, terms, {});
}

// The hand-written backpropagation against central differences of the weighted cross-entropy the
// trainer minimizes, with terms on frequent words and on words of the other bucket.
TEST(FrequentWordsDrafter, GradientMatchesFiniteDifferences) {
  FrequentWordsDrafter drafter = small_drafter();
  const std::vector<Token> context = {1, 7, 4};  // lag 1 in the other bucket, lag 2 frequent
  const std::vector<RowTerm> terms = {
      {0, 3, 0.7}, {0, 4, 0.2}, {1, 11, 0.5}, {1, 9, 0.3}, {1, 7, 0.1}};
  std::vector<double> logits(static_cast<std::size_t>(drafter.horizon() * kLiveVocab)),
      logit_gradient(logits.size(), 0.0);  // (H, V)
  drafter.logits(context, logits);
  weighted_cross_entropy(logits, kLiveVocab, terms, logit_gradient);
  std::vector<double> gradient(drafter.parameters().size(), 0.0);
  drafter.backpropagate(context, logit_gradient, gradient);

  const std::vector<double> numeric =
      central_differences(drafter.parameters(), [&] { return loss_at(drafter, context, terms); });
  std::size_t nonzero = 0;
  for (std::size_t i = 0; i < gradient.size(); ++i) {
    EXPECT_NEAR(gradient[i], numeric[i], 1e-7 + 1e-6 * std::abs(numeric[i])) << "parameter " << i;
    nonzero += gradient[i] != 0.0;
  }
  // Embeddings of the two looked-back words, every head and every bias get a gradient.
  EXPECT_EQ(nonzero, static_cast<std::size_t>(2 * 3 + 2 * 6 * 3 + 2 * 6));
}

// Each row is a law over the real vocabulary: the other words share the other bucket's mass
// evenly, so the row's normalizer is the buckets' normalizer.
TEST(FrequentWordsDrafter, SpreadsTheOtherBucketEvenly) {
  const FrequentWordsDrafter drafter = small_drafter();
  std::vector<double> logits(static_cast<std::size_t>(drafter.horizon() * kLiveVocab));  // (H, V)
  drafter.logits(std::vector<Token>{2, 9}, logits);
  for (std::int32_t h = 0; h < drafter.horizon(); ++h) {
    const double* row = logits.data() + h * kLiveVocab;
    const double other = row[1];
    double word_total = 0.0, bucket_total = std::exp(other + std::log(kLiveVocab - 5.0));
    for (Token w = 0; w < kLiveVocab; ++w) {
      word_total += std::exp(row[w]);
      const bool frequent = std::find(kFrequent.begin(), kFrequent.end(), w) != kFrequent.end();
      if (frequent) {
        bucket_total += std::exp(row[w]);
      } else {
        EXPECT_DOUBLE_EQ(row[w], other) << "word " << w;
      }
    }
    EXPECT_NEAR(word_total, bucket_total, 1e-12 * bucket_total);
  }
}

TEST(FrequentWordsDrafter, RejectsBadWordLists) {
  const std::vector<Token> repeated = {3, 3};
  EXPECT_THROW(FrequentWordsDrafter(kLiveVocab, repeated, {}, 0.1, 1), std::invalid_argument);
  const std::vector<Token> outside = {12};
  EXPECT_THROW(FrequentWordsDrafter(kLiveVocab, outside, {}, 0.1, 1), std::invalid_argument);
  std::vector<Token> all(kLiveVocab);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_THROW(FrequentWordsDrafter(kLiveVocab, all, {}, 0.1, 1), std::invalid_argument);
}

// Rows that sum to `total` instead of 1, depending on the last token.
class SlightlyOffModel final : public models::LanguageModel {
 public:
  explicit SlightlyOffModel(double total) : total_(total) {}
  std::string name() const override { return "slightly-off"; }
  std::int32_t vocab() const override { return 4; }
  std::string token_text(Token t) const override { return std::to_string(t); }
  Token begin_token() const override { return 0; }
  std::vector<double> next_row(std::span<const Token> context) const override {
    std::vector<double> row = {1.0, 2.0, 3.0, 4.0};
    row[static_cast<std::size_t>(context.back())] += 4.0;
    for (double& p : row) p *= total_ / 14.0;
    return row;
  }

 private:
  double total_;
};

TEST(NormalizedModel, NormalizesRowsWithinTheTolerance) {
  const models::NormalizedModel target(std::make_shared<const SlightlyOffModel>(1.01), 0.05);
  std::vector<double> row = target.next_row(std::vector<Token>{0, 2});
  EXPECT_NEAR(row[2], 7.0 / 14.0, 1e-15);
  EXPECT_NEAR(row[0] + row[1] + row[2] + row[3], 1.0, 1e-15);

  const std::vector<NodeId> parents = {-1, 0, 0, 1};
  const std::vector<Token> tokens = {kNoToken, 3, 1, 2};
  const DraftTree tree = tree_from_parents(parents, tokens, 4).tree;
  const std::vector<Token> context = {0, 1};
  const std::vector<double> rows = target.tree_rows(context, tree);  // (N, V)
  for (NodeId v = 0; v < tree.size(); ++v) {
    std::vector<Token> sequence = context;
    for (Token t : tree.path_tokens(v)) sequence.push_back(t);
    row = target.next_row(sequence);
    for (std::size_t a = 0; a < 4; ++a)
      EXPECT_EQ(rows[static_cast<std::size_t>(v) * 4 + a], row[a]) << "node " << v;
  }

  const models::NormalizedModel broken(std::make_shared<const SlightlyOffModel>(1.2), 0.05);
  EXPECT_THROW(broken.next_row(std::vector<Token>{0}), std::runtime_error);
}

TEST(ExamplesFromSequences, CutsEveryContextWithItsContinuation) {
  const std::vector<std::vector<Token>> sequences = {{0, 5, 6, 7, 8, 9}, {0, 1, 2}};
  const auto examples = examples_from_sequences(sequences, 2, 3, ExampleSet::training);
  ASSERT_EQ(examples.size(), 3u);  // ends 2, 3, 4 of the first; the second is too short
  for (const TrainingExample& e : examples) {
    ASSERT_EQ(e.continuation.size(), 2u);
    EXPECT_EQ(e.context.front(), 0);
    EXPECT_EQ(e.continuation[0], e.context.back() + 1);
    EXPECT_EQ(e.continuation[1], e.context.back() + 2);
  }
  const auto again = examples_from_sequences(sequences, 2, 3, ExampleSet::training);
  for (std::size_t i = 0; i < examples.size(); ++i)
    EXPECT_EQ(examples[i].context, again[i].context);
}

}  // namespace
}  // namespace tev::exittrain
