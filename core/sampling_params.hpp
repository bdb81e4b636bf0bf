#pragma once
// A request's sampling parameters and the one function that turns a logit row into the
// distribution an engine samples from. The canonical law of an engine-shaped case is that of the
// processed target rows; a verifier must process its rows the same way.
//
// Order of operations, as vLLM's sampler applies them: logits / temperature, softmax, then min-p
// (a token is kept when its probability is at least min_p times the largest), then top-k (every
// token whose logit is at least the k-th largest: ties at the k-th value are all kept), then top-p
// on the top-k survivors renormalized (tokens in descending order, ties by token id, kept while
// the mass before them is below top_p: the token that crosses top_p is kept), and a final
// renormalization. Hugging Face transformers applies min-p last, after top-p (min_p_last). Top-k
// and min-p commute with each other and with renormalization, so the two orders differ only where
// min-p removes tokens top-p would have counted; a case states which order it uses.
// top_p_full_and_top_k is SGLang's sampler (and vllm-ascend's fallback): top-p's cut is taken on
// the full tempered distribution, top-k's and min-p's masks apart, and the tokens all three keep
// are renormalized; it differs from vLLM's order where top-k or min-p removes mass that top-p
// would have counted.
// A temperature below kGreedyTemperature (vLLM's _SAMPLING_EPS; 0 included) is greedy: all mass
// on the largest logit (ties: the smallest token id), whatever the other parameters, which cannot
// move the argmax.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tev {

enum class FilterOrder { min_p_first, min_p_last, top_p_full_and_top_k };

inline constexpr double kGreedyTemperature = 1e-5;

struct SamplingParams {
  double temperature = 1.0;  // ≥ 0; below kGreedyTemperature: greedy
  std::int64_t top_k = 0;    // ≥ 0; 0 (or ≥ V): off
  double top_p = 1.0;        // (0, 1]; 1: off
  double min_p = 0.0;        // [0, 1); 0: off
  FilterOrder order = FilterOrder::min_p_first;
  bool operator==(const SamplingParams&) const = default;
  bool greedy() const { return temperature < kGreedyTemperature; }
  bool is_identity() const {
    return temperature == 1.0 && top_k == 0 && top_p == 1.0 && min_p == 0.0;
  }
};

// Throws std::invalid_argument naming the first parameter out of range.
void validate(const SamplingParams& params);

std::string_view order_name(
    FilterOrder order);  // "min_p_first", "min_p_last", "top_p_full_and_top_k"
// Throws std::invalid_argument on another name.
FilterOrder parse_order(std::string_view name);

// out = the processed distribution of one logit row (finite entries, or −∞ for a token that has no
// mass). out may alias logits. Throws std::invalid_argument when params are out of range or no
// entry is finite.
void process_logits(std::span<const double> logits, const SamplingParams& params,
                    std::span<double> out);

// The smallest distance between a filter's threshold and a kept or dropped token's statistic at
// that threshold, over the filters params switches on: how far float32 rounding would have to move
// a value to change the kept set (greedy and top-k: the logit gap below the argmax or the k-th
// value, divided by the temperature for top-k; top-p: the cumulative mass's distance to top_p at
// the cut, on the distribution the order gives top-p; min-p: the relative distance of p / max p to min_p). Infinity when no filter is on.
// Case writers keep it well above float32 rounding.
double filter_margin(std::span<const double> logits, const SamplingParams& params);

}  // namespace tev
