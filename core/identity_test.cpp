#include "core/identity_test.hpp"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/philox_engine.hpp"

namespace tev {

namespace {

// Simulated p-values stop after this many replicates reach the observed statistic, and draw at
// most kReplicatesPerLevel / level replicates, so a p-value at a tenth of the level is still
// resolved; the cap bounds the cost of one test (at check's 3.75e-6 it can still reject: a
// simulation with no exceedance gives 2.5e-6).
constexpr std::uint64_t kExceedances = 20;
constexpr double kReplicatesPerLevel = 20.0;
constexpr std::uint64_t kMaxReplicates = 400'000;
// Cells expected fewer times than this stay out of the rare-cell statistic: one collision there
// would add 2/(n·p_i), a jump no tail approximation follows (the cut of Acharya, Daskalakis &
// Kamath); the worst-direction TV adds their mass as unseen.
constexpr double kMinRareExpected = 0.05;
// The asymptotic p-value decides alone where it lies this factor beyond the levels: its error
// there (at most 16× measured, for two bins at 1e-5) cannot move it across a level.
constexpr double kTrustedFactor = 100.0;

// A bin of several cells: the rare-cell statistic's unit.
struct SharedBin {
  std::vector<std::size_t> cells;  // (k) its cells, in cell order
  std::vector<double> cumulative;  // (k) running sums of their reference probabilities
  double mass = 0.0;               // p_b
};

struct Layout {
  Binning bins;
  std::vector<SharedBin> shared;  // each bin's cells expected ≥ kMinRareExpected times, where ≥ 2
  double shared_mass = 0.0;       // Σ p_b over shared bins
  double unseen_mass = 0.0;       // mass of the cells of bins of several cells that no shared bin holds
};

Layout layout_of(std::span<const double> probability, std::span<const std::int32_t> group_of_cell, double samples) {
  Layout out{pool_cells(probability, group_of_cell, samples), {}, 0.0};
  std::vector<std::size_t> cells_in(out.bins.bin_probability.size(), 0);  // (bins) cell counts
  for (std::int32_t b : out.bins.bin_of_cell) {
    if (b >= 0) ++cells_in[static_cast<std::size_t>(b)];
  }
  std::vector<std::int64_t> shared_of(cells_in.size(), -1);  // (bins) index into shared, or −1
  for (std::size_t b = 0; b < cells_in.size(); ++b) {
    if (cells_in[b] < 2) continue;
    shared_of[b] = static_cast<std::int64_t>(out.shared.size());
    out.shared.push_back({});
    out.shared.back().cells.reserve(cells_in[b]);
  }
  for (std::size_t i = 0; i < probability.size(); ++i) {
    const std::int32_t b = out.bins.bin_of_cell[i];
    if (b < 0 || shared_of[static_cast<std::size_t>(b)] < 0) continue;
    if (samples * probability[i] < kMinRareExpected) {
      out.unseen_mass += probability[i];
      continue;
    }
    SharedBin& s = out.shared[static_cast<std::size_t>(shared_of[static_cast<std::size_t>(b)])];
    s.mass += probability[i];
    s.cells.push_back(i);
    s.cumulative.push_back(s.mass);
  }
  // A bin left with fewer than two such cells has nothing to compare inside it.
  std::vector<SharedBin> kept;
  for (SharedBin& s : out.shared) {
    if (s.cells.size() >= 2) {
      out.shared_mass += s.mass;
      kept.push_back(std::move(s));
    } else {
      out.unseen_mass += s.mass;
    }
  }
  out.shared = std::move(kept);
  return out;
}

// Σ_{i∈b} N_i(N_i − 1)/(n·p_i) over one bin's cells with counts ≥ 2, the cells in order; the
// rare-cell statistic subtracts m(m − 1)/(n·p_b) per bin.
struct RareSum {
  double sum = 0.0;
  double centre = 0.0;         // Σ_b m_b(m_b − 1)/(n p_b)
  double null_variance = 0.0;  // Σ_b 2 m_b(m_b − 1)(k_b − 1)/(n p_b)²
};

RareSum observed_rare_sum(const Layout& layout, std::span<const std::uint64_t> counts, std::span<const double> probability, double n,
                          std::vector<std::uint64_t>& bin_counts) {
  RareSum r;
  bin_counts.assign(layout.shared.size(), 0);
  for (std::size_t s = 0; s < layout.shared.size(); ++s) {
    const SharedBin& bin = layout.shared[s];
    std::uint64_t m = 0;
    for (std::size_t i : bin.cells) {
      const auto c = static_cast<double>(counts[i]);
      m += counts[i];
      if (counts[i] >= 2) r.sum += c * (c - 1.0) / (n * probability[i]);
    }
    bin_counts[s] = m;
    const auto md = static_cast<double>(m);
    const double scale = n * bin.mass;
    r.centre += md * (md - 1.0) / scale;
    r.null_variance += 2.0 * md * (md - 1.0) * (static_cast<double>(bin.cells.size()) - 1.0) / (scale * scale);
  }
  return r;
}

// The same sum for one null replicate: each shared bin's m_b samples redrawn from its reference law.
double replicate_rare_sum(const Layout& layout, std::span<const std::uint64_t> bin_counts, std::span<const double> probability, double n,
                          PhiloxEngine& rng, std::vector<std::size_t>& scratch) {
  double sum = 0.0;
  for (std::size_t s = 0; s < layout.shared.size(); ++s) {
    if (bin_counts[s] < 2) continue;
    const SharedBin& bin = layout.shared[s];
    scratch.resize(bin_counts[s]);
    for (std::size_t& slot : scratch) {
      // u ∈ (0, 1]: the first cell whose running sum reaches u·p_b; rounding at the end of the
      // running sum falls back to the last cell.
      const double target = rng.uniform() * bin.mass;
      const auto at = std::lower_bound(bin.cumulative.begin(), bin.cumulative.end(), target) - bin.cumulative.begin();
      slot = std::min(static_cast<std::size_t>(at), bin.cells.size() - 1);
    }
    std::sort(scratch.begin(), scratch.end());
    for (std::size_t a = 0; a < scratch.size();) {
      std::size_t z = a;
      while (z < scratch.size() && scratch[z] == scratch[a]) ++z;
      const auto c = static_cast<double>(z - a);
      if (z - a >= 2) sum += c * (c - 1.0) / (n * probability[bin.cells[scratch[a]]]);
      a = z;
    }
  }
  return sum;
}

// Pearson's χ² of one null replicate of the binned multinomial, by conditional binomials.
double replicate_chi_square(const Binning& bins, double n, PhiloxEngine& rng) {
  auto left = static_cast<std::int64_t>(n);
  double mass_left = 1.0, statistic = 0.0;
  for (std::size_t b = 0; b < bins.bin_probability.size(); ++b) {
    const double p = bins.bin_probability[b];
    std::int64_t x = left;
    if (b + 1 < bins.bin_probability.size() && left > 0) {
      x = std::binomial_distribution<std::int64_t>(left, std::clamp(p / mass_left, 0.0, 1.0))(rng);
    }
    left -= x;
    mass_left -= p;
    const double expected = n * p;
    const double diff = static_cast<double>(x) - expected;
    statistic += diff * diff / expected;
  }
  return statistic;
}

// One-sided Cantelli bound P(X − mean ≥ t) ≤ σ²/(σ² + t²), valid for any law with that variance.
double cantelli(double observed, double mean, double variance) {
  const double t = observed - mean;
  return t > 0.0 ? variance / (variance + t * t) : 1.0;
}

// The p-value a verdict may use (see the header): the asymptotic one where it lies beyond a factor
// kTrustedFactor of every level it can meet (above the largest, or below the test's own), else
// min(100·Cantelli, Monte Carlo / 0.99), valid at every level.
// Where the asymptotic p-value decides alone: beyond kTrustedFactor above every level it can meet,
// or `below` times under the test's own.
bool far_above(double asymptotic, double level, double largest) { return asymptotic > kTrustedFactor * std::max(largest, level); }
bool far_below(double asymptotic, double level, double below) { return asymptotic < level / below; }

// `below`: how far below the level the asymptotic p-value must lie to decide alone.
template <class Replicate>
double valid_p_value(double asymptotic, double bound, double level, double largest, double below, Replicate&& replicate,
                     double observed, bool& simulated) {
  if (level <= 0.0 || far_above(asymptotic, level, largest) || far_below(asymptotic, level, below)) return asymptotic;
  simulated = true;
  if (kTrustedFactor * bound <= level) return kTrustedFactor * bound;
  const auto cap = static_cast<std::uint64_t>(std::min(static_cast<double>(kMaxReplicates), std::ceil(kReplicatesPerLevel / level)));
  const SequentialPValue mc = sequential_monte_carlo_p(observed, replicate, kExceedances, cap);
  return std::min(1.0, std::min(kTrustedFactor * bound, mc.p_value / 0.99));
}

// The variance of Pearson's χ² over B bins under the multinomial null (exact at n):
// 2(B − 1) + (Σ 1/p_b − B² − 2B + 2)/n.
double chi_square_null_variance(const Binning& bins, double n) {
  const auto count = static_cast<double>(bins.bin_probability.size());
  double inverse = 0.0;
  for (double p : bins.bin_probability) inverse += 1.0 / p;
  return 2.0 * (count - 1.0) + (inverse - count * count - 2.0 * count + 2.0) / n;
}

double normal_upper(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// The rare-cell statistic's mean and variance under a law s within each shared bin, given the
// bin's count m: with a = Σ s²/r, b = Σ s³/r², c = Σ s²/r², E = m(m−1)(a − 1) and
// Var = 4m(m−1)(m−2)·b + 2m(m−1)·c − 2m(m−1)(2m − 3)·a² (multinomial factorial moments).
struct Moments {
  double mean = 0.0;
  double variance = 0.0;
};
void add_bin_moments(Moments& total, double m, double weight, double a, double b, double c) {
  if (m < 2.0) return;
  const double m2 = m * (m - 1.0), m3 = m2 * (m - 2.0);
  total.mean += weight * m2 * (a - 1.0);
  total.variance += weight * weight * std::max(0.0, 4.0 * m3 * b + 2.0 * m2 * c - 2.0 * m2 * (2.0 * m - 3.0) * a * a);
}

// The level-`level` critical value of the standardized rare-cell statistic: the normal quantile
// with the Cornish–Fisher skewness term, the skewness from the Poisson cumulants of
// ((N − λ)² − N)/λ, κ₂ = 2 and κ₃ = 8 + 4/λ per cell (λ = n·p_i).
double rare_critical_z(const Layout& layout, std::span<const double> probability, double n, double level) {
  double k2 = 0.0, k3 = 0.0;
  for (const SharedBin& bin : layout.shared) {
    for (std::size_t i : bin.cells) {
      k2 += 2.0;
      k3 += 8.0 + 4.0 / (n * probability[i]);
    }
  }
  const double z = boost::math::quantile(boost::math::complement(boost::math::normal(), level));
  const double skew = k3 / std::pow(k2, 1.5);
  return z + (z * z - 1.0) * skew / 6.0;
}

double rare_null_sd(const Layout& layout, double n) {
  double v = 0.0;
  for (const SharedBin& bin : layout.shared) {
    const double m = n * bin.mass;
    v += 2.0 * m * (m - 1.0) * (static_cast<double>(bin.cells.size()) - 1.0) / (m * m);
  }
  return std::sqrt(v);
}

double rare_power(const Moments& alt, double critical) {
  if (!(alt.variance > 0.0)) return alt.mean > critical ? 1.0 : 0.0;
  return normal_upper((critical - alt.mean) / std::sqrt(alt.variance));
}

// The rare-cell statistic's moments at the flat alternative of conditional L1 distance ℓ in every
// shared bin, the least mean for that distance: ℓ ≤ 1 scales half a bin's mass by 1 + ℓ and half by
// 1 − ℓ (χ² = ℓ²); ℓ > 1 empties a share ℓ/2 and scales the rest by 1 + ℓ/(2 − ℓ) (χ² = ℓ/(2 − ℓ)).
Moments flat_alternative_moments(const Layout& layout, double n, double ell) {
  const double up_share = ell <= 1.0 ? 0.5 : 1.0 - ell / 2.0;
  const double up = ell <= 1.0 ? ell : ell / (2.0 - ell);
  const double down = ell <= 1.0 ? ell : 1.0;
  const double a = 1.0 + up_share * up * up + (1.0 - up_share) * down * down;
  const double b = up_share * std::pow(1.0 + up, 3) + (1.0 - up_share) * std::pow(1.0 - down, 3);
  const double c_per_cell = up_share * (1.0 + up) * (1.0 + up) + (1.0 - up_share) * (1.0 - down) * (1.0 - down);
  Moments m;
  for (const SharedBin& bin : layout.shared) {
    const double count = n * bin.mass;
    add_bin_moments(m, count, 1.0 / count, a, b, c_per_cell * static_cast<double>(bin.cells.size()));
  }
  return m;
}

// The rare-cell statistic's moments under an arbitrary alternative law (m_b = n·q_b).
Moments alternative_moments(const Layout& layout, std::span<const double> probability, std::span<const double> alternative, double n) {
  Moments m;
  for (const SharedBin& bin : layout.shared) {
    double q = 0.0;
    for (std::size_t i : bin.cells) q += alternative[i];
    if (!(q > 0.0)) continue;
    double a = 0.0, b = 0.0, c = 0.0;
    for (std::size_t i : bin.cells) {
      const double s = alternative[i] / q, r = probability[i] / bin.mass;
      a += s * s / r;
      b += s * s * s / (r * r);
      c += s * s / (r * r);
    }
    add_bin_moments(m, n * q, 1.0 / (n * bin.mass), a, b, c);
  }
  return m;
}

double chi_square_power_at(double dof, double lambda, double critical) {
  const double sd = std::sqrt(2.0 * (dof + 2.0 * lambda));
  if ((dof + lambda - critical) / sd > 40.0) return 1.0;  // Boost's series overflows far in the tail
  return boost::math::cdf(boost::math::complement(boost::math::non_central_chi_squared(dof, lambda), critical));
}

// Smallest x in [0, hi] with power(x) ≥ target for a power increasing in x; hi when none is below.
template <class Power>
double smallest_reaching(Power&& power, double hi, double target) {
  double lo = 0.0;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (power(mid) >= target ? hi : lo) = mid;
  }
  return hi;
}

int tests_in(const Layout& layout) { return layout.shared.empty() ? 1 : 2; }

}  // namespace

ChiSquareResult identity_test(std::span<const std::uint64_t> counts, std::span<const double> probability,
                              std::span<const std::int32_t> group_of_cell, const TestLevel& level, std::size_t deviations,
                              std::vector<BinDeviation>* largest) {
  if (counts.size() != probability.size()) throw std::invalid_argument("identity test: one count per cell");
  const double n = static_cast<double>(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}));
  if (n == 0.0) throw std::invalid_argument("identity test: no samples");
  const Layout layout = layout_of(probability, group_of_cell, n);
  ChiSquareResult r = binned_chi_square(counts, probability, group_of_cell, layout.bins, deviations, largest);
  if (r.impossible > 0) return r;  // p = 0 already: nothing to refine
  const int tests = tests_in(layout);
  const double share = level.level / tests, largest_share = level.largest_level / tests;
  // The rare-cell statistic (its asymptotic p first: where either statistic alone already rejects
  // beyond the simulation zone, the case is rejected, and nothing is simulated for the other).
  std::vector<std::uint64_t> bin_counts;
  RareSum observed;
  if (tests == 2) {
    for (const SharedBin& bin : layout.shared) r.shared_cells += bin.cells.size();
    observed = observed_rare_sum(layout, counts, probability, n, bin_counts);
    if (observed.null_variance > 0.0) {
      r.rare_z = (observed.sum - observed.centre) / std::sqrt(observed.null_variance);
      r.rare_p_value = normal_upper(r.rare_z);
    }
  }
  const bool binned_decides = level.level > 0.0 && far_below(r.binned_p_value, share, kTrustedFactor);
  // The statistic is skewed (rare collisions): its normal tail decides alone only far below the level.
  const bool rare_decides = level.level > 0.0 && far_below(r.rare_p_value, share, kTrustedFactor * kTrustedFactor);
  if (binned_decides || rare_decides) {
    r.p_value = std::min(1.0, tests * (binned_decides ? r.binned_p_value : r.rare_p_value));
    return r;
  }
  if (r.dof >= 1) {
    auto chi_replicate = [&](std::uint64_t replicate) {
      PhiloxEngine rng(DrawSite{level.seed, Stream::null_simulation, level.id, 2 * replicate});
      return replicate_chi_square(layout.bins, n, rng);
    };
    r.binned_p_value = valid_p_value(r.binned_p_value, cantelli(r.statistic, r.dof, chi_square_null_variance(layout.bins, n)), share,
                                     largest_share, kTrustedFactor, chi_replicate, r.statistic, r.simulated);
  }
  if (tests == 2 && observed.null_variance > 0.0) {
    oneapi::tbb::enumerable_thread_specific<std::vector<std::size_t>> scratch;  // one per thread: replicates run in parallel
    auto rare_replicate = [&](std::uint64_t replicate) {
      PhiloxEngine rng(DrawSite{level.seed, Stream::null_simulation, level.id, 2 * replicate + 1});
      return replicate_rare_sum(layout, bin_counts, probability, n, rng, scratch.local());
    };
    r.rare_p_value = valid_p_value(r.rare_p_value, cantelli(observed.sum, observed.centre, observed.null_variance), share, largest_share,
                                   kTrustedFactor * kTrustedFactor, rare_replicate, observed.sum, r.simulated);
  }
  r.p_value = std::min(1.0, tests * std::min(r.binned_p_value, r.rare_p_value));
  return r;
}

