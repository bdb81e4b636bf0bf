#pragma once
// The identity test of a sampled law against its reference (the canonical law, or p's H-token
// law), built so that a verdict's guarantee holds in every direction, tails included.
//
// Two statistics over one data-independent binning (pool_cells):
// - Pearson's χ² over the bins: heavy cells alone, each group's tail cut in cell order into bins
//   of equal mass. It sees mass moved between bins.
// - the rare-cell statistic: within each bin of several cells, given the bin's count m,
//   S_b = Σ_i N_i(N_i − 1)/r_i − m(m − 1), with r_i the cell's share of the bin's reference mass.
//   Under the null E[S_b | m] = 0 and Var[S_b | m] = 2m(m − 1)(k_b − 1) exactly, for any r (k_b
//   cells); under a within-bin law s, E[S_b | m] = m(m − 1)·χ²(s‖r) ≥ m(m − 1)·‖s − r‖₁². It is
//   the bias-corrected χ² of Acharya, Daskalakis & Kamath (2015), conditioned on the bin counts, so
//   it sees mass moved *inside* a bin, which no binning can. S = Σ_b S_b/(n·p_b).
// The test rejects when either does, each at half the level (Bonferroni); without bins of several
// cells only the χ² runs, at the whole level.
//
// p-values are valid at the level used: the asymptotic p-value (χ² tail; normal tail for S) stands
// only where it lies a factor 100 above every level it can meet (100 × the largest level a
// step-down procedure may compare it with). Below that the p-value is a weighted Bonferroni of
// valid ones: 0.1 to a finite-sample bound (Agrawal's relative-entropy bound over the bins, or the
// smallest exact binomial tail of one bin's or one exit node's count, Bonferroni over them; the
// smallest exact binomial tail of S's cells given the bin counts, Bonferroni over them), 0.01 to
// Cantelli's bound, and, when those do not already reject, 0.89 to a Monte Carlo p-value
// simulated under the null (the binned multinomial; S given the bin counts) with Besag &
// Clifford's sequential stopping on the null_simulation stream, drawn far enough to reach the
// level and stopped as soon as it cannot. Every part is valid at every n, so their combination is.
// Rare cells: cells expected fewer than 0.05 times are pooled, per bin, into one cell of S, so a
// law that moves mass into or out of them is seen; a move among them is not, and their mass is
// added to the guarantee below.
// Worst direction: any law q at TV δ splits 2δ ≤ A + D + 2U, A = Σ_b |q_b − p_b| (between bins),
// D = Σ_b Σ_{j∈b} |q_j − p_j·q_b/p_b| over S's cells j (inside bins), U below. The χ²'s
// noncentrality is at least n·A²
// (Cauchy–Schwarz over the bins), and S's mean at least n·D²/P_shared (P_shared: the reference
// mass in bins of several cells), the least at the flat alternative that scales half a bin's mass
// up and half down. With A₉₉ and D₉₉ the smallest A and D that each statistic detects with the
// required power at its level, every q with TV ≥ (A₉₉ + D₉₉)/2 + U is rejected with at least that
// power: that TV is the guarantee a verdict states. U is the pooled cells' mass (and that of bins
// whose cells are all pooled), where a move stays unseen. Powers are computed at the level the
// Monte Carlo p-value, as capped, reaches with probability 0.995, for 0.99 / 0.995 of the power.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/interrupt.hpp"
#include "stats/goodness_of_fit.hpp"

