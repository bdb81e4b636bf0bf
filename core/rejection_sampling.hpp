#pragma once
// Verifiers that read the draft probabilities q (speculative sampling, multi-draft recursive
// rejection sampling). They are exact only marginally, averaged over the drafter's randomness: on
// a fixed tree their law is not the target's. Each is a pure function of (drafts, chooser) in the
// chooser style of verifiers.hpp; the drafts are read node by node, so a drafter that samples
// lazily draws only the subtrees a verifier enters.
#include <algorithm>
#include <array>
#include <span>
#include <stdexcept>
#include <vector>

#include "core/block.hpp"
#include "core/compensated_sum.hpp"
#include "core/verifiers.hpp"

namespace tev {

// One drafted node as a q-based verifier sees it.
struct DraftedNode {
  std::span<const double> p;  // (V) target row p(· | prefix)
  std::span<const double> q;  // (V) draft row q(· | prefix)
  std::vector<Token>
      drafts;  // drafted child tokens in draw order (repeats when drawn with replacement)
};

// The running state of the tests at one node.
struct NodeTests {
  std::vector<double> target;    // (V) p̃: the law still owed, starts as p
  std::vector<double> proposal;  // (V) q̃: the law the next draft was drawn from, starts as q
  const DraftedNode* node = nullptr;
  const DraftedNode* parent = nullptr;  // the root's parent is the root itself
  std::int32_t tested = 0;              // drafts tested (and rejected) so far at this node
};

// {accept, reject} weights for accepting x with probability min(1, p̃(x)/q̃(x)), written as
// {min(p̃, q̃), q̃ − min(p̃, q̃)} so no division sits on the decision path.
inline std::array<double, 2> acceptance_weights(double target, double proposal) {
  const double accept = std::min(target, proposal);
  return {accept, proposal - accept};
}

// p̃ ← max(0, p̃ − q̃), renormalized. A rejection happens only where q̃(x) > p̃(x), so the
// difference keeps positive mass; an empty one means the caller broke that precondition.
inline void subtract_proposal(std::span<double> target, std::span<const double> proposal) {
  CompensatedSum total;
  for (std::size_t a = 0; a < target.size(); ++a) {
    target[a] = std::max(0.0, target[a] - proposal[a]);
    total.add(target[a]);
  }
  if (!(total.value() > 0.0))
    throw std::logic_error("rejection residual max(0, p - q) has no mass");
  for (double& x : target) x /= total.value();
}

// q̃ without the rejected x, renormalized. When x held all of q̃ the drafter had nothing left to
// draw, so no later test reads q̃ and it is left as is.
inline void remove_from_proposal(std::span<double> proposal, Token x) {
  const double remaining = residual_test_weights(proposal, x)[1];
  if (remaining > 0.0) reject_token(proposal, x, remaining);
}

// Rules of multi-draft recursive rejection sampling with replacement (SpecInfer): every draft
// is tested against the running residual with the same q; a rejection subtracts q.
struct WithReplacementRules {
  void start(NodeTests&) {}
  std::array<double, 2> test(const NodeTests& s, Token x) {
    return acceptance_weights(s.target[static_cast<std::size_t>(x)],
                              s.proposal[static_cast<std::size_t>(x)]);
  }
  void reject(NodeTests& s, Token) { subtract_proposal(s.target, s.proposal); }
  std::span<const double> bonus_row(const NodeTests& s) { return s.target; }
};

// Without replacement (Recursive Speculative Decoding): the next draft was drawn from q with the
// rejected tokens removed, so after subtracting q̃ the rejected token also leaves q̃.
struct WithoutReplacementRules : WithReplacementRules {
  void reject(NodeTests& s, Token x) {
    subtract_proposal(s.target, s.proposal);
    remove_from_proposal(s.proposal, x);
  }
};

// The walk shared by every q-based verifier: at each reached node, test up to max_tests drafts in
// draw order with rules.test; the first accepted draft is emitted and its node entered; when all
// are rejected (or there are none), the bonus comes from rules.bonus_row. drafts.node(prefix)
// gives the node after the accepted prefix. Returns the emitted tokens (accepted drafts ‖ bonus).
template <class Rules, class Drafts, class Chooser>
std::vector<Token> rejection_walk(Drafts& drafts, Chooser& chooser, Rules rules,
                                  std::size_t max_tests) {
  std::vector<Token> emitted;
  NodeTests s;
  const DraftedNode* parent = nullptr;
  for (;;) {
    const DraftedNode& node = drafts.node(std::span<const Token>(emitted));
    s.node = &node;
    s.parent = parent ? parent : &node;
    s.tested = 0;
    s.target.assign(node.p.begin(), node.p.end());
    s.proposal.assign(node.q.begin(), node.q.end());
    rules.start(s);
    const auto tests = static_cast<std::int32_t>(std::min(max_tests, node.drafts.size()));
    Token accepted = kNoToken;
    for (; s.tested < tests && accepted == kNoToken; ++s.tested) {
      const Token x = node.drafts[static_cast<std::size_t>(s.tested)];
      if (chooser.categorical(rules.test(s, x)) == 0) {
        accepted = x;
      } else {
        rules.reject(s, x);
      }
    }
    if (accepted == kNoToken) {
      emitted.push_back(static_cast<Token>(chooser.categorical(rules.bonus_row(s))));
      return emitted;
    }
    emitted.push_back(accepted);
    parent = &node;
  }
}

// Standard speculative sampling (Leviathan et al.; Chen et al.) on a chain: only each node's first
// draft is tested, accepted with min(1, p/q), else the bonus comes from norm(max(0, p − q)).
template <class Drafts, class Chooser>
std::vector<Token> speculative_sampling(Drafts& drafts, Chooser& chooser) {
  return rejection_walk(drafts, chooser, WithReplacementRules{}, 1);
}

// Multi-draft recursive rejection sampling with replacement (SpecInfer's multi-step speculative
// sampling): every draft of a node in turn, residual p̃ ← norm(max(0, p̃ − q)) after each rejection.
template <class Drafts, class Chooser>
std::vector<Token> rejection_sampling_with_replacement(Drafts& drafts, Chooser& chooser) {
  return rejection_walk(drafts, chooser, WithReplacementRules{}, static_cast<std::size_t>(-1));
}

// Recursive rejection sampling without replacement: as above, and q̃ loses each rejected token.
template <class Drafts, class Chooser>
std::vector<Token> rejection_sampling_without_replacement(Drafts& drafts, Chooser& chooser) {
  return rejection_walk(drafts, chooser, WithoutReplacementRules{}, static_cast<std::size_t>(-1));
}

}  // namespace tev
