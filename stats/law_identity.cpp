#include "stats/law_identity.hpp"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <boost/random/binomial_distribution.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/philox_engine.hpp"
#include "stats/identity_layout.hpp"

namespace tev::stats {

namespace {

// A p-value near the level is a weighted Bonferroni of three valid ones: a finite-sample bound
// (Agrawal's relative-entropy bound over the χ²'s bins; exact binomial tails of the rare-cell
// statistic's cells, Bonferroni over them), Cantelli's bound, and a Monte Carlo p-value. The
// bounds decide strong rejections without simulation; the Monte Carlo p-value decides the rest.
constexpr double kBoundWeight = 0.1;
constexpr double kCantelliWeight = 0.01;
static_assert(kBoundWeight + kCantelliWeight + kMonteCarloWeight <= 1.0);
// Simulated p-values draw at most kReplicatesPerLevel / (kMonteCarloWeight · level) replicates: a
// rejection then allows one exceedance, so a true p-value at a twentieth of the level is rejected
// with probability 0.995 (see power_level). Each replicate more per level would raise that
// twentieth and cost as much again.
constexpr double kReplicatesPerLevel = 2.0;
constexpr std::uint64_t kMaxReplicates = 20'000'000;
// The asymptotic p-value stands for a test only where it lies this factor above every level it
// can meet, where its error cannot carry it below a level; it never decides a rejection.
constexpr double kTrustedFactor = 100.0;

// Σ_{i∈b} N_i(N_i − 1)/(n·p_i) over one bin's cells with counts ≥ 2, the cells in order; the
// rare-cell statistic subtracts m(m − 1)/(n·p_b) per bin.
struct RareSum {
  double sum = 0.0;
  double centre = 0.0;         // Σ_b m_b(m_b − 1)/(n p_b)
  double null_variance = 0.0;  // Σ_b 2 m_b(m_b − 1)(k_b − 1)/(n p_b)²
};

RareSum observed_rare_sum(const Layout& layout, std::span<const std::uint64_t> counts,
                          std::span<const double> probability, double n,
                          std::vector<std::uint64_t>& bin_counts) {
  RareSum r;
  bin_counts.assign(layout.shared.size(), 0);
  for (std::size_t s = 0; s < layout.shared.size(); ++s) {
    const SharedBin& bin = layout.shared[s];
    std::uint64_t m = 0;
    for (std::size_t j = 0; j < bin.statistic_cells(); ++j) {
      const std::uint64_t count = bin.cell_count(counts, j);
      const auto c = static_cast<double>(count);
      m += count;
      if (count >= 2) r.sum += c * (c - 1.0) / (n * bin.cell_mass(probability, j));
    }
    bin_counts[s] = m;
    const auto md = static_cast<double>(m);
    const double scale = n * bin.mass;
    r.centre += md * (md - 1.0) / scale;
    r.null_variance += 2.0 * md * (md - 1.0) * (static_cast<double>(bin.statistic_cells()) - 1.0) /
                       (scale * scale);
  }
  return r;
}

// The same sum for one null replicate: each shared bin's m_b samples redrawn from its reference
// law, tallied per cell in `tally` (a caller's scratch).
double replicate_rare_sum(const Layout& layout, std::span<const std::uint64_t> bin_counts,
                          std::span<const double> probability, double n, PhiloxEngine& rng,
                          std::vector<std::uint32_t>& tally) {
  double sum = 0.0;
  for (std::size_t s = 0; s < layout.shared.size(); ++s) {
    if (bin_counts[s] < 2) continue;
    const SharedBin& bin = layout.shared[s];
    tally.assign(bin.statistic_cells(), 0);
    for (std::uint64_t k = 0; k < bin_counts[s]; ++k) {
      // u ∈ (0, 1]: the first cell whose running sum reaches u·p_b; rounding at the end of the
      // running sum falls back to the last cell.
      const double target = rng.uniform() * bin.mass;
      const auto at = std::lower_bound(bin.cumulative.begin(), bin.cumulative.end(), target) -
                      bin.cumulative.begin();
      ++tally[std::min(static_cast<std::size_t>(at), tally.size() - 1)];
    }
    for (std::size_t j = 0; j < tally.size(); ++j) {
      const auto c = static_cast<double>(tally[j]);
      if (tally[j] >= 2) sum += c * (c - 1.0) / (n * bin.cell_mass(probability, j));
    }
  }
  return sum;
}

// 64-bit words from two of Philox's 32-bit ones, so Boost's samplers draw 53-bit uniforms.
struct Philox64 {
  using result_type = std::uint64_t;
  PhiloxEngine& engine;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() {
    const std::uint64_t hi = engine();
    return hi << 32 | engine();
  }
};

// Pearson's χ² of one null replicate of the binned multinomial, by conditional binomials; `kl`,
// when given, receives the replicate's relative entropy from the bins' law (for its bound).
double replicate_chi_square(const Binning& bins, double n, PhiloxEngine& rng,
                            double* kl = nullptr) {
  auto left = static_cast<std::int64_t>(n);
  double mass_left = 1.0, statistic = 0.0;
  for (std::size_t b = 0; b < bins.bin_probability.size(); ++b) {
    const double p = bins.bin_probability[b];
    std::int64_t x = left;
    if (b + 1 < bins.bin_probability.size() && left > 0) {
      Philox64 wide{rng};
      x = boost::random::binomial_distribution<std::int64_t, double>(
          left, std::clamp(p / mass_left, 0.0, 1.0))(wide);
    }
    left -= x;
    mass_left -= p;
    const double expected = n * p;
    const double diff = static_cast<double>(x) - expected;
    statistic += diff * diff / expected;
    if (kl != nullptr && x > 0)
      *kl += static_cast<double>(x) / n * std::log(static_cast<double>(x) / expected);
  }
  return statistic;
}

// Agrawal (2020): the relative entropy of n samples' empirical law over k cells from their law has
// a moment generating function below Gamma(k − 1, n)'s, so P(KL ≥ ε) ≤ e^{−nε}(e·n·ε/(k − 1))^{k−1}
// for ε > (k − 1)/n: a p-value valid at every n.
double relative_entropy_bound(double kl, double n, double cells) {
  const double x = n * kl, d = cells - 1.0;
  if (!(d >= 1.0) || !(x > d)) return 1.0;
  return std::exp(std::min(0.0, -x + d * (1.0 + std::log(x / d))));
}

// Two-sided exact binomial tail of `count` among n draws of probability p: twice the smaller side.
double binomial_two_sided(double count, double n, double p) {
  if (!(p > 0.0) || !(p < 1.0)) return 1.0;
  // P(X ≥ c) = I_p(c, n − c + 1); P(X ≤ c) = I_{1−p}(n − c, c + 1).
  const double upper = count <= 0.0 ? 1.0 : boost::math::ibeta(count, n - count + 1.0, p);
  const double lower = count >= n ? 1.0 : boost::math::ibeta(n - count, count + 1.0, 1.0 - p);
  return std::min(1.0, 2.0 * std::min(upper, lower));
}

// A valid p-value of the binned counts: the smaller of Agrawal's bound on their relative entropy
// (diffuse deviations) and the smallest two-sided exact binomial tail of one bin or one group (the
// cells of an exit node: mass moved between nodes, spread over their bins) times the number of
// those unions, doubled (Bonferroni over the two). Each union's count is Binomial(n, its mass)
// under the null, whatever the binning.
double binned_bound(const Binning& bins, std::span<const std::uint64_t> counts,
                    std::span<const double> probability,
                    std::span<const std::int32_t> group_of_cell, double n) {
  std::vector<double> in_bin(bins.bin_probability.size(), 0.0);  // (bins) counts
  std::vector<double> in_group, group_mass;  // (groups) counts and reference mass
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (bins.bin_of_cell[i] < 0) continue;
    in_bin[static_cast<std::size_t>(bins.bin_of_cell[i])] += static_cast<double>(counts[i]);
    const auto g = static_cast<std::size_t>(group_of_cell[i]);
    if (g >= in_group.size()) {
      in_group.resize(g + 1, 0.0);
      group_mass.resize(g + 1, 0.0);
    }
    in_group[g] += static_cast<double>(counts[i]);
    group_mass[g] += probability[i];
  }
  double unions = 0.0, smallest = 1.0;
  // Only unions 4 standard deviations off can matter; the others are not worth a tail.
  const auto tail = [&](double count, double mass) {
    if (!(mass > 0.0) || !(mass < 1.0)) return;  // a group holding every cell says nothing
    unions += 1.0;
    const double expected = n * mass;
    if (std::abs(count - expected) > 4.0 * std::sqrt(expected))
      smallest = std::min(smallest, binomial_two_sided(count, n, mass));
  };
  double kl = 0.0;
  for (std::size_t b = 0; b < in_bin.size(); ++b) {
    if (in_bin[b] > 0.0) kl += in_bin[b] / n * std::log(in_bin[b] / (n * bins.bin_probability[b]));
    tail(in_bin[b], bins.bin_probability[b]);
  }
  for (std::size_t g = 0; g < in_group.size(); ++g) tail(in_group[g], group_mass[g]);
  return std::min(1.0,
                  2.0 * std::min(relative_entropy_bound(kl, n, static_cast<double>(in_bin.size())),
                                 smallest * unions));
}

// A valid p-value of the rare-cell statistic's cells given the bin counts: the smallest exact
// binomial tail P(Binomial(m_b, r_j) ≥ N_j) over the cells with N_j ≥ 2, times the number of
// cells (Bonferroni). It decides when one cell drew far more than its share.
double rare_cell_bound(const Layout& layout, std::span<const std::uint64_t> counts,
                       std::span<const std::uint64_t> bin_counts,
                       std::span<const double> probability) {
  double smallest = 1.0, cells = 0.0;
  for (std::size_t s = 0; s < layout.shared.size(); ++s) {
    const SharedBin& bin = layout.shared[s];
    cells += static_cast<double>(bin.statistic_cells());
    const auto m = static_cast<double>(bin_counts[s]);
    for (std::size_t j = 0; j < bin.statistic_cells(); ++j) {
      const auto c = static_cast<double>(bin.cell_count(counts, j));
      if (c < 2.0) continue;
      const double share = std::clamp(bin.cell_mass(probability, j) / bin.mass, 0.0, 1.0);
      // P(X ≥ c) for X ~ Binomial(m, share) is the regularized incomplete beta I_share(c, m − c + 1).
      smallest = std::min(smallest, share >= 1.0 ? 1.0 : boost::math::ibeta(c, m - c + 1.0, share));
    }
  }
  return std::min(1.0, smallest * cells);
}

// One-sided Cantelli bound P(X − mean ≥ t) ≤ σ²/(σ² + t²), valid for any law with that variance.
double cantelli(double observed, double mean, double variance) {
  const double t = observed - mean;
  return t > 0.0 ? variance / (variance + t * t) : 1.0;
}

// Where the asymptotic p-value stands for a test: beyond kTrustedFactor above every level it can
// meet. Below that, only valid p-values decide.
bool far_above(double asymptotic, double level, double largest) {
  return asymptotic > kTrustedFactor * std::max(largest, level);
}

// The p-value of the bounds alone (weighted), valid at every n.
double bounds_p_value(double bound, double cantelli_bound) {
  return std::min({1.0, bound / kBoundWeight, cantelli_bound / kCantelliWeight});
}

// The p-value a verdict may use (see the header): the asymptotic one far above every level it
// can meet, else the weighted Bonferroni of the bounds and, when they do not already decide, the
// sequential Monte Carlo p-value.
template <class Replicate>
double valid_p_value(double asymptotic, double bounds, double level, double largest,
                     Replicate&& replicate, double observed, bool& simulated, bool simulate) {
  if (level <= 0.0 || far_above(asymptotic, level, largest)) return asymptotic;
  if (bounds <= level || !simulate) return bounds;
  simulated = true;
  return std::min(bounds, weighted_monte_carlo_p(observed, replicate, level));
}

// The variance of Pearson's χ² over B bins under the multinomial null (exact at n):
// 2(B − 1) + (Σ 1/p_b − B² − 2B + 2)/n.
double chi_square_null_variance(const Binning& bins, double n) {
  const auto count = static_cast<double>(bins.bin_probability.size());
  double inverse = 0.0;
  for (double p : bins.bin_probability) inverse += 1.0 / p;
  return 2.0 * (count - 1.0) + (inverse - count * count - 2.0 * count + 2.0) / n;
}

}  // namespace

