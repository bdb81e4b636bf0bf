#pragma once
// Planted-bug mutants of the q-based verifiers: each is one real way rejection-sampling code goes
// wrong. Two more mutants are pairings, not code: the with-replacement verifier run on drafts
// drawn without replacement, and the reverse (see drafts/sampled_verifiers.hpp).
#include <algorithm>
#include <array>
#include <vector>

#include "core/rejection_sampling.hpp"
#include "core/sampling.hpp"

namespace tev::mutants {

// A multi-draft port that subtracts q but forgets to renormalize before testing the next draft:
// later drafts are accepted too rarely (the bonus draw itself normalizes, as a sampler does).
// Subtracting q from an unnormalized residual can empty it; the engine then falls back to p.
struct ResidualNotRenormalized : WithReplacementRules {
  void reject(NodeTests& s, Token) {
    for (std::size_t a = 0; a < s.target.size(); ++a)
      s.target[a] = std::max(0.0, s.target[a] - s.proposal[a]);
  }
  std::span<const double> bonus_row(const NodeTests& s) {
    return compensated_total(s.target) > 0.0 ? std::span<const double>(s.target) : s.node->p;
  }
};

// The draft-probability tensor read one position early: a node's drafts are tested against its
// parent's q row (the root reads its own). Where the parent's q is 0 the ratio p/0 is +inf: accept.
struct ParentDraftRow : WithReplacementRules {
  void start(NodeTests& s) { s.proposal.assign(s.parent->q.begin(), s.parent->q.end()); }
  std::array<double, 2> test(const NodeTests& s, Token x) {
    if (!(s.proposal[static_cast<std::size_t>(x)] > 0.0)) return {1.0, 0.0};
    return WithReplacementRules::test(s, x);
  }
};

// Vectorized chain acceptance: one uniform u against the running product of the ratios p/q,
// accepting through depth i while u < Π_{j≤i} p_j/q_j — without clipping each ratio at 1, so an
// early over-probable token pays for a later under-probable one. Written as the conditional law
// of the next acceptance given the previous ones: threshold a_i = min(a_{i−1}, Π_{j≤i} r_j).
struct CumulativeRatioWithoutMin : WithReplacementRules {
  double product = 1.0;
  double threshold = 1.0;
  std::array<double, 2> test(const NodeTests& s, Token x) {
    product *= s.node->p[static_cast<std::size_t>(x)] / s.node->q[static_cast<std::size_t>(x)];
    const double previous = threshold;
    threshold = std::min(previous, product);
    return {threshold, previous - threshold};
  }
};

// Correct residuals, but after the last rejection the bonus is drawn from the full p instead of
// the residual, so a rejected draft can come back.
struct BonusFromTargetRow : WithReplacementRules {
  std::span<const double> bonus_row(const NodeTests& s) { return s.node->p; }
};

// One uniform per node shared by every sibling test (a batched kernel draws one random number per
// node, not per draft): draft i is accepted iff u < a_i with the same u, so given the rejections
// before it (u ≥ m = max of the earlier a_j) its acceptance is (a_i − m)⁺ / (1 − m).
struct SharedSiblingUniform : WithReplacementRules {
  double highest = 0.0;  // m: the largest acceptance probability rejected so far at this node
  void start(NodeTests&) { highest = 0.0; }
  std::array<double, 2> test(const NodeTests& s, Token x) {
    const double a = std::min(
        1.0, s.target[static_cast<std::size_t>(x)] / s.proposal[static_cast<std::size_t>(x)]);
    const std::array<double, 2> w = {std::max(0.0, a - highest), 1.0 - std::max(a, highest)};
    highest = std::max(highest, a);
    return w;
  }
};

// Drafting and verification read the same random numbers: the uniform u that drew draft x from q
// by inverse CDF (u·total ∈ (cum[x−1], cum[x]]) is reused as the acceptance uniform. Given x, u
// is uniform on that interval, so the acceptance probability is its overlap with u < a(x).
struct DraftUniformReused : WithReplacementRules {
  std::vector<double>
      cumulative;  // (V) running sums of the node's q, as the drafting draw built them
  void start(NodeTests& s) {
    cumulative.resize(s.node->q.size());
    cumulate(s.node->q.data(), static_cast<std::int32_t>(s.node->q.size()), cumulative.data());
  }
  std::array<double, 2> test(const NodeTests& s, Token x) {
    const auto i = static_cast<std::size_t>(x);
    const double total = cumulative.back();
    const double lo = i == 0 ? 0.0 : cumulative[i - 1] / total;
    const double hi = cumulative[i] / total;
    const double a = std::min(1.0, s.target[i] / s.proposal[i]);
    const double accept = std::max(0.0, std::min(hi, a) - lo);
    return {accept, (hi - lo) - accept};
  }
};

// Without-replacement rules where the residual subtracts the original q instead of the current
// q̃ (q̃ is updated for the acceptance ratio but not where the residual is formed).
struct StaleProposalInResidual : WithoutReplacementRules {
  void reject(NodeTests& s, Token x) {
    subtract_proposal(s.target, s.node->q);
    remove_from_proposal(s.proposal, x);
  }
};

// The without-replacement rules run on drafts drawn with replacement: a repeated draft has
// q̃(x) = 0 and p̃(x) = 0, the ratio 0/0 is NaN and `u < NaN` rejects it.
struct WithoutReplacementOnRepeats : WithoutReplacementRules {
  std::array<double, 2> test(const NodeTests& s, Token x) {
    if (!(s.proposal[static_cast<std::size_t>(x)] > 0.0)) return {0.0, 1.0};
    return WithoutReplacementRules::test(s, x);
  }
};

}  // namespace tev::mutants
