// The identity test's power (stats/law_identity.hpp): the worst-direction TV it detects, and its
// chance of rejecting a given alternative, each statistic at its share of the level.
#include "stats/law_identity.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>

#include "stats/identity_layout.hpp"

namespace tev::stats {

namespace {

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
  total.variance += weight * weight *
                    std::max(0.0, 4.0 * m3 * b + 2.0 * m2 * c - 2.0 * m2 * (2.0 * m - 3.0) * a * a);
}

// The level-`level` critical value of the standardized rare-cell statistic: the normal quantile
// with the Cornish–Fisher skewness term, the skewness from the Poisson cumulants of
// ((N − λ)² − N)/λ, κ₂ = 2 and κ₃ = 8 + 4/λ per cell (λ = n·p_i).
double rare_critical_z(const Layout& layout, std::span<const double> probability, double n,
                       double level) {
  double k2 = 0.0, k3 = 0.0;
  for (const SharedBin& bin : layout.shared) {
    for (std::size_t j = 0; j < bin.statistic_cells(); ++j) {
      k2 += 2.0;
      k3 += 8.0 + 4.0 / (n * bin.cell_mass(probability, j));
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
    v += 2.0 * m * (m - 1.0) * (static_cast<double>(bin.statistic_cells()) - 1.0) / (m * m);
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
  const double c_per_cell =
      up_share * (1.0 + up) * (1.0 + up) + (1.0 - up_share) * (1.0 - down) * (1.0 - down);
  Moments m;
  for (const SharedBin& bin : layout.shared) {
    const double count = n * bin.mass;
    add_bin_moments(m, count, 1.0 / count, a, b,
                    c_per_cell * static_cast<double>(bin.statistic_cells()));
  }
  return m;
}

// The rare-cell statistic's moments under an arbitrary alternative law (m_b = n·q_b).
Moments alternative_moments(const Layout& layout, std::span<const double> probability,
                            std::span<const double> alternative, double n) {
  Moments m;
  for (const SharedBin& bin : layout.shared) {
    double pooled = 0.0;
    for (std::size_t i : bin.pooled) pooled += alternative[i];
    const auto alternative_mass = [&](std::size_t j) {
      return j < bin.cells.size() ? alternative[bin.cells[j]] : pooled;
    };
    double q = 0.0;
    for (std::size_t j = 0; j < bin.statistic_cells(); ++j) q += alternative_mass(j);
    if (!(q > 0.0)) continue;
    double a = 0.0, b = 0.0, c = 0.0;
    for (std::size_t j = 0; j < bin.statistic_cells(); ++j) {
      const double s = alternative_mass(j) / q, r = bin.cell_mass(probability, j) / bin.mass;
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
  if ((dof + lambda - critical) / sd > 40.0)
    return 1.0;  // Boost's series overflows far in the tail
  return boost::math::cdf(
      boost::math::complement(boost::math::non_central_chi_squared(dof, lambda), critical));
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

}  // namespace

std::optional<double> worst_case_detectable_tv(std::span<const double> probability,
                                               std::span<const std::int32_t> group_of_cell,
                                               double samples, double level, double power) {
  if (!(samples > 0.0)) return std::nullopt;
  // A point mass (greedy decoding): any other law at TV δ puts all of δ on cells of no reference
  // mass, where one sample gives p = 0 at every level; some sample lands there with probability
  // 1 − (1 − δ)^n, which reaches `power` from δ = 1 − (1 − power)^(1/n).
  if (std::count_if(probability.begin(), probability.end(), [](double p) { return p > 0.0; }) ==
      1) {
    return -std::expm1(std::log1p(-power) / samples);
  }
  const Layout layout = layout_of(probability, group_of_cell, samples);
  // Each statistic at its share of the level, as run: its power level, and the power asked of the
  // exact test raised so that the Monte Carlo p-value's misses still leave `power`.
  const double share = power_level(level / tests_in(layout));
  power /= 1.0 - kMonteCarloMiss;
  const double dof = static_cast<double>(layout.bins.bin_probability.size()) - 1.0;
  if (dof < 1.0 || !(share > 0.0) || !(power < 1.0))
    return std::nullopt;  // one bin: the χ² sees nothing
  const double critical =
      boost::math::quantile(boost::math::complement(boost::math::chi_squared(dof), share));
  // Between bins: λ ≥ n·A², so A₉₉ = √(λ₉₉/n); λ up to n·4 (A = 2).
  const double lambda = smallest_reaching(
      [&](double l) { return chi_square_power_at(dof, l, critical); }, 4.0 * samples, power);
  const double between = std::sqrt(lambda / samples);
  if (chi_square_power_at(dof, lambda, critical) < power) return std::nullopt;
  // Inside bins: the flat alternative with D spread as ℓ = D/P_shared in every shared bin.
  double inside = 0.0;
  if (!layout.shared.empty()) {
    const double z =
        rare_critical_z(layout, probability, samples, share) * rare_null_sd(layout, samples);
    const double most = 2.0 * layout.shared_mass;
    auto rare_at = [&](double d) {
      return rare_power(
          flat_alternative_moments(layout, samples, std::min(d / layout.shared_mass, 2.0 - 1e-9)),
          z);
    };
    inside = smallest_reaching(rare_at, most, power);
    if (rare_at(inside) < power)
      inside = most;  // unseen: the bound TV ≤ A/2 + P_shared still holds
  }
  const double tv = 0.5 * (between + inside) + layout.unseen_mass;
  if (!(tv < 1.0)) return std::nullopt;
  return tv;
}

double identity_test_power(std::span<const double> probability, std::span<const double> alternative,
                           std::span<const std::int32_t> group_of_cell, double samples,
                           double level) {
  const Layout layout = layout_of(probability, group_of_cell, samples);
  const double share =
      power_level(level / tests_in(layout));  // as run: see worst_case_detectable_tv
  if (!(share > 0.0)) return 0.0;
  const double binned =
      binned_chi_square_power(layout.bins, probability, alternative, samples, share);
  if (layout.shared.empty()) return (1.0 - kMonteCarloMiss) * binned;
  const double z =
      rare_critical_z(layout, probability, samples, share) * rare_null_sd(layout, samples);
  return (1.0 - kMonteCarloMiss) *
         std::max(binned,
                  rare_power(alternative_moments(layout, probability, alternative, samples), z));
}

}  // namespace tev::stats
