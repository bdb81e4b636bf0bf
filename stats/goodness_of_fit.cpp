#include "stats/goodness_of_fit.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_chi_squared.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "core/compensated_sum.hpp"

namespace tev::stats {

namespace {

// Every index into a bin or group vector goes through here: a bad index (a miscompiled sentinel,
// a negative group) stops the run with a message instead of writing out of bounds.
std::size_t checked_index(std::int64_t index, std::size_t size, const char* what) {
  if (index < 0 || static_cast<std::uint64_t>(index) >= size) {
    throw std::logic_error(std::string(what) + ": index " + std::to_string(index) +
                           " outside [0, " + std::to_string(size) + ")");
  }
  return static_cast<std::size_t>(index);
}

// The bin that a cell of positive probability falls in; cells of zero probability have none and
// are never asked for (callers decide impossibility from the probability itself).
std::size_t bin_of(const Binning& bins, std::size_t cell) {
  return checked_index(bins.bin_of_cell[cell], bins.bin_probability.size(),
                       "pool_cells: a possible cell without a bin");
}

}  // namespace

namespace {

// Cuts cells (in the order given) into consecutive bins of about `target` reference mass each,
// every bin at least `target`: a bin closes once it holds `target` and the cells left still hold
// another `target`, so the last bin is never a sliver.
void cut_in_order(std::span<const std::size_t> cells, std::span<const double> probability,
                  double mass, double target, Binning& b) {
  double closed = 0.0, open = 0.0;
  auto bin = static_cast<std::int32_t>(b.bin_probability.size());
  b.bin_probability.push_back(0.0);
  for (std::size_t i : cells) {
    // The slack keeps rounding in the running sums from merging the last two bins.
    if (open >= target * (1.0 - 1e-9) && mass - closed - open >= target * (1.0 - 1e-9)) {
      closed += open;
      open = 0.0;
      bin = static_cast<std::int32_t>(b.bin_probability.size());
      b.bin_probability.push_back(0.0);
    }
    open += probability[i];
    b.bin_probability[static_cast<std::size_t>(bin)] += probability[i];
    b.bin_of_cell[i] = bin;
  }
}

}  // namespace

Binning pool_cells(std::span<const double> probability, std::span<const std::int32_t> group_of_cell,
                   double samples) {
  if (probability.size() != group_of_cell.size())
    throw std::invalid_argument("pool_cells: one group per cell");
  std::int32_t groups = 0;
  for (std::int32_t g : group_of_cell) {
    if (g < 0) throw std::invalid_argument("pool_cells: negative group " + std::to_string(g));
    groups = std::max(groups, g + 1);
  }
  Binning b;
  b.bin_of_cell.assign(probability.size(), kImpossibleCell);
  // Cells large enough get their own bin; small ones join their group's tail, in cell order.
  // Cells are classified by their probability alone (no sentinel values are read back).
  std::vector<std::vector<std::size_t>> tail_cells(
      static_cast<std::size_t>(groups));  // (groups) light cells, in order
  std::vector<double> tail(static_cast<std::size_t>(groups), 0.0);  // (groups) their mass
  for (std::size_t i = 0; i < probability.size(); ++i) {
    if (!(probability[i] > 0.0)) continue;
    if (samples * probability[i] >= kMinExpectedCount) {
      b.bin_of_cell[i] = static_cast<std::int32_t>(b.bin_probability.size());
      b.bin_probability.push_back(probability[i]);
    } else {
      const std::size_t g = checked_index(group_of_cell[i], tail.size(), "pool_cells: group");
      tail_cells[g].push_back(i);
      tail[g] += probability[i];
    }
  }
  // A group's tail large enough is cut into up to kTailBinsPerGroup bins of equal mass; the rest
  // pool, still in cell order, into the global tail, cut the same way.
  const auto bins_for = [&](double mass) {
    return std::clamp(std::floor(samples * mass / kMinExpectedCount), 1.0,
                      static_cast<double>(kTailBinsPerGroup));
  };
  std::vector<std::size_t> global_cells;
  double global = 0.0;
  for (std::size_t g = 0; g < tail.size(); ++g) {
    if (tail_cells[g].empty()) continue;
    if (samples * tail[g] >= kMinExpectedCount) {
      cut_in_order(tail_cells[g], probability, tail[g], tail[g] / bins_for(tail[g]), b);
    } else {
      global_cells.insert(global_cells.end(), tail_cells[g].begin(), tail_cells[g].end());
      global += tail[g];
    }
  }
  if (global_cells.empty()) return b;
  if (samples * global >= kMinExpectedCount || b.bin_probability.empty()) {
    cut_in_order(global_cells, probability, global, global / bins_for(global), b);
  } else {  // too little for a bin of its own: it joins the bin of smallest probability
    const auto smallest = static_cast<std::int32_t>(
        std::min_element(b.bin_probability.begin(), b.bin_probability.end()) -
        b.bin_probability.begin());
    for (std::size_t i : global_cells) b.bin_of_cell[i] = smallest;
    b.bin_probability[static_cast<std::size_t>(smallest)] += global;
  }
  return b;
}

std::vector<std::int32_t> node_groups(std::int32_t nodes, std::int32_t vocab) {
  std::vector<std::int32_t> g(static_cast<std::size_t>(nodes) * static_cast<std::size_t>(vocab));
  for (std::size_t i = 0; i < g.size(); ++i)
    g[i] = static_cast<std::int32_t>(i / static_cast<std::size_t>(vocab));
  return g;
}

ChiSquareResult binned_chi_square(std::span<const std::uint64_t> counts,
                                  std::span<const double> probability,
                                  std::span<const std::int32_t> group_of_cell, const Binning& bins,
                                  std::size_t deviations, std::vector<BinDeviation>* largest) {
  if (counts.size() != probability.size())
    throw std::invalid_argument("pearson_chi_square: one count per cell");
  const std::uint64_t n = std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
  ChiSquareResult r;
  if (n == 0) throw std::invalid_argument("pearson_chi_square: no samples");
  if (bins.bin_of_cell.size() != counts.size())
    throw std::invalid_argument("pearson_chi_square: a binning of other cells");
  std::vector<std::uint64_t> observed(bins.bin_probability.size(), 0);
  std::vector<BinDeviation> bin(largest ? bins.bin_probability.size() : 0);
  std::vector<BinDeviation> impossible;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (!(probability[i] > 0.0)) {  // impossible by the law itself, whatever the binning says
      if (counts[i] > 0 && r.first_impossible < 0)
        r.first_impossible = static_cast<std::int64_t>(i);
      r.impossible += counts[i];
      if (largest && counts[i] > 0) {
        impossible.push_back({static_cast<std::int64_t>(i), group_of_cell[i], 1, counts[i], 0.0,
                              std::numeric_limits<double>::infinity()});
      }
    } else {
      const std::size_t k = bin_of(bins, i);
      observed[k] += counts[i];
      if (largest) {
        BinDeviation& b = bin[k];
        b.group = b.cells == 0 || b.group == group_of_cell[i] ? group_of_cell[i] : -1;
        b.cell = b.cells == 0 ? static_cast<std::int64_t>(i) : -1;
        ++b.cells;
      }
    }
  }
  r.bins = static_cast<std::int32_t>(observed.size());
  r.dof = r.bins - 1;
  for (std::size_t b = 0; b < observed.size(); ++b) {
    const double expected = static_cast<double>(n) * bins.bin_probability[b];
    const double diff = static_cast<double>(observed[b]) - expected;
    r.statistic += diff * diff / expected;
    if (largest) {
      bin[b].observed = observed[b];
      bin[b].expected = expected;
      bin[b].residual = diff / std::sqrt(expected);
    }
  }
  if (r.impossible > 0) {
    r.p_value = 0.0;
  } else if (r.dof >= 1) {
    r.p_value =
        boost::math::cdf(boost::math::complement(boost::math::chi_squared(r.dof), r.statistic));
  }
  if (largest) {
    const auto larger = [](const BinDeviation& a, const BinDeviation& b) {
      return std::abs(a.residual) > std::abs(b.residual);
    };
    const std::size_t keep =
        std::min(bin.size(), deviations > impossible.size() ? deviations - impossible.size() : 0);
    std::partial_sort(bin.begin(), bin.begin() + static_cast<std::ptrdiff_t>(keep), bin.end(),
                      larger);
    *largest = std::move(impossible);
    largest->insert(largest->end(), bin.begin(), bin.begin() + static_cast<std::ptrdiff_t>(keep));
    largest->resize(std::min(largest->size(), deviations));
  }
  r.binned_p_value = r.p_value;
  return r;
}