std::uint64_t monte_carlo_cap(double level) {
  return static_cast<std::uint64_t>(
      std::min(static_cast<double>(kMaxReplicates),
               std::ceil(kReplicatesPerLevel / (kMonteCarloWeight * level))));
}

double rejection_exceedances(double level) {
  return std::max(-1.0, std::floor(kMonteCarloWeight * level *
                                       (static_cast<double>(monte_carlo_cap(level)) + 1.0) -
                                   1.0));
}

std::uint64_t monte_carlo_exceedances(double level) {
  // The fewest exceedances h with h/(cap·weight) > level: stopped there after r ≤ cap replicates,
  // h/r is above the level, and so is the whole cap's (h + 1)/(cap + 1) (h < cap).
  return static_cast<std::uint64_t>(
             std::floor(kMonteCarloWeight * level * static_cast<double>(monte_carlo_cap(level)))) +
         1;
}

double power_level(double level) {
  const auto cap = static_cast<double>(monte_carlo_cap(level));
  const double allowed = rejection_exceedances(level);
  if (allowed < 0.0) return 0.0;
  if (allowed >= cap) return kMonteCarloWeight * level;
  // P(Binomial(cap, p) ≤ allowed) = 1 − I_p(allowed + 1, cap − allowed): the p where it is 1 − miss.
  return std::min(kMonteCarloWeight * level,
                  boost::math::ibeta_inv(allowed + 1.0, cap - allowed, kMonteCarloMiss));
}

