#pragma once
// Fixed-tree verifiers on the chooser path: each is a pure function of (tree, rows, chooser)
// returning the exit node V and bonus token Y; the emitted block is π(V) ‖ Y. Every draw of a
// token goes through chooser.next_token, whose promise (a non-child token is returned at once as
// the bonus) they all keep; that lets exact enumeration lump the non-child tokens.
#include <array>
#include <span>
#include <vector>

#include "core/block.hpp"
#include "core/compensated_sum.hpp"
#include "core/draft_tree.hpp"
#include "core/exit_law.hpp"
#include "core/target_rows.hpp"

namespace tev {

// Order in which sequential residual verification tests each node's children:
// sequence[first_child[v] + k] is the k-th child of v to test.
struct ChildOrder {
  std::vector<NodeId> sequence;  // (N) a permutation of each node's child block

  NodeId at(const DraftTree& tree, NodeId v, std::int32_t k) const {
    return sequence[tree.first_child[v] + k];
  }
  static ChildOrder stored(const DraftTree& tree);
  // Children with larger target mass first (as engines sort by score); ties keep stored order.
  static ChildOrder by_target_mass(const DraftTree& tree, const TargetRows& rows);
};

// One child test of sequential residual verification on the current residual g: the weights
// {g(x), g's mass elsewhere}, the latter summed directly rather than as 1 − g(x).
inline std::array<double, 2> residual_test_weights(std::span<const double> g, Token x) {
  CompensatedSum rest;
  for (std::size_t a = 0; a < g.size(); ++a) {
    if (a != static_cast<std::size_t>(x)) rest.add(g[a]);
  }
  return {g[static_cast<std::size_t>(x)], rest.value()};
}

// After rejecting x: remove its mass and renormalize by what remains (paper eq. 46).
inline void reject_token(std::span<double> g, Token x, double remaining) {
  g[static_cast<std::size_t>(x)] = 0.0;
  for (double& y : g) y /= remaining;
}

// Child-or-exit weights at v for the walk: {p_v(x_u) for each child in stored order, ρ(v)};
// residual receives v's masked row, whose direct total is ρ(v).
inline void walk_weights(const DraftTree& tree, const TargetRows& rows, NodeId v,
                         std::vector<double>& weights, std::span<double> residual) {
  const auto row = rows.row(v);
  weights.clear();
  for (NodeId c = tree.first_child[v]; c < tree.first_child[v] + tree.child_count[v]; ++c) {
    weights.push_back(row[static_cast<std::size_t>(tree.token[c])]);
  }
  masked_row(tree, rows, v, residual);
  weights.push_back(compensated_total(residual));
}

// One exit draw from the given exit weights (over nodes in level order), then one bonus draw from
// the exit's residual row. TEV passes the canonical w; the ρ mutants pass their own weights.
// With the canonical w neither fallback below is ever reached (w(v) = 0 exactly where v's
// residual is empty, and Σ w = 1); they keep a wrong exit law (a mutant's) from stopping the run.
template <class Chooser>
Block exit_then_residual_bonus(const DraftTree& tree, const TargetRows& rows,
                               std::span<const double> exit_weights, Chooser& chooser) {
  Block b;
  b.exit = compensated_total(exit_weights) > 0.0
               ? static_cast<NodeId>(chooser.categorical(exit_weights))
               : 0;
  std::vector<double> residual(static_cast<std::size_t>(tree.vocab));
  masked_row(tree, rows, b.exit, residual);
  const bool empty = !(compensated_total(residual) > 0.0);
  b.bonus = chooser.next_token(tree, b.exit,
                               empty ? rows.row(b.exit) : std::span<const double>(residual));
  return b;
}

// Tree Exit Verification (paper, Algorithm 1): the exit law w level by level, one exit draw, one
// residual bonus draw.
template <class Chooser>
Block tree_exit_verify(const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  return exit_then_residual_bonus(
      tree, rows, chooser.prepare([&] { return ExitLaw::compute(tree, rows).exit; }), chooser);
}

// Predraw-and-follow (DDTree): an independent R_v ~ p_v at each node; follow the child whose token
// is R_v, else stop with R_v as the bonus. Drawn lazily: nodes off the path would not change the
// output, so their draws are skipped.
template <class Chooser>
Block predraw_and_follow(const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  NodeId v = 0;
  for (;;) {
    const Token r = chooser.next_token(tree, v, rows.row(v));
    const NodeId next = tree.child_with_token(v, r);
    if (next == kNoNode) return {v, r};
    v = next;
  }
}

// Sequential child tests at every reached node, children in `order`: test(g, x) gives the
// {accept, reject} weights for the child with token x on the current residual g (a copy of p_v at
// the node's start); reject(g, row, x, weights) updates g after a rejection; when every child is
// rejected, the bonus comes from exit_row(g, row).
template <class Chooser, class Test, class Reject, class ExitRow>
Block sequential_tests(const DraftTree& tree, const TargetRows& rows, Chooser& chooser,
                       const ChildOrder& order, Test&& test, Reject&& reject, ExitRow&& exit_row) {
  std::vector<double> g;
  NodeId v = 0;
  for (;;) {
    const auto row = rows.row(v);
    g.assign(row.begin(), row.end());
    NodeId accepted = kNoNode;
    for (std::int32_t k = 0; k < tree.child_count[v] && accepted == kNoNode; ++k) {
      const NodeId u = order.at(tree, v, k);
      const std::array<double, 2> weights = test(std::span<const double>(g), tree.token[u]);
      if (chooser.categorical(weights) == 0) {
        accepted = u;
      } else {
        reject(std::span<double>(g), row, tree.token[u], weights);
      }
    }
    if (accepted == kNoNode)
      return {v, chooser.next_token(tree, v, exit_row(std::span<const double>(g), row))};
    v = accepted;
  }
}

// Exact sequential residual verification (EAGLE-style, target-only): test children in the given
// order, removing a rejected child's mass and renormalizing; bonus from the final residual.
template <class Chooser>
Block sequential_residual(const DraftTree& tree, const TargetRows& rows, Chooser& chooser,
                          const ChildOrder& order) {
  return sequential_tests(
      tree, rows, chooser, order, residual_test_weights,
      [](std::span<double> g, std::span<const double>, Token x, const std::array<double, 2>& w) {
        reject_token(g, x, w[1]);
      },
      [](std::span<const double> g, std::span<const double>) { return g; });
}

// One pathwise-walk decision at internal node v: the child taken, or kNoNode for an exit, in which
// case `residual` holds v's masked row (the unnormalized residual).
template <class Chooser>
NodeId walk_step(const DraftTree& tree, const TargetRows& rows, NodeId v, Chooser& chooser,
                 std::vector<double>& weights, std::span<double> residual) {
  walk_weights(tree, rows, v, weights, residual);
  const auto k = static_cast<std::int32_t>(chooser.categorical(weights));
  return k == tree.child_count[v] ? kNoNode : tree.first_child[v] + k;
}

// The walk with the row its bonus comes from at an internal exit chosen by
// exit_row(v, residual) → span; at a leaf the bonus comes from p_v.
template <class Chooser, class ExitRow>
Block walk_with_exit_row(const DraftTree& tree, const TargetRows& rows, Chooser& chooser,
                         ExitRow&& exit_row) {
  std::vector<double> weights;
  std::vector<double> residual(static_cast<std::size_t>(tree.vocab));
  NodeId v = 0;
  for (;;) {
    if (tree.is_leaf(v)) return {v, chooser.next_token(tree, v, rows.row(v))};
    const NodeId next = walk_step(tree, rows, v, chooser, weights, residual);
    if (next == kNoNode) {
      return {v, chooser.next_token(tree, v, exit_row(v, std::span<const double>(residual)))};
    }
    v = next;
  }
}

// Pathwise walk: at each reached node, one draw among {children, exit} with probabilities
// {p_v(x_u), ρ(v)}; on exit, a bonus from the residual. Touches only rows on the realized path.
template <class Chooser>
Block pathwise_walk(const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  return walk_with_exit_row(tree, rows, chooser,
                            [](NodeId, std::span<const double> residual) { return residual; });
}

// Exact but unsaturated: test only the first child of each node (accept with p_v(x_1)); on
// rejection emit a bonus from p_v without x_1 (which may be another drafted child's token).
template <class Chooser>
Block first_child_chain(const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  std::vector<double> g;
  NodeId v = 0;
  for (;;) {
    const auto row = rows.row(v);
    if (tree.is_leaf(v)) return {v, chooser.next_token(tree, v, row)};
    const NodeId u = tree.first_child[v];
    g.assign(row.begin(), row.end());
    const auto test = residual_test_weights(g, tree.token[u]);
    if (chooser.categorical(test) != 0) {
      g[static_cast<std::size_t>(tree.token[u])] = 0.0;
      return {v, chooser.next_token(tree, v, g)};
    }
    v = u;
  }
}

// Exact but unsaturated: at each reached internal node, stop with probability stop_probability
// (control randomness U, independent of the target) and emit a bonus from the full p_v;
// otherwise take one pathwise-walk step.
template <class Chooser>
Block randomized_early_stopping(const DraftTree& tree, const TargetRows& rows, Chooser& chooser,
                                double stop_probability) {
  const std::array<double, 2> stop_or_go = {stop_probability, 1.0 - stop_probability};
  std::vector<double> weights;
  std::vector<double> residual(static_cast<std::size_t>(tree.vocab));
  NodeId v = 0;
  for (;;) {
    if (tree.is_leaf(v) || chooser.categorical(stop_or_go) == 0) {
      return {v, chooser.next_token(tree, v, rows.row(v))};
    }
    const NodeId next = walk_step(tree, rows, v, chooser, weights, residual);
    if (next == kNoNode) return {v, chooser.next_token(tree, v, residual)};
    v = next;
  }
}

// Completion (DESIGN.md, Statistics): while the bonus is a drafted child's token, move to that
// child and draw the next target token from its row. The completed (exit, next token) has the
// canonical law if and only if the verifier is an exact non-anticipating path verifier.
template <class Chooser>
Block complete_block(const DraftTree& tree, const TargetRows& rows, Block block, Chooser& chooser) {
  for (NodeId c = tree.child_with_token(block.exit, block.bonus); c != kNoNode;
       c = tree.child_with_token(block.exit, block.bonus)) {
    block.exit = c;
    block.bonus = chooser.next_token(tree, c, rows.row(c));
  }
  return block;
}

}  // namespace tev