namespace {
double total(std::span<const std::uint64_t> counts) {
  return static_cast<double>(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}));
}
}  // namespace

ChiSquareResult pearson_chi_square(std::span<const std::uint64_t> counts,
                                   std::span<const double> probability,
                                   std::span<const std::int32_t> group_of_cell) {
  return binned_chi_square(counts, probability, group_of_cell,
                           pool_cells(probability, group_of_cell, total(counts)), 0, nullptr);
}

ChiSquareResult pearson_chi_square(std::span<const std::uint64_t> counts,
                                   std::span<const double> probability,
                                   std::span<const std::int32_t> group_of_cell,
                                   std::size_t deviations, std::vector<BinDeviation>& largest) {
  return binned_chi_square(counts, probability, group_of_cell,
                           pool_cells(probability, group_of_cell, total(counts)), deviations,
                           &largest);
}

std::vector<BinDeviation> largest_deviations(std::span<const std::uint64_t> counts,
                                             std::span<const double> probability,
                                             std::span<const std::int32_t> group_of_cell,
                                             std::size_t count) {
  std::vector<BinDeviation> out;
  if (std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}) > 0)
    pearson_chi_square(counts, probability, group_of_cell, count, out);
  return out;
}

namespace {

// An alternative law seen through the null's binning: its mass per bin, and its mass on cells
// the null calls impossible.
struct BinnedAlternative {
  std::vector<double> bins;  // (bins) alternative mass per bin
  double impossible = 0.0;
};

BinnedAlternative bin_alternative(const Binning& bins, std::span<const double> probability,
                                  std::span<const double> alternative) {
  if (probability.size() != alternative.size())
    throw std::invalid_argument("chi_square_power: laws on different cells");
  BinnedAlternative out{std::vector<double>(bins.bin_probability.size(), 0.0), 0.0};
  for (std::size_t i = 0; i < alternative.size(); ++i) {
    if (!(probability[i] > 0.0)) {
      out.impossible += alternative[i];
    } else {
      out.bins[bin_of(bins, i)] += alternative[i];
    }
  }
  return out;
}

// P(reject at alpha) from binned laws: the non-central χ² over the bins, combined with the chance
// of at least one impossible event.
double power_from_bins(const Binning& bins, std::span<const double> alternative, double impossible,
                       double samples, double alpha) {
  double chi_power = alpha;
  const auto dof = static_cast<double>(bins.bin_probability.size()) - 1.0;
  if (dof >= 1.0) {
    double lambda = 0.0;
    for (std::size_t b = 0; b < alternative.size(); ++b) {
      const double d = alternative[b] - bins.bin_probability[b];
      lambda += samples * d * d / bins.bin_probability[b];
    }
    const double critical =
        boost::math::quantile(boost::math::complement(boost::math::chi_squared(dof), alpha));
    if (lambda > 0.0) {
      // Far in the tail Boost's series overflows its integer rounding (λ ~ 1e9); there the normal
      // approximation (mean dof + λ, variance 2(dof + 2λ)) is exact to far below 1e-12.
      const double sd = std::sqrt(2.0 * (dof + 2.0 * lambda));
      const double z = (dof + lambda - critical) / sd;
      chi_power = z > 40.0 ? 1.0
                           : boost::math::cdf(boost::math::complement(
                                 boost::math::non_central_chi_squared(dof, lambda), critical));
    }
  }
  const double no_impossible = std::exp(samples * std::log1p(-std::min(impossible, 1.0)));
  return 1.0 - no_impossible * (1.0 - chi_power);
}

}  // namespace

