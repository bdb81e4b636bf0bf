#include "core/softmax.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/compensated_sum.hpp"

namespace tev {

double log_sum_exp(std::span<const double> z) {
  if (z.empty()) throw std::invalid_argument("log_sum_exp of an empty row");
  const double top = *std::max_element(z.begin(), z.end());
  if (top == -INFINITY) return top;  // no mass anywhere; exp(−∞ − −∞) would be NaN
  double total = 0.0;
  for (double x : z) total += std::exp(x - top);
  return top + std::log(total);
}

void softmax(std::span<const double> z, std::span<double> out, double temperature) {
  if (z.size() != out.size())
    throw std::invalid_argument("softmax: input and output rows differ in length");
  if (z.empty()) throw std::invalid_argument("softmax of an empty row");
  if (!(temperature > 0.0) || !std::isfinite(temperature)) {
    throw std::invalid_argument(
        "temperature must be positive and finite (greedy decoding is not sampling)");
  }
  const double top = *std::max_element(z.begin(), z.end());
  if (!std::isfinite(top))
    throw std::invalid_argument("softmax: the row's largest logit is not finite");
  for (std::size_t a = 0; a < z.size(); ++a) out[a] = std::exp((z[a] - top) / temperature);
  // The largest entry contributes exactly 1, so the total is at least 1.
  const double total = compensated_total(out);
  for (double& x : out) x /= total;
}

}  // namespace tev