namespace tev::stats {

// Where a p-value is used, so that p-values near the level are simulated (see above).
struct TestLevel {
  double level =
      0.0;  // the level this test is held to (its Bonferroni share); 0: asymptotic p-values only
  double largest_level =
      0.0;  // the largest level a step-down procedure may compare it with (the family's α)
  std::uint32_t seed = 0;  // the null simulation's key, with the null_simulation stream
  std::uint32_t id = 0;    // the test's id on that stream (a case index)
  // false: near the level the p-value is the bounds' alone (valid, larger), nothing simulated;
  // for a test whose decision is already made elsewhere (another test rejected its case).
  bool simulate = true;
};

// The identity test: Pearson's χ² over pool_cells' bins and, where bins hold several cells, the
// rare-cell statistic; p_value is the test's (twice the smaller when both run). Keeps the
// `deviations` bins of largest |residual| in `largest` when it is given.
ChiSquareResult identity_test(std::span<const std::uint64_t> counts,
                              std::span<const double> probability,
                              std::span<const std::int32_t> group_of_cell, const TestLevel& level,
                              std::size_t deviations = 0,
                              std::vector<BinDeviation>* largest = nullptr);

// How many statistics identity_test runs on these cells at this sample count (1: the χ² alone;
// 2: with the rare-cell statistic), each at level / that.
int identity_statistics(std::span<const double> probability,
                        std::span<const std::int32_t> group_of_cell, double samples);

// The smallest TV δ such that every law at TV ≥ δ from `probability` on these cells is rejected by
// identity_test at `level` with `samples` samples with probability ≥ `power` (asymptotic: the
// non-central χ² for the bins, a normal with a Cornish–Fisher critical value for S); none when no
// TV below 1 has that guarantee. On a point mass (one cell of positive probability) every sample
// elsewhere rejects at any level: δ = 1 − (1 − power)^(1/samples).
std::optional<double> worst_case_detectable_tv(std::span<const double> probability,
                                               std::span<const std::int32_t> group_of_cell,
                                               double samples, double level, double power = 0.99);

// Predicted probability that identity_test at `level` rejects when samples come from
// `alternative`: the larger of its two statistics' powers (each at its share of the level), with
// the chance of at least one impossible event.
double identity_test_power(std::span<const double> probability, std::span<const double> alternative,
                           std::span<const std::int32_t> group_of_cell, double samples,
                           double level);

// How often the χ² over bins rejects under the null at `level`, measured on `replicates` draws of
// the binned multinomial (no verifier needed): the asymptotic tail alone, and the p-value the
// identity test uses (valid_p_value's rule; inside its Monte Carlo zone the chance that the
// sequential Monte Carlo p rejects, from each replicate's tail probability among the replicates).
struct NullCalibration {
  double level = 0.0;
  std::uint64_t replicates = 0;
  std::int32_t bins = 0;
  double asymptotic_rate = 0.0;  // P(asymptotic p ≤ level)
  double used_rate = 0.0;        // P(the identity test's binned p ≤ level)
};
NullCalibration binned_null_calibration(std::span<const double> probability,
                                        std::span<const std::int32_t> group_of_cell, double samples,
                                        double level, double largest_level,
                                        std::uint64_t replicates, std::uint32_t seed);

// The Monte Carlo part of a p-value near `level` (see above): Besag & Clifford's sequential
// p-value with monte_carlo_exceedances(level) exceedances and monte_carlo_cap(level) replicates at
// most, divided by its weight in the combination, kMonteCarloWeight. A rejection at `level` allows
// rejection_exceedances(level) exceedances among the cap's replicates (one, at every level below
// 0.1). The simulation stops at monte_carlo_exceedances(level), the fewest exceedances h that keep
// h/r above the level for every r up to the cap (three, at every level below 0.1): from there no
// replicate can bring the p-value down to `level`, and h/r is Besag & Clifford's valid p-value
// for that h. Its decision at `level` is the one the whole cap would give, on every draw.
inline constexpr double kMonteCarloWeight = 0.89;
std::uint64_t monte_carlo_cap(double level);
// The most exceedances among the cap's replicates at which the weighted p-value, (hits + 1) /
// ((cap + 1)·kMonteCarloWeight), is ≤ `level`; −1 when none is.
double rejection_exceedances(double level);
std::uint64_t monte_carlo_exceedances(double level);
// The largest true p-value at which that weighted Monte Carlo p-value rejects at `level` with
// probability ≥ 1 − kMonteCarloMiss (exact binomial: at most the allowed exceedances among the
// cap's replicates), about a twentieth of the level; 0 when it never can. Powers are computed at
// this level, so that a stated power of 0.99 holds for the test as run.
inline constexpr double kMonteCarloMiss = 0.005;
double power_level(double level);

// The Besag & Clifford (1991) sequential Monte Carlo p-value: replicates are drawn until
// `exceedances` of them reach the observed statistic (p = exceedances / replicates drawn) or
// `max_replicates` are drawn (p = (exceedances + 1)/(max_replicates + 1)). Valid at every level.
// Replicates are computed in parallel blocks (oneTBB) and scanned in index order, so the answer
// is the sequential rule's for any thread count; `replicate` is called from several threads. The
// caller's thread polls for an interrupt (core/interrupt.hpp) every 64 replicates it computes, and
// notes the replicates drawn after every block (note_long_step), for a progress line.
struct SequentialPValue {
  double p_value = 1.0;
  std::uint64_t replicates = 0;
};
template <class Replicate>  // double(std::uint64_t replicate): the statistic of one null replicate
SequentialPValue sequential_monte_carlo_p(double observed, Replicate&& replicate,
                                          std::uint64_t exceedances, std::uint64_t max_replicates) {
  // Replicates that tie with the observed value (to rounding) count as exceedances: conservative.
  const double reach = observed - 1e-9 * std::max(1.0, std::abs(observed));
  // Blocks grow from a few times what a large p-value needs, so an early stop wastes little.
  constexpr std::uint64_t kFirstBlock = 256, kLargestBlock = 65536;
  std::vector<double> block;  // (block size) the statistics of replicates r .. r + size − 1
  std::uint64_t hits = 0, r = 0;
  constexpr std::string_view kStep = "null replicates of a simulated p-value";
  note_long_step(kStep, 0, max_replicates);
  for (std::uint64_t size = kFirstBlock; r < max_replicates;
       size = std::min(2 * size, kLargestBlock)) {
    block.resize(std::min(size, max_replicates - r));
    // Isolated: a caller's own tasks never run on a thread waiting here (it may hold their state).
    oneapi::tbb::this_task_arena::isolate([&] {
      oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, block.size(), 64),
                                [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
                                  poll_interrupt();
                                  for (std::size_t i = range.begin(); i < range.end(); ++i)
                                    block[i] = replicate(r + i);
                                });
    });
    for (std::size_t i = 0; i < block.size(); ++i) {
      if (block[i] >= reach && ++hits == exceedances)
        return {static_cast<double>(hits) / static_cast<double>(r + i + 1), r + i + 1};
    }
    r += block.size();
    note_long_step(kStep, r, max_replicates);
  }
  return {(static_cast<double>(hits) + 1.0) / (static_cast<double>(max_replicates) + 1.0), r};
}

// The weighted Monte Carlo p-value at `level` (see kMonteCarloWeight): valid at every level.
template <class Replicate>
double weighted_monte_carlo_p(double observed, Replicate&& replicate, double level) {
  return sequential_monte_carlo_p(observed, replicate, monte_carlo_exceedances(level),
                                  monte_carlo_cap(level))
             .p_value /
         kMonteCarloWeight;
}

}  // namespace tev::stats
