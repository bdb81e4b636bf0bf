#include "stats/iid_assumption.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/format.hpp"

namespace tev::stats {

namespace {

// Each bin of a binning holds at least kMinExpectedCount expected samples at its sample count
// (but a global tail that joins the smallest bin), so this many samples never give more bins.
constexpr double kSamplesPerBin = kMinExpectedCount;

std::uint64_t counted(std::span<const std::uint64_t> counts) {
  std::uint64_t n = 0;
  for (std::uint64_t c : counts) n += c;
  return n;
}

IidTest run_test(std::string name, std::span<const std::uint64_t> counts,
                 std::span<const double> probability, std::span<const std::int32_t> groups,
                 double planned, const TestLevel& level, double power) {
  IidTest t{std::move(name),
            counted(counts),
            {},
            worst_case_detectable_tv(probability, groups, planned, level.level, power)};
  if (t.samples > 0) t.result = identity_test(counts, probability, groups, level);
  return t;
}

}  // namespace

Binning pair_bins(std::span<const double> probability, std::span<const std::int32_t> group_of_cell,
                  double pairs) {
  const auto fits = [&](const Binning& b) { return b.bin_probability.size() <= kPairBins; };
  double lo = std::min(pairs, kSamplesPerBin * static_cast<double>(kPairBins));
  Binning best = pool_cells(probability, group_of_cell, lo);
  if (!fits(best))
    throw std::logic_error("pair_bins: more bins than kPairBins at the smallest sample count");
  double hi = pairs;
  if (Binning all = pool_cells(probability, group_of_cell, hi); fits(all)) return all;
  // lo fits, hi does not: halve the gap (geometrically) until it is within 1 %.
  while (hi > lo * 1.01) {
    const double mid = std::sqrt(lo * hi);
    Binning b = pool_cells(probability, group_of_cell, mid);
    if (fits(b)) {
      lo = mid;
      best = std::move(b);
    } else {
      hi = mid;
    }
  }
  return best;
}

std::int64_t PairLaw::cell(std::int64_t first_cell, std::int64_t second_cell) const {
  if (first_cell == kNoCell || second_cell == kNoCell) return kNoCell;
  const std::int32_t a = first.bin_of_cell[static_cast<std::size_t>(first_cell)];
  const std::int32_t b = second.bin_of_cell[static_cast<std::size_t>(second_cell)];
  if (a < 0 || b < 0) return kNoCell;
  return static_cast<std::int64_t>(a) * static_cast<std::int64_t>(second.bin_probability.size()) +
         b;
}

PairLaw pair_law(const Binning& first, const Binning& second) {
  PairLaw law{first, second, {}, {}};
  law.product.reserve(first.bin_probability.size() * second.bin_probability.size());
  for (std::size_t a = 0; a < first.bin_probability.size(); ++a) {
    for (double q : second.bin_probability) {
      law.product.push_back(first.bin_probability[a] * q);
      law.groups.push_back(static_cast<std::int32_t>(a));
    }
  }
  return law;
}

IidTest pair_test(std::span<const std::int64_t> first, std::span<const std::int64_t> second,
                  const PairLaw& law, const TestLevel& level, double power, std::string name) {
  if (first.size() != second.size())
    throw std::invalid_argument("pair_test: one second sample per first sample");
  std::vector<std::uint64_t> counts(law.product.size(), 0);  // (first bins, second bins)
  for (std::size_t r = 0; r < first.size(); ++r) {
    if (const std::int64_t c = law.cell(first[r], second[r]); c != kNoCell)
      ++counts[static_cast<std::size_t>(c)];
  }
  return run_test(std::move(name), counts, law.product, law.groups,
                  static_cast<double>(first.size()), level, power);
}

std::vector<IidTest> lagged_pair_tests(std::span<const std::int64_t> first,
                                       std::span<const std::int64_t> second, const PairLaw& law,
                                       std::span<const TestLevel> levels, double power,
                                       const std::string& first_id, const std::string& second_id) {
  if (first.size() != second.size())
    throw std::invalid_argument("lagged_pair_tests: one second sample per first sample");
  if (levels.size() != kIidTests)
    throw std::invalid_argument("lagged_pair_tests: one level per test of independence");
  const PairLaw reversed = pair_law(law.second, law.first);
  std::vector<IidTest> tests;
  for (std::size_t lag = 1; lag <= kSerialLags; ++lag) {
    const std::size_t pairs = first.size() > lag ? first.size() - lag : 0;
    const std::string later = "r+" + std::to_string(lag);
    tests.push_back(pair_test(first.first(pairs), second.last(pairs), law,
                              levels[serial_test_index(lag, 0)], power,
                              first_id + " at r, " + second_id + " at " + later));
    tests.push_back(pair_test(second.first(pairs), first.last(pairs), reversed,
                              levels[serial_test_index(lag, 1)], power,
                              second_id + " at r, " + first_id + " at " + later));
  }
  return tests;
}

std::uint64_t serial_pairs(std::uint64_t n, std::size_t lag, std::size_t phase) {
  if (lag == 0 || n <= lag) return 0;
  // i in [0, n − lag) with i mod 2·lag in [phase·lag, phase·lag + lag).
  const std::uint64_t firsts = n - lag, period = 2 * lag, start = phase * lag;
  const std::uint64_t rest = firsts % period;
  return firsts / period * lag + std::min<std::uint64_t>(lag, rest > start ? rest - start : 0);
}

std::string serial_test_name(std::size_t lag, std::size_t phase) {
  if (lag == 1) return phase == 0 ? "pairs (2k, 2k+1)" : "pairs (2k+1, 2k+2)";
  const std::string l = std::to_string(lag), period = std::to_string(2 * lag);
  return "pairs (i, i+" + l + "), i mod " + period + (phase == 0 ? " < " : " >= ") + l;
}

Binning iid_pair_bins(std::span<const double> probability,
                      std::span<const std::int32_t> group_of_cell, std::uint64_t samples) {
  // One binning for all: at the fewest samples any of them counts, so every bin expects at least
  // kMinExpectedCount in each.
  std::uint64_t fewest = samples;
  for (std::size_t lag = 1; lag <= kSerialLags; ++lag) {
    for (std::size_t phase = 0; phase < kSerialPhases; ++phase)
      fewest = std::min(fewest, serial_pairs(samples, lag, phase));
  }
  return pair_bins(probability, group_of_cell, static_cast<double>(fewest));
}

std::vector<IidTest> iid_tests(std::span<const std::int64_t> stream,
                               std::span<const double> probability,
                               std::span<const std::int32_t> group_of_cell,
                               std::span<const TestLevel> levels, double power) {
  if (levels.size() != kIidTests) throw std::invalid_argument("iid_tests: one level per test");
  std::vector<IidTest> tests;
  const std::size_t n = stream.size();
  if (n < kIidMinSamples) return tests;
  const Binning bins = iid_pair_bins(probability, group_of_cell, n);
  std::vector<std::int32_t> own_group(
      bins.bin_probability.size());  // (bins) each bin a group of its own
  for (std::size_t b = 0; b < own_group.size(); ++b) own_group[b] = static_cast<std::int32_t>(b);
  for (std::size_t s = 0; s < kStationaritySegments; ++s) {
    const std::size_t begin = n * s / kStationaritySegments,
                      end = n * (s + 1) / kStationaritySegments;
    // Over the pair bins: a drift is a move of mass between parts of the law, and the few bins
    // keep the guarantee near the whole stream's (its own law, cell by cell, is the identity test's).
    std::vector<std::uint64_t> counts(bins.bin_probability.size(), 0);  // (bins)
    for (std::size_t i = begin; i < end; ++i) {
      if (stream[i] == kNoCell) continue;
      if (const std::int32_t b = bins.bin_of_cell[static_cast<std::size_t>(stream[i])]; b >= 0)
        ++counts[static_cast<std::size_t>(b)];
    }
    tests.push_back(run_test(
        "half " + std::to_string(s + 1) + " of " + std::to_string(kStationaritySegments), counts,
        bins.bin_probability, own_group, static_cast<double>(end - begin), levels[s], power));
  }
  const PairLaw product = pair_law(bins, bins);
  std::vector<std::int64_t> first, second;  // (pairs) samples i and i + lag
  for (std::size_t lag = 1; lag <= kSerialLags; ++lag) {
    for (std::size_t phase = 0; phase < kSerialPhases; ++phase) {
      first.clear();
      second.clear();
      for (std::size_t i = 0; i + lag < n; ++i) {
        if ((i % (2 * lag) < lag) == (phase == 0)) {
          first.push_back(stream[i]);
          second.push_back(stream[i + lag]);
        }
      }
      tests.push_back(pair_test(first, second, product, levels[serial_test_index(lag, phase)],
                                power, serial_test_name(lag, phase)));
    }
  }
  return tests;
}

std::optional<double> iid_detectable_tv(std::span<const double> probability,
                                        std::span<const std::int32_t> group_of_cell,
                                        std::uint64_t samples, std::span<const TestLevel> levels,
                                        double power) {
  // A stream of the same length with nothing counted: the tests' statements without their runs.
  const std::vector<std::int64_t> nothing(samples, kNoCell);
  std::optional<double> worst = 0.0;
  for (const IidTest& t : iid_tests(nothing, probability, group_of_cell, levels, power))
    worst = larger_tv(worst, t.detectable_tv);
  return worst;
}

std::string iid_tests_text(std::span<const IidTest> tests) {
  std::string out;
  for (const IidTest& t : tests) {
    out += (out.empty() ? "" : ", ") + t.name + " p " + num(t.result.p_value) + " (TV@99% " +
           (t.detectable_tv ? num(*t.detectable_tv) : "none") + ")";
  }
  return out;
}

std::optional<double> larger_tv(std::optional<double> a, std::optional<double> b) {
  if (!a || !b) return std::nullopt;
  return std::max(*a, *b);
}

}  // namespace tev::stats