ChiSquareResult identity_test(std::span<const std::uint64_t> counts,
                              std::span<const double> probability,
                              std::span<const std::int32_t> group_of_cell, const TestLevel& level,
                              std::size_t deviations, std::vector<BinDeviation>* largest) {
  if (counts.size() != probability.size())
    throw std::invalid_argument("identity test: one count per cell");
  const double n =
      static_cast<double>(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}));
  if (n == 0.0) throw std::invalid_argument("identity test: no samples");
  const Layout layout = layout_of(probability, group_of_cell, n);
  ChiSquareResult r =
      binned_chi_square(counts, probability, group_of_cell, layout.bins, deviations, largest);
  if (r.impossible > 0) return r;  // p = 0 already: nothing to refine
  const int tests = tests_in(layout);
  const double share = level.level / tests, largest_share = level.largest_level / tests;
  std::vector<std::uint64_t> bin_counts;  // (shared bins) samples in each
  RareSum observed;
  if (tests == 2) {
    for (const SharedBin& bin : layout.shared)
      r.shared_cells += bin.cells.size() + bin.pooled.size();
    observed = observed_rare_sum(layout, counts, probability, n, bin_counts);
    if (observed.null_variance > 0.0) {
      r.rare_z = (observed.sum - observed.centre) / std::sqrt(observed.null_variance);
      r.rare_p_value = normal_upper(r.rare_z);
    }
  }
  if (level.level <= 0.0) {  // asymptotic p-values only, as uniformity checks ask
    r.p_value = std::min(1.0, tests * std::min(r.binned_p_value, r.rare_p_value));
    return r;
  }
  // The bounds first: where either statistic's bounds alone reject, the case is rejected and
  // nothing is simulated.
  const double binned_bounds =
      r.dof >= 1
          ? bounds_p_value(binned_bound(layout.bins, counts, probability, group_of_cell, n),
                           cantelli(r.statistic, r.dof, chi_square_null_variance(layout.bins, n)))
          : 1.0;
  const bool rare_runs = tests == 2 && observed.null_variance > 0.0;
  const double rare_bounds =
      rare_runs ? bounds_p_value(rare_cell_bound(layout, counts, bin_counts, probability),
                                 cantelli(observed.sum, observed.centre, observed.null_variance))
                : 1.0;
  if (std::min(binned_bounds, rare_bounds) <= share) {
    r.binned_p_value = std::min(r.binned_p_value, binned_bounds);
    r.rare_p_value = std::min(r.rare_p_value, rare_bounds);
    r.p_value = std::min(1.0, tests * std::min(binned_bounds, rare_bounds));
    return r;
  }
  if (r.dof >= 1) {
    auto chi_replicate = [&](std::uint64_t replicate) {
      PhiloxEngine rng(DrawSite{level.seed, Stream::null_simulation, level.id, 2 * replicate});
      return replicate_chi_square(layout.bins, n, rng);
    };
    r.binned_p_value = valid_p_value(r.binned_p_value, binned_bounds, share, largest_share,
                                     chi_replicate, r.statistic, r.simulated, level.simulate);
  }
  if (rare_runs) {
    oneapi::tbb::enumerable_thread_specific<std::vector<std::uint32_t>>
        scratch;  // one per thread: replicates run in parallel
    auto rare_replicate = [&](std::uint64_t replicate) {
      PhiloxEngine rng(DrawSite{level.seed, Stream::null_simulation, level.id, 2 * replicate + 1});
      return replicate_rare_sum(layout, bin_counts, probability, n, rng, scratch.local());
    };
    r.rare_p_value = valid_p_value(r.rare_p_value, rare_bounds, share, largest_share,
                                   rare_replicate, observed.sum, r.simulated, level.simulate);
  }
  r.p_value = std::min(1.0, tests * std::min(r.binned_p_value, r.rare_p_value));
  return r;
}

