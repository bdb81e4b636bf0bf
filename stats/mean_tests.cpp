// The tests of a mean or of a sum of draws from known laws declared in goodness_of_fit.hpp: the
// z-tests, and the Chernoff bounds valid at every n.
#include "stats/goodness_of_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/compensated_sum.hpp"

namespace tev::stats {

double mean_z_test_p(double sample_mean, std::uint64_t samples, double mean0, double var0) {
  if (samples == 0) throw std::invalid_argument("mean_test_p_value: no samples");
  if (!(var0 > 0.0))
    return std::abs(sample_mean - mean0) <= 1e-9 * std::max(1.0, std::abs(mean0)) ? 1.0 : 0.0;
  const double z = (sample_mean - mean0) / std::sqrt(var0 / static_cast<double>(samples));
  return std::erfc(std::abs(z) / std::sqrt(2.0));
}

double mean_below_z_test_p(double sample_mean, std::uint64_t samples, double mean0, double var0) {
  if (samples == 0) throw std::invalid_argument("mean_below_p_value: no samples");
  if (!(var0 > 0.0)) return sample_mean < mean0 - 1e-9 * std::max(1.0, std::abs(mean0)) ? 0.0 : 1.0;
  const double z = (sample_mean - mean0) / std::sqrt(var0 / static_cast<double>(samples));
  return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

namespace {

// Σ_t n_t log Σ_k p_tk e^{θ v_tk} and its derivative, the tilted mean of the sum.
struct Tilted {
  double log_mgf;
  double mean;
};
Tilted tilt(std::span<const DrawnLaw> laws, double theta) {
  Tilted sum{0.0, 0.0};
  for (const DrawnLaw& law : laws) {
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < law.values.size(); ++k) {
      if (law.probabilities[k] > 0.0)
        top = std::max(top, theta * law.values[k] + std::log(law.probabilities[k]));
    }
    double total = 0.0, weighted = 0.0;
    for (std::size_t k = 0; k < law.values.size(); ++k) {
      if (!(law.probabilities[k] > 0.0)) continue;
      const double e = std::exp(theta * law.values[k] + std::log(law.probabilities[k]) - top);
      total += e;
      weighted += e * law.values[k];
    }
    sum.log_mgf += law.draws * (top + std::log(total));
    sum.mean += law.draws * weighted / total;
  }
  return sum;
}

}  // namespace

double sum_below_chernoff_p(double observed_sum, std::span<const DrawnLaw> laws) {
  // The sum's smallest possible value, its probability, and its mean.
  double lowest = 0.0, log_lowest_mass = 0.0;
  CompensatedSum mean;
  for (const DrawnLaw& law : laws) {
    if (law.values.size() != law.probabilities.size())
      throw std::invalid_argument("sum_below_bound_p: one probability per value");
    double low = std::numeric_limits<double>::infinity(), low_mass = 0.0;
    for (std::size_t k = 0; k < law.values.size(); ++k) {
      if (!(law.probabilities[k] > 0.0)) continue;
      mean.add(law.draws * law.values[k] * law.probabilities[k]);
      if (law.values[k] < low) low = law.values[k], low_mass = 0.0;
      if (law.values[k] == low) low_mass += law.probabilities[k];
    }
    if (!std::isfinite(low)) throw std::invalid_argument("sum_below_bound_p: a law without mass");
    lowest += law.draws * low;
    log_lowest_mass += law.draws * std::log(low_mass);
  }
  // The observed sum is a sum of values in floating point: compare with a slack for that rounding.
  const double slack = 1e-12 * std::max({1.0, std::abs(lowest), std::abs(mean.value())});
  if (observed_sum >= mean.value() - slack) return 1.0;
  if (observed_sum < lowest - slack) return 0.0;  // below every value the laws allow
  if (observed_sum <= lowest + slack)
    return std::exp(log_lowest_mass);  // every draw at its lowest value
  // The tilt θ < 0 whose tilted mean is the observed sum; the tilted mean grows with θ.
  double lo = -1.0, hi = 0.0;
  while (tilt(laws, lo).mean > observed_sum) {
    hi = lo;
    lo *= 2.0;
    if (lo < -1e12) return std::exp(log_lowest_mass);
  }
  for (int i = 0; i < 200 && hi - lo > 1e-15 * std::max(1.0, std::abs(lo)); ++i) {
    const double mid = 0.5 * (lo + hi);
    (tilt(laws, mid).mean > observed_sum ? hi : lo) = mid;
  }
  const double theta = 0.5 * (lo + hi);
  const double rate = theta * observed_sum - tilt(laws, theta).log_mgf;  // Cramér's n·I ≥ 0
  return std::min(1.0, std::exp(-std::max(0.0, rate)));
}

double sum_above_chernoff_p(double observed_sum, std::span<const DrawnLaw> laws) {
  std::vector<std::vector<double>> negated;
  std::vector<DrawnLaw> mirrored;
  negated.reserve(laws.size());
  for (const DrawnLaw& law : laws) {
    negated.emplace_back(law.values.begin(), law.values.end());
    for (double& v : negated.back()) v = -v;
    mirrored.push_back({negated.back(), law.probabilities, law.draws});
  }
  return sum_below_chernoff_p(-observed_sum, mirrored);
}

double sum_two_sided_chernoff_p(double observed_sum, std::span<const DrawnLaw> laws) {
  return std::min(1.0, 2.0 * std::min(sum_below_chernoff_p(observed_sum, laws),
                                      sum_above_chernoff_p(observed_sum, laws)));
}

namespace {
DrawnLaw one_law(std::uint64_t samples, std::span<const double> values,
                 std::span<const double> probabilities) {
  if (samples == 0) throw std::invalid_argument("mean bound: no samples");
  return {values, probabilities, static_cast<double>(samples)};
}
}  // namespace

double mean_below_chernoff_p(double sample_mean, std::uint64_t samples,
                             std::span<const double> values,
                             std::span<const double> probabilities) {
  const DrawnLaw law = one_law(samples, values, probabilities);
  return sum_below_chernoff_p(sample_mean * law.draws, std::span(&law, 1));
}

double mean_above_chernoff_p(double sample_mean, std::uint64_t samples,
                             std::span<const double> values,
                             std::span<const double> probabilities) {
  const DrawnLaw law = one_law(samples, values, probabilities);
  return sum_above_chernoff_p(sample_mean * law.draws, std::span(&law, 1));
}

}  // namespace tev::stats