double chi_square_power(std::span<const double> probability, std::span<const double> alternative,
                        std::span<const std::int32_t> group_of_cell, double samples, double alpha) {
  return binned_chi_square_power(pool_cells(probability, group_of_cell, samples), probability,
                                 alternative, samples, alpha);
}

double binned_chi_square_power(const Binning& bins, std::span<const double> probability,
                               std::span<const double> alternative, double samples, double alpha) {
  const BinnedAlternative alt = bin_alternative(bins, probability, alternative);
  return power_from_bins(bins, alt.bins, alt.impossible, samples, alpha);
}

std::optional<double> detectable_tv_toward(std::span<const double> probability,
                                           std::span<const double> wrong,
                                           std::span<const std::int32_t> group_of_cell,
                                           double samples, double alpha, double power) {
  // The binning depends on the null alone, and a mixture's binned mass is the mixture of the binned
  // masses: pool and bin once, then bisect over bins (cells can number millions on live trees).
  const Binning bins = pool_cells(probability, group_of_cell, samples);
  const BinnedAlternative w = bin_alternative(bins, probability, wrong);
  std::vector<double> mixture(bins.bin_probability.size());
  auto power_at = [&](double eps) {
    for (std::size_t b = 0; b < mixture.size(); ++b)
      mixture[b] = (1.0 - eps) * bins.bin_probability[b] + eps * w.bins[b];
    return power_from_bins(bins, mixture, eps * w.impossible, samples, alpha);
  };
  if (power_at(1.0) < power) return std::nullopt;
  double lo = 0.0, hi = 1.0;  // bisection on ε: TV is linear in it
  for (int i = 0; i < 50; ++i) {
    const double mid = 0.5 * (lo + hi);
    (power_at(mid) >= power ? hi : lo) = mid;
  }
  CompensatedSum tv;
  for (std::size_t i = 0; i < probability.size(); ++i) tv.add(std::abs(wrong[i] - probability[i]));
  return hi * 0.5 * tv.value();
}

