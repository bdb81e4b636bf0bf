#include "core/sampling_params.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/compensated_sum.hpp"
#include "core/softmax.hpp"

namespace tev {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Token ids by probability, largest first, ties by token id.
std::vector<std::size_t> by_probability(std::span<const double> p) {
  std::vector<std::size_t> order(p.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
  return order;
}

// The k-th and (k + 1)-th largest entries of z (1 ≤ k < z.size()), by one partial partition.
std::pair<double, double> around_kth(std::span<const double> z, std::size_t k) {
  std::vector<double> partial(z.begin(), z.end());
  std::nth_element(partial.begin(), partial.begin() + static_cast<std::ptrdiff_t>(k), partial.end(),
                   std::greater<>());
  return {*std::min_element(partial.begin(), partial.begin() + static_cast<std::ptrdiff_t>(k)),
          partial[k]};
}

bool top_k_on(const SamplingParams& params, std::size_t vocab) {
  return params.top_k > 0 && static_cast<std::size_t>(params.top_k) < vocab;
}

// Zeroes p where the token's probability is below min_p times the largest: p_a / max p is the same
// before and after any renormalization, so min-p gives the same answer at either stage.
void apply_min_p(std::span<double> p, double min_p, double largest) {
  for (double& x : p) {
    if (x < min_p * largest) x = 0.0;
  }
}

// Where top-p cuts p (its mass renormalized): the tokens in descending order, how many are kept
// (while the mass before them is below top_p of the total), and the mass before each of the first
// kept + 1, as fractions of the total.
struct TopPCut {
  std::vector<std::size_t> order;
  std::size_t kept = 0;
  std::vector<double> before;  // (kept + 1, or fewer at the end of the support)
};

TopPCut top_p_cut(std::span<const double> p, double top_p) {
  TopPCut cut{by_probability(p), 0, {}};
  const double total = compensated_total(p);
  CompensatedSum before;
  for (std::size_t a : cut.order) {
    if (p[a] == 0.0) break;
    cut.before.push_back(before.value() / total);
    if (cut.before.back() >= top_p) break;
    before.add(p[a]);
    ++cut.kept;
  }
  return cut;
}

// The tempered distribution and its largest entry (which no filter removes).
struct Tempered {
  std::vector<double> p;
  double largest = 0.0;
};

Tempered tempered(std::span<const double> logits, double temperature) {
  Tempered t{std::vector<double>(logits.size()), 0.0};
  softmax(logits, t.p, temperature);
  t.largest = *std::max_element(t.p.begin(), t.p.end());
  return t;
}

// The tempered distribution with top-k, and min-p unless it comes last, applied (not
// renormalized): what survives before top-p.
std::vector<double> before_top_p(std::span<const double> logits, const SamplingParams& params,
                                 const Tempered& t) {
  std::vector<double> p = t.p;
  if (top_k_on(params, logits.size())) {
    const double kth = around_kth(logits, static_cast<std::size_t>(params.top_k)).first;
    for (std::size_t a = 0; a < p.size(); ++a) {
      if (logits[a] < kth) p[a] = 0.0;  // ties at the k-th value are kept
    }
  }
  if (params.min_p > 0.0 && params.order != FilterOrder::min_p_last)
    apply_min_p(p, params.min_p, t.largest);
  return p;
}

// The distribution top-p's cut is taken on: the survivors of the filters before it, or the full
// tempered distribution when top-p's mask is taken apart from top-k's.
std::span<const double> top_p_input(const SamplingParams& params, const Tempered& t,
                                    std::span<const double> survivors) {
  return params.order == FilterOrder::top_p_full_and_top_k ? std::span<const double>(t.p)
                                                           : survivors;
}

void require_finite_top(std::span<const double> logits) {
  if (logits.empty()) throw std::invalid_argument("an empty logit row");
  if (!std::isfinite(*std::max_element(logits.begin(), logits.end())))
    throw std::invalid_argument("the row's largest logit is not finite");
}

}  // namespace

void validate(const SamplingParams& params) {
  if (!(params.temperature >= 0.0) || !std::isfinite(params.temperature)) {
    throw std::invalid_argument("temperature must be finite and at least 0 (below 1e-5: greedy)");
  }
  if (params.top_k < 0) throw std::invalid_argument("top_k must be at least 0 (0: off)");
  if (!(params.top_p > 0.0 && params.top_p <= 1.0))
    throw std::invalid_argument("top_p must lie in (0, 1] (1: off)");
  if (!(params.min_p >= 0.0 && params.min_p < 1.0))
    throw std::invalid_argument("min_p must lie in [0, 1) (0: off)");
}

std::string_view order_name(FilterOrder order) {
  switch (order) {
    case FilterOrder::min_p_first:
      return "min_p_first";
    case FilterOrder::min_p_last:
      return "min_p_last";
    case FilterOrder::top_p_full_and_top_k:
      return "top_p_full_and_top_k";
  }
  throw std::invalid_argument("not a filter order");
}

FilterOrder parse_order(std::string_view name) {
  for (FilterOrder order :
       {FilterOrder::min_p_first, FilterOrder::min_p_last, FilterOrder::top_p_full_and_top_k}) {
    if (name == order_name(order)) return order;
  }
  throw std::invalid_argument(
      "order must be min_p_first, min_p_last or top_p_full_and_top_k, not " + std::string(name));
}

void process_logits(std::span<const double> logits, const SamplingParams& params,
                    std::span<double> out) {
  validate(params);
  if (logits.size() != out.size())
    throw std::invalid_argument("process_logits: input and output rows differ in length");
  require_finite_top(logits);
  if (params.greedy()) {
    // The first largest: ties go to the smallest token id.
    const auto argmax =
        static_cast<std::size_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    std::fill(out.begin(), out.end(), 0.0);
    out[argmax] = 1.0;
    return;
  }
  const Tempered t = tempered(logits, params.temperature);
  std::vector<double> p = before_top_p(logits, params, t);
  if (params.top_p < 1.0) {
    const TopPCut cut = top_p_cut(top_p_input(params, t, p), params.top_p);
    for (std::size_t i = cut.kept; i < cut.order.size(); ++i) p[cut.order[i]] = 0.0;
  }
  if (params.min_p > 0.0 && params.order == FilterOrder::min_p_last)
    apply_min_p(p, params.min_p, t.largest);
  const double total = compensated_total(p);
  for (std::size_t a = 0; a < p.size(); ++a) out[a] = p[a] / total;
}

double filter_margin(std::span<const double> logits, const SamplingParams& params) {
  validate(params);
  require_finite_top(logits);
  double margin = kInfinity;
  if (params.greedy() || top_k_on(params, logits.size())) {
    // The gap below the argmax (greedy) or below the k-th largest logit, in tempered units.
    const std::size_t k = params.greedy() ? 1 : static_cast<std::size_t>(params.top_k);
    if (k < logits.size()) {
      const auto [kth, next] = around_kth(logits, k);
      margin = (kth - next) / (params.greedy() ? 1.0 : params.temperature);
    }
    if (params.greedy()) return margin;
  }
  const Tempered t = tempered(logits, params.temperature);
  if (params.min_p > 0.0) {
    for (double x : t.p)
      margin = std::min(margin, std::abs(x / t.largest - params.min_p) / params.min_p);
  }
  if (params.top_p < 1.0) {
    // The last kept token's mass before it lies below top_p, the first dropped one's at or above.
    const std::vector<double> survivors = before_top_p(logits, params, t);
    for (double before : top_p_cut(top_p_input(params, t, survivors), params.top_p).before)
      margin = std::min(margin, std::abs(before - params.top_p));
  }
  return margin;
}

}  // namespace tev