std::optional<double> worst_case_detectable_tv(std::span<const double> probability, std::span<const std::int32_t> group_of_cell,
                                               double samples, double level, double power) {
  if (!(samples > 0.0)) return std::nullopt;
  const Layout layout = layout_of(probability, group_of_cell, samples);
  const double share = level / tests_in(layout);
  const double dof = static_cast<double>(layout.bins.bin_probability.size()) - 1.0;
  if (dof < 1.0) return std::nullopt;  // one bin: the χ² sees nothing
  const double critical = boost::math::quantile(boost::math::complement(boost::math::chi_squared(dof), share));
  // Between bins: λ ≥ n·A², so A₉₉ = √(λ₉₉/n); λ up to n·4 (A = 2).
  const double lambda = smallest_reaching([&](double l) { return chi_square_power_at(dof, l, critical); }, 4.0 * samples, power);
  const double between = std::sqrt(lambda / samples);
  if (chi_square_power_at(dof, lambda, critical) < power) return std::nullopt;
  // Inside bins: the flat alternative with D spread as ℓ = D/P_shared in every shared bin.
  double inside = 0.0;
  if (!layout.shared.empty()) {
    const double z = rare_critical_z(layout, probability, samples, share) * rare_null_sd(layout, samples);
    const double most = 2.0 * layout.shared_mass;
    auto rare_at = [&](double d) { return rare_power(flat_alternative_moments(layout, samples, std::min(d / layout.shared_mass, 2.0 - 1e-9)), z); };
    inside = smallest_reaching(rare_at, most, power);
    if (rare_at(inside) < power) inside = most;  // unseen: the bound TV ≤ A/2 + P_shared still holds
  }
  const double tv = 0.5 * (between + inside) + layout.unseen_mass;
  if (!(tv < 1.0)) return std::nullopt;
  return tv;
}