MeanSd mean_sd(std::span<const double> xs) {
  double mean = 0.0;
  for (double x : xs) mean += x / static_cast<double>(xs.size());
  double squares = 0.0;
  for (double x : xs) squares += (x - mean) * (x - mean);
  return {mean, xs.size() > 1 ? std::sqrt(squares / static_cast<double>(xs.size() - 1)) : 0.0};
}

std::vector<double> holm_adjust(std::span<const double> p_values) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  std::vector<double> adjusted(m);
  double running = 0.0;
  for (std::size_t k = 0; k < m; ++k) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - k) * p_values[order[k]]));
    adjusted[order[k]] = running;
  }
  return adjusted;
}

}  // namespace tev::stats

#include <boost/math/distributions/binomial.hpp>

namespace tev::stats {

namespace {
constexpr double kLikelihoodSlack =
    1.0 + 1e-7;  // outcomes this close in likelihood count as "as likely"
}

double binomial_upper_p(std::uint64_t k, std::uint64_t n, double p) {
  if (k == 0) return 1.0;
  if (k > n) return 0.0;
  if (p <= 0.0) return 0.0;
  if (p >= 1.0) return 1.0;
  const boost::math::binomial_distribution<double> bin(static_cast<double>(n), p);
  return boost::math::cdf(boost::math::complement(bin, static_cast<double>(k - 1)));
}

double binomial_lower_p(std::uint64_t k, std::uint64_t n, double p) {
  if (k > n) throw std::invalid_argument("binomial test: more successes than trials");
  if (k == n || p <= 0.0) return 1.0;
  if (p >= 1.0) return 0.0;
  return boost::math::cdf(boost::math::binomial_distribution<double>(static_cast<double>(n), p),
                          static_cast<double>(k));
}

double binomial_two_sided_p(std::uint64_t k, std::uint64_t n, double p) {
  if (k > n) throw std::invalid_argument("binomial test: more successes than trials");
  if (p <= 0.0) return k == 0 ? 1.0 : 0.0;
  if (p >= 1.0) return k == n ? 1.0 : 0.0;
  const boost::math::binomial_distribution<double> bin(static_cast<double>(n), p);
  const auto nd = static_cast<double>(n);
  const double kd = static_cast<double>(k);
  const double threshold = boost::math::pdf(bin, kd) * kLikelihoodSlack;
  const double mode = std::floor((nd + 1.0) * p);
  // The pmf is unimodal: the outcomes as unlikely as k on the other side of the mode form a tail,
  // whose edge a binary search finds.
  if (kd <= mode) {
    double lo = mode, hi = nd;  // find the smallest j > mode with pdf(j) ≤ threshold
    if (boost::math::pdf(bin, hi) > threshold) return boost::math::cdf(bin, kd);
    while (hi - lo > 1.0) {
      const double mid = std::floor((lo + hi) / 2.0);
      (boost::math::pdf(bin, mid) <= threshold ? hi : lo) = mid;
    }
    return std::min(
        1.0, boost::math::cdf(bin, kd) + boost::math::cdf(boost::math::complement(bin, hi - 1.0)));
  }
  double lo = 0.0, hi = mode;  // find the largest j < mode with pdf(j) ≤ threshold
  if (boost::math::pdf(bin, lo) > threshold)
    return boost::math::cdf(boost::math::complement(bin, kd - 1.0));
  while (hi - lo > 1.0) {
    const double mid = std::floor((lo + hi) / 2.0);
    (boost::math::pdf(bin, mid) <= threshold ? lo : hi) = mid;
  }
  return std::min(
      1.0, boost::math::cdf(bin, lo) + boost::math::cdf(boost::math::complement(bin, kd - 1.0)));
}

ChiSquareResult homogeneity_chi_square(std::span<const std::uint64_t> a,
                                       std::span<const std::uint64_t> b) {
  if (a.size() != b.size())
    throw std::invalid_argument("homogeneity test: samples over different cells");
  const double na = static_cast<double>(std::accumulate(a.begin(), a.end(), std::uint64_t{0}));
  const double nb = static_cast<double>(std::accumulate(b.begin(), b.end(), std::uint64_t{0}));
  if (na == 0.0 || nb == 0.0) throw std::invalid_argument("homogeneity test: an empty sample");
  const double total = na + nb;
  std::vector<std::pair<double, double>> bins;  // (count a, count b) per bin; the last is the tail
  std::pair<double, double> tail{0.0, 0.0};
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double pooled = static_cast<double>(a[i] + b[i]);
    if (pooled == 0.0) continue;
    const double smaller_expected = pooled * std::min(na, nb) / total;
    if (smaller_expected >= kMinExpectedCount) {
      bins.emplace_back(static_cast<double>(a[i]), static_cast<double>(b[i]));
    } else {
      tail.first += static_cast<double>(a[i]);
      tail.second += static_cast<double>(b[i]);
    }
  }
  if (tail.first + tail.second > 0.0) bins.push_back(tail);
  ChiSquareResult r;
  r.bins = static_cast<std::int32_t>(bins.size());
  r.dof = r.bins - 1;
  for (const auto& [ca, cb] : bins) {
    const double pooled = ca + cb;
    const double ea = pooled * na / total, eb = pooled * nb / total;
    r.statistic += (ca - ea) * (ca - ea) / ea + (cb - eb) * (cb - eb) / eb;
  }
  if (r.dof >= 1)
    r.p_value =
        boost::math::cdf(boost::math::complement(boost::math::chi_squared(r.dof), r.statistic));
  return r;
}

