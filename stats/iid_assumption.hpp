#pragma once
// The tests of what the identity test assumes: that the samples of a case are independent and
// identically distributed. "Exact per block" implies "exact per sequence" only for independent
// blocks; a verifier whose consecutive blocks alternate between two wrong laws that average to the
// right one, or whose random counter is advanced every other call, has the right law per block and
// the wrong law per sequence. Given the stream of sampled cells in sample order:
// - stationarity: each of kStationaritySegments consecutive segments of the stream (its halves)
//   against the reference law over the stream's pair bins (below), by the identity test: a law
//   that drifts, or differs between the halves, is seen;
// - serial dependence at every lag l = 1 .. kSerialLags: the joint law of samples i and i + l
//   against the product of the reference with itself, at two phases: the pairs (i, i + l) with
//   i mod 2l < l, then those with i mod 2l >= l (for l = 1, the pairs (2k, 2k + 1) and
//   (2k + 1, 2k + 2)). Each phase's pairs are disjoint, so under the assumption they are
//   themselves i.i.d. and the identity test applies as it is; the two phases hold every pair at
//   that lag, so a dependence confined to every other pair (two generators used in turn) is seen
//   at full strength by one of them.
// The same pair test judges two streams against the product of their laws (the requests of a batch,
// round by round). A pair test bins each marginal coarsely (pair_bins, at most kPairBins bins in
// cell order) so that the product of two marginals keeps a size its samples can test; its
// worst-direction TV is stated for the law of the pair's bins (of a segment's, for stationarity).
// One stream's tests share one binning, at the count of its fewest pairs.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "stats/law_identity.hpp"
#include "stats/goodness_of_fit.hpp"

namespace tev::stats {

inline constexpr std::size_t kStationaritySegments = 2;
// The lags whose pairs are tested: 1 .. kSerialLags. Dependence further apart is not tested.
inline constexpr std::size_t kSerialLags = 4;
// The phases of one lag's pairs: i mod 2l < l, then i mod 2l >= l.
inline constexpr std::size_t kSerialPhases = 2;
inline constexpr std::size_t kSerialTests = kSerialLags * kSerialPhases;
// The tests of one stream: its segments, then for each lag from 1 up its two phases of pairs.
inline constexpr std::size_t kIidTests = kStationaritySegments + kSerialTests;
// Where the test of pairs at `lag` (1 .. kSerialLags) and `phase` (0, 1) sits among kIidTests.
constexpr std::size_t serial_test_index(std::size_t lag, std::size_t phase) {
  return kStationaritySegments + (lag - 1) * kSerialPhases + phase;
}
// The fewest samples a stream needs for every test to count at least one sample or pair.
inline constexpr std::size_t kIidMinSamples = 2 * kSerialLags + 1;
// The most bins of one marginal in a pair test: the product then has at most kPairBins² cells.
inline constexpr std::size_t kPairBins = 12;

// A sampled stream of cells in sample order: cell index, or kNoCell for a sample no cell holds (an
// impossible block, already fatal to its case; it breaks the pairs it is part of).
inline constexpr std::int64_t kNoCell = -1;

// One marginal's bins for a pair test: pool_cells (cells in group order, tails cut in cell order)
// at the largest sample count whose binning has at most kPairBins bins, found by bisection up to
// `pairs`. Depends on the law and `pairs` alone.
Binning pair_bins(std::span<const double> probability, std::span<const std::int32_t> group_of_cell,
                  double pairs);

// The pair bins every test of independence of a stream of `samples` samples uses: pair_bins at the
// fewest samples or pairs any of them counts (a phase of pairs at some lag).
Binning iid_pair_bins(std::span<const double> probability,
                      std::span<const std::int32_t> group_of_cell, std::uint64_t samples);

// The product of two binned marginals: cells (a, b) row-major over the first's and the second's
// bins, grouped by the first's bin (so the identity test pools each row's light cells in order).
struct PairLaw {
  Binning first, second;
  std::vector<double> product;       // (first bins, second bins) p_a · p_b
  std::vector<std::int32_t> groups;  // (first bins, second bins) a
  // The pair cell of two sampled cells; kNoCell when either is kNoCell or lies in no bin.
  std::int64_t cell(std::int64_t first_cell, std::int64_t second_cell) const;
};
PairLaw pair_law(const Binning& first, const Binning& second);

// One test of the i.i.d. assumption, as run.
struct IidTest {
  std::string name;  // "half 1 of 2", "pairs (2k, 2k+1)", "pairs (i, i+2), i mod 4 < 2", ...
  std::uint64_t samples = 0;  // samples (segments) or pairs counted
  ChiSquareResult result;     // its identity test
  std::optional<double>
      detectable_tv;  // worst-direction TV detected with the power asked, at its level
};

// The tests in one line, for people: "half 1 of 2 p 0.41 (TV@99% 0.028), ...".
std::string iid_tests_text(std::span<const IidTest> tests);

// The pairs (i, i + lag) of a stream of n samples at `phase`, in order: i mod 2·lag < lag (phase 0)
// or >= lag (phase 1), i + lag < n.
std::uint64_t serial_pairs(std::uint64_t n, std::size_t lag, std::size_t phase);
// The name of that test: "pairs (2k, 2k+1)", "pairs (2k+1, 2k+2)" at lag 1, else
// "pairs (i, i+l), i mod 2l < l" and "pairs (i, i+l), i mod 2l >= l" with l and 2l written out.
std::string serial_test_name(std::size_t lag, std::size_t phase);

// The stationarity and serial tests of one stream drawn from `probability` (kIidTests of them, in
// the order above: serial_test_index); test t runs at levels[t], its power stated at `power`.
// Streams shorter than kIidMinSamples have no tests.
std::vector<IidTest> iid_tests(std::span<const std::int64_t> stream,
                               std::span<const double> probability,
                               std::span<const std::int32_t> group_of_cell,
                               std::span<const TestLevel> levels, double power);

// What those tests guarantee together on a stream of `samples` samples: the largest of their
// worst-direction TVs (none when one of them has none). Depends on the law and the count alone.
std::optional<double> iid_detectable_tv(std::span<const double> probability,
                                        std::span<const std::int32_t> group_of_cell,
                                        std::uint64_t samples, std::span<const TestLevel> levels,
                                        double power);

// The largest of two stated TVs; none when either is none.
std::optional<double> larger_tv(std::optional<double> a, std::optional<double> b);

// Two streams of one round each (the same length; round r of one beside round r of the other)
// against the product of their laws, binned by `law`; run at `level`, power stated at `power`.
IidTest pair_test(std::span<const std::int64_t> first, std::span<const std::int64_t> second,
                  const PairLaw& law, const TestLevel& level, double power, std::string name);

// The same two streams a lag apart: for each lag l = 1 .. kSerialLags, the pairs (first[r],
// second[r + l]), then (second[r], first[r + l]), against the product binned by `law` (reversed for
// the second direction). Every pair of one test holds two samples no other pair of it holds, so
// under the assumption its pairs are i.i.d. and the identity test applies as it is. kSerialTests of
// them, in iid_tests' order with the direction in place of the phase: test (l, d) runs at
// levels[serial_test_index(l, d)] of kIidTests levels; `first_id` and `second_id` name the streams.
std::vector<IidTest> lagged_pair_tests(std::span<const std::int64_t> first,
                                       std::span<const std::int64_t> second, const PairLaw& law,
                                       std::span<const TestLevel> levels, double power,
                                       const std::string& first_id, const std::string& second_id);

}  // namespace tev::stats
