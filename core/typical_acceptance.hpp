#pragma once
// Medusa-style typical acceptance (Cai et al., 2024): a draft is accepted when the target gives it
// more than min(ε, δ·exp(−H(p))); the bonus after the last accepted draft comes from the full p.
// Inexact by design (it trades the target's law for acceptance length): the suite must report it
// "not exact", with its exact TV.
#include <algorithm>
#include <array>
#include <cmath>

#include "core/rejection_sampling.hpp"

namespace tev {

// Medusa's defaults: posterior_threshold ε = 0.09, posterior_alpha δ = 0.3.
inline constexpr double kTypicalThreshold = 0.09;
inline constexpr double kTypicalAlpha = 0.3;

inline double typical_acceptance_threshold(std::span<const double> p) {
  CompensatedSum entropy;
  for (double x : p) {
    if (x > 0.0) entropy.add(-x * std::log(x));
  }
  return std::min(kTypicalThreshold, kTypicalAlpha * std::exp(-entropy.value()));
}

// Deterministic tests ({1, 0} or {0, 1}), no residual, bonus from p.
struct TypicalAcceptanceRules : WithReplacementRules {
  std::array<double, 2> test(const NodeTests& s, Token x) {
    const bool typical =
        s.node->p[static_cast<std::size_t>(x)] > typical_acceptance_threshold(s.node->p);
    return {typical ? 1.0 : 0.0, typical ? 0.0 : 1.0};
  }
  void reject(NodeTests&, Token) {}
  std::span<const double> bonus_row(const NodeTests& s) { return s.node->p; }
};

template <class Drafts, class Chooser>
std::vector<Token> typical_acceptance(Drafts& drafts, Chooser& chooser) {
  return rejection_walk(drafts, chooser, TypicalAcceptanceRules{}, static_cast<std::size_t>(-1));
}

}  // namespace tev
