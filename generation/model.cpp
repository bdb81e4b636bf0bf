#include "generation/model.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/philox_engine.hpp"

namespace tev::generation {

namespace {

// A standard normal by Box–Muller from two of the engine's uniforms (portable across standard
// libraries, unlike std::normal_distribution).
double standard_normal(PhiloxEngine& engine) {
  const double u = engine.uniform(), v = engine.uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
}

}  // namespace

std::size_t NgramPair::contexts(std::int32_t vocab, std::int32_t context) {
  if (vocab < 2 || context < 1 || context > 3)
    throw std::invalid_argument("an n-gram pair needs V ≥ 2 and a context of 1 to 3 tokens");
  std::size_t contexts = 1;
  for (std::int32_t i = 0; i < context; ++i) contexts *= static_cast<std::size_t>(vocab) + 1;
  return contexts;
}

NgramPair::NgramPair(std::int32_t vocab, std::int32_t context, std::vector<double> target,
                     std::vector<double> draft)
    : spec_{.vocab = vocab, .context = context},
      target_(std::move(target)),
      draft_(std::move(draft)) {
  const std::size_t cells = contexts(vocab, context) * static_cast<std::size_t>(vocab);
  if (target_.size() != cells || draft_.size() != cells)
    throw std::invalid_argument("an n-gram pair of V = " + std::to_string(vocab) + " and context " +
                                std::to_string(context) + " needs tables of " +
                                std::to_string(cells) + " logits, (V + 1)^context rows of V");
  for (const std::vector<double>* table : {&target_, &draft_}) {
    for (double x : *table)
      if (!std::isfinite(x)) throw std::invalid_argument("an n-gram pair's logits must be finite");
  }
}

NgramPair::NgramPair(const NgramSpec& spec) : spec_(spec) {
  const std::size_t contexts = NgramPair::contexts(spec.vocab, spec.context);
  const auto vocab = static_cast<std::size_t>(spec.vocab);
  target_.resize(contexts * vocab);
  draft_.resize(contexts * vocab);
  for (std::size_t c = 0; c < contexts; ++c) {
    PhiloxEngine target(spec.seed, uses::generation_case_logits, static_cast<std::uint32_t>(2 * c));
    PhiloxEngine noise(spec.seed, uses::generation_case_logits,
                       static_cast<std::uint32_t>(2 * c + 1));
    for (std::size_t a = 0; a < vocab; ++a) {
      target_[c * vocab + a] = spec.logit_sd * standard_normal(target);
      draft_[c * vocab + a] = target_[c * vocab + a] + spec.draft_noise * standard_normal(noise);
    }
  }
}

std::size_t NgramPair::context_index(std::span<const Token> sequence) const {
  std::size_t index = 0;
  const auto n = static_cast<std::ptrdiff_t>(sequence.size());
  for (std::ptrdiff_t i = n - spec_.context; i < n; ++i) {
    // Positions before the sequence's start read as digit 0; token t as t + 1.
    const std::size_t digit =
        i < 0 ? 0 : static_cast<std::size_t>(sequence[static_cast<std::size_t>(i)]) + 1;
    index = index * (static_cast<std::size_t>(spec_.vocab) + 1) + digit;
  }
  return index;
}

std::vector<double> NgramPair::row(const std::vector<double>& table,
                                   std::span<const Token> sequence) const {
  const auto vocab = static_cast<std::ptrdiff_t>(spec_.vocab);
  const auto first = table.begin() + static_cast<std::ptrdiff_t>(context_index(sequence)) * vocab;
  return {first, first + vocab};
}

std::vector<double> NgramPair::target_logits(std::span<const Token> sequence) const {
  return row(target_, sequence);
}

std::vector<double> NgramPair::draft_logits(std::span<const Token> sequence) const {
  return row(draft_, sequence);
}

}  // namespace tev::generation