int identity_statistics(std::span<const double> probability, std::span<const std::int32_t> group_of_cell, double samples) {
  return tests_in(layout_of(probability, group_of_cell, samples));
}

NullCalibration binned_null_calibration(std::span<const double> probability, std::span<const std::int32_t> group_of_cell, double samples,
                                        double level, double largest_level, std::uint64_t replicates, std::uint32_t seed) {
  const Binning bins = pool_cells(probability, group_of_cell, samples);
  NullCalibration out{level, replicates, static_cast<std::int32_t>(bins.bin_probability.size()), 0.0, 0.0};
  const double dof = static_cast<double>(bins.bin_probability.size()) - 1.0;
  if (dof < 1.0 || replicates == 0) return out;
  std::vector<double> statistic(replicates);  // (replicates)
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::uint64_t>(0, replicates, 1024), [&](const oneapi::tbb::blocked_range<std::uint64_t>& range) {
    for (std::uint64_t r = range.begin(); r < range.end(); ++r) {
      PhiloxEngine rng(DrawSite{seed, Stream::null_simulation, ~std::uint32_t{0}, r});
      statistic[r] = replicate_chi_square(bins, samples, rng);
    }
  });
  std::vector<double> sorted = statistic;
  std::sort(sorted.begin(), sorted.end());
  const double variance = chi_square_null_variance(bins, samples);
  const auto cap = static_cast<std::uint64_t>(std::min(static_cast<double>(kMaxReplicates), std::ceil(kReplicatesPerLevel / level)));
  // The Monte Carlo p/0.99 is ≤ level only when it ran to the cap with few exceedances.
  const double most_exceedances = std::floor(0.99 * level * (static_cast<double>(cap) + 1.0) - 1.0);
  double asymptotic = 0.0, used = 0.0;
  for (double t : statistic) {
    const double p = boost::math::cdf(boost::math::complement(boost::math::chi_squared(dof), t));
    asymptotic += p <= level;
    if (far_above(p, level, largest_level)) continue;
    if (far_below(p, level, kTrustedFactor) || kTrustedFactor * cantelli(t, dof, variance) <= level) {
      used += 1.0;
      continue;
    }
    if (most_exceedances < 0.0) continue;
    const double tail = static_cast<double>(sorted.end() - std::lower_bound(sorted.begin(), sorted.end(), t)) / static_cast<double>(replicates);
    used += boost::math::cdf(boost::math::binomial_distribution<double>(static_cast<double>(cap), std::min(tail, 1.0)), most_exceedances);
  }
  out.asymptotic_rate = asymptotic / static_cast<double>(replicates);
  out.used_rate = used / static_cast<double>(replicates);
  return out;
}

double identity_test_power(std::span<const double> probability, std::span<const double> alternative,
                           std::span<const std::int32_t> group_of_cell, double samples, double level) {
  const Layout layout = layout_of(probability, group_of_cell, samples);
  const double share = level / tests_in(layout);
  const double binned = binned_chi_square_power(layout.bins, probability, alternative, samples, share);
  if (layout.shared.empty()) return binned;
  const double z = rare_critical_z(layout, probability, samples, share) * rare_null_sd(layout, samples);
  return std::max(binned, rare_power(alternative_moments(layout, probability, alternative, samples), z));
}

}  // namespace tev