int identity_statistics(std::span<const double> probability,
                        std::span<const std::int32_t> group_of_cell, double samples) {
  return tests_in(layout_of(probability, group_of_cell, samples));
}

NullCalibration binned_null_calibration(std::span<const double> probability,
                                        std::span<const std::int32_t> group_of_cell, double samples,
                                        double level, double largest_level,
                                        std::uint64_t replicates, std::uint32_t seed) {
  const Binning bins = pool_cells(probability, group_of_cell, samples);
  NullCalibration out{level, replicates, static_cast<std::int32_t>(bins.bin_probability.size()),
                      0.0, 0.0};
  const double dof = static_cast<double>(bins.bin_probability.size()) - 1.0;
  if (dof < 1.0 || replicates == 0) return out;
  std::vector<double> statistic(replicates),
      entropy(replicates, 0.0);  // (replicates) χ² and relative entropy
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::uint64_t>(0, replicates, 1024),
      [&](const oneapi::tbb::blocked_range<std::uint64_t>& range) {
        for (std::uint64_t r = range.begin(); r < range.end(); ++r) {
          PhiloxEngine rng(DrawSite{seed, Stream::null_simulation, ~std::uint32_t{0}, r});
          statistic[r] = replicate_chi_square(bins, samples, rng, &entropy[r]);
        }
      });
  std::vector<double> sorted = statistic;
  std::sort(sorted.begin(), sorted.end());
  const double variance = chi_square_null_variance(bins, samples);
  const std::uint64_t cap = monte_carlo_cap(level);
  // The Monte Carlo p / its weight is ≤ level only when it ran to the cap with few exceedances.
  const double most_exceedances = rejection_exceedances(level);
  double asymptotic = 0.0, used = 0.0;
  for (std::uint64_t r = 0; r < replicates; ++r) {
    const double t = statistic[r];
    const double p = boost::math::cdf(boost::math::complement(boost::math::chi_squared(dof), t));
    asymptotic += p <= level;
    if (far_above(p, level, largest_level)) continue;
    if (bounds_p_value(relative_entropy_bound(entropy[r], samples, dof + 1.0),
                       cantelli(t, dof, variance)) <= level) {
      used += 1.0;
      continue;
    }
    if (most_exceedances < 0.0) continue;
    const double tail =
        static_cast<double>(sorted.end() - std::lower_bound(sorted.begin(), sorted.end(), t)) /
        static_cast<double>(replicates);
    used += boost::math::cdf(
        boost::math::binomial_distribution<double>(static_cast<double>(cap), std::min(tail, 1.0)),
        most_exceedances);
  }
  out.asymptotic_rate = asymptotic / static_cast<double>(replicates);
  out.used_rate = used / static_cast<double>(replicates);
  return out;
}

}  // namespace tev::stats