double kolmogorov_cdf(double x) {
  if (x <= 0.0) return 0.0;
  constexpr double kPi = 3.14159265358979323846;
  double sum = 0.0;
  if (x < 1.0) {
    for (int k = 1; k <= 50; ++k) {
      const double m = 2.0 * k - 1.0;
      sum += std::exp(-m * m * kPi * kPi / (8.0 * x * x));
    }
    return std::sqrt(2.0 * kPi) / x * sum;
  }
  for (int k = 1; k <= 100; ++k) {
    const double term = std::exp(-2.0 * k * k * x * x);
    sum += (k % 2 == 1 ? term : -term);
    if (term < 1e-300) break;
  }
  return std::min(1.0, std::max(0.0, 1.0 - 2.0 * sum));
}

KolmogorovSmirnovResult ks_uniform(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("ks_uniform: no values");
  std::sort(values.begin(), values.end());
  const auto n = static_cast<double>(values.size());
  KolmogorovSmirnovResult r;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double u = std::clamp(values[i], 0.0, 1.0);
    r.statistic = std::max(
        {r.statistic, (static_cast<double>(i) + 1.0) / n - u, u - static_cast<double>(i) / n});
  }
  const double root = std::sqrt(n);
  r.p_value = 1.0 - kolmogorov_cdf((root + 0.12 + 0.11 / root) * r.statistic);
  return r;
}

}  // namespace tev::stats
