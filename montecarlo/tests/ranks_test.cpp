#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "montecarlo/monte_carlo.hpp"
#include "montecarlo/ranks.hpp"

namespace tev::montecarlo {
namespace {

// Stands in for MPI: records what each call was given, then adds a second rank holding the same
// values (so every sum doubles), as two ranks with equal counts would.
class TwoEqualRanks final : public Collective {
 public:
  mutable std::vector<std::vector<std::int64_t>> calls;
  void sum(std::span<std::uint64_t> values) const override { add_twin(values); }
  void sum(std::span<std::int64_t> values) const override { add_twin(values); }

 private:
  template <typename T>
  void add_twin(std::span<T> values) const {
    calls.emplace_back(values.begin(), values.end());
    for (T& v : values) v *= 2;
  }
};

// One unsigned and one signed histogram, summed over the given ranks.
struct BothSpans {
  std::vector<std::uint64_t> counts = {3, 0, 7};
  std::vector<std::int64_t> signed_counts = {-2, 5};
  explicit BothSpans(const Ranks& ranks) {
    ranks.sum(counts);
    ranks.sum(signed_counts);
  }
};

TEST(Ranks, OneRankNeverCallsTheCollective) {
  const TwoEqualRanks fake;
  auto [counts, signed_counts] = BothSpans(Ranks{.rank = 0, .size = 1, .collective = &fake});
  EXPECT_EQ(counts, (std::vector<std::uint64_t>{3, 0, 7}));
  EXPECT_EQ(signed_counts, (std::vector<std::int64_t>{-2, 5}));
  EXPECT_TRUE(fake.calls.empty());
  EXPECT_NO_THROW(Ranks{}.sum(counts));  // the default: one process and no collective
}

TEST(Ranks, SumsGoThroughTheCollectiveWithTheRanksValues) {
  const TwoEqualRanks fake;
  const auto [counts, signed_counts] = BothSpans(Ranks{.rank = 1, .size = 2, .collective = &fake});
  ASSERT_EQ(fake.calls.size(), 2u);
  EXPECT_EQ(fake.calls[0], (std::vector<std::int64_t>{3, 0, 7}));
  EXPECT_EQ(fake.calls[1], (std::vector<std::int64_t>{-2, 5}));
  EXPECT_EQ(counts, (std::vector<std::uint64_t>{6, 0, 14}));
  EXPECT_EQ(signed_counts, (std::vector<std::int64_t>{-4, 10}));
}

TEST(Ranks, ManyRanksWithoutACollectiveAreRejected) {
  std::vector<std::uint64_t> counts = {1};
  EXPECT_THROW((Ranks{.rank = 0, .size = 2}.sum(counts)), std::logic_error);
}

TEST(Ranks, BlockCountsSumEveryHistogramAndScalarOverTheRanks) {
  const TwoEqualRanks fake;
  BlockCounts counts(2, 3);
  counts.completed = {1, 2, 3, 4, 5, 6};
  counts.exits = {9, 8};
  counts.samples = 17;
  counts.completions = 4;
  counts.length_sum = 30;
  BlockCounts alone = counts;
  alone.sum_over_ranks(Ranks{.rank = 0, .size = 1, .collective = &fake});
  EXPECT_EQ(alone, counts);
  EXPECT_TRUE(fake.calls.empty());
  counts.sum_over_ranks(Ranks{.rank = 0, .size = 2, .collective = &fake});
  EXPECT_EQ(counts.completed, (std::vector<std::uint64_t>{2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(counts.exits, (std::vector<std::uint64_t>{18, 16}));
  EXPECT_EQ(counts.samples, 34u);
  EXPECT_EQ(counts.completions, 8u);
  EXPECT_EQ(counts.length_sum, 60u);
  EXPECT_EQ(fake.calls.size(), 3u);  // completed, exits, then the three scalars in one call
  // A recorded order is summed too: each rank holds its slice's cells and zeros elsewhere.
  counts.order = {0, 0, 5, 2};
  counts.sum_over_ranks(Ranks{.rank = 0, .size = 2, .collective = &fake});
  EXPECT_EQ(counts.order, (std::vector<std::int64_t>{0, 0, 10, 4}));
  EXPECT_EQ(fake.calls.size(), 7u);
}

TEST(Ranks, SlicesCoverTheSampleIndicesOnceInOrder) {
  for (int size : {1, 2, 3, 7}) {
    std::uint64_t next = 5;
    for (int rank = 0; rank < size; ++rank) {
      const auto [first, count] = Ranks{.rank = rank, .size = size}.slice(5, 100);
      EXPECT_EQ(first, next) << "rank " << rank << " of " << size;
      next = first + count;
    }
    EXPECT_EQ(next, 105u) << size << " ranks";
  }
}

}  // namespace
}  // namespace tev::montecarlo
