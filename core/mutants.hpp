#pragma once
// Planted-bug mutants: each reproduces one real way a tree verifier goes wrong. They exist so the
// suite can show that its checks fail on them; they are never offered as verifiers.
#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "core/verifiers.hpp"

namespace tev::mutants {

// Sequential residual that zeroes a rejected token but never renormalizes, then accepts the next
// child with the stale absolute mass g(x) — later children are accepted too rarely. Children can
// cover the whole row and still all be rejected; the buggy engine then falls back to the full row.
template <class Chooser>
Block residual_not_renormalized(const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  return sequential_tests(
      tree, rows, chooser, ChildOrder::stored(tree),
      [](std::span<const double> g, Token x) {
        const double a = g[static_cast<std::size_t>(x)];
        return std::array<double, 2>{a, 1.0 - a};
      },
      [](std::span<double> g, std::span<const double>, Token x, const std::array<double, 2>&) {
        g[static_cast<std::size_t>(x)] = 0.0;
      },
      [](std::span<const double> g, std::span<const double> row) {
        return compensated_total(g) > 0.0 ? g : row;
      });
}

// Pathwise walk that draws the bonus at an internal exit from the full row p_v instead of the
// residual p_v^res, so a rejected drafted token can be emitted again.
template <class Chooser>
Block bonus_from_full_row(const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  return walk_with_exit_row(tree, rows, chooser,
                            [&](NodeId v, std::span<const double>) { return rows.row(v); });
}

// TEV whose exit mass ρ(v) reads the parent's logits row (an off-by-one row index into the tree
// forward pass's output); the root reads its own row.
template <class Chooser>
Block exit_mass_from_parent_row(const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  const ExitLaw& law = chooser.prepare([&] { return ExitLaw::compute(tree, rows); });
  std::vector<double> exit(law.exit.size());
  for (NodeId v = 0; v < tree.size(); ++v) {
    const auto row = rows.row(v == 0 ? 0 : tree.parent[v]);
    CompensatedSum covered;
    for (NodeId c = tree.first_child[v]; c < tree.first_child[v] + tree.child_count[v]; ++c) {
      covered.add(row[static_cast<std::size_t>(tree.token[c])]);
    }
    exit[v] = law.prefix[v] * std::max(0.0, 1.0 - covered.value());
  }
  return exit_then_residual_bonus(tree, rows, exit, chooser);
}

// TEV computing ρ(v) = max(0, 1 − Σ child mass) in float32, as a fused GPU kernel might: a
// ~1e-8 bias that no sample budget can see and exact enumeration does.
template <class Chooser>
Block float32_one_minus_sum(const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  const ExitLaw& law = chooser.prepare([&] { return ExitLaw::compute(tree, rows); });
  std::vector<double> exit(law.exit.size());
  for (NodeId v = 0; v < tree.size(); ++v) {
    const auto row = rows.row(v);
    float covered = 0.0f;
    for (NodeId c = tree.first_child[v]; c < tree.first_child[v] + tree.child_count[v]; ++c) {
      covered += static_cast<float>(row[static_cast<std::size_t>(tree.token[c])]);
    }
    exit[v] = law.prefix[v] * static_cast<double>(std::max(0.0f, 1.0f - covered));
  }
  return exit_then_residual_bonus(tree, rows, exit, chooser);
}

// Sequential residual that rebuilds the residual from a fresh copy of the row at every test, so
// only the most recently rejected token is removed: the law depends on sibling order.
template <class Chooser>
Block residual_forgets_earlier_rejections(const DraftTree& tree, const TargetRows& rows,
                                          Chooser& chooser) {
  return sequential_tests(
      tree, rows, chooser, ChildOrder::stored(tree), residual_test_weights,
      [](std::span<double> g, std::span<const double> row, Token x,
         const std::array<double, 2>& w) {
        std::copy(row.begin(), row.end(), g.begin());
        reject_token(g, x, w[1]);
      },
      [](std::span<const double> g, std::span<const double>) { return g; });
}

// TEV that draws the bonus from the exit's parent row (logit offset off by one at the bonus
// position), with the exit's own children masked; the root uses its own row.
template <class Chooser>
Block bonus_from_parent_row(const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  const ExitLaw& law = chooser.prepare([&] { return ExitLaw::compute(tree, rows); });
  Block b;
  b.exit = static_cast<NodeId>(chooser.categorical(law.exit));
  const auto row = rows.row(b.exit == 0 ? 0 : tree.parent[b.exit]);
  std::vector<double> residual(row.begin(), row.end());
  for (NodeId c = tree.first_child[b.exit]; c < tree.first_child[b.exit] + tree.child_count[b.exit];
       ++c) {
    residual[static_cast<std::size_t>(tree.token[c])] = 0.0;
  }
  // The exit's children can cover the whole parent row; the buggy engine then uses the full row.
  const bool empty = !(compensated_total(residual) > 0.0);
  b.bonus = chooser.next_token(tree, b.exit, empty ? row : std::span<const double>(residual));
  return b;
}

// Greedy (argmax) verification reused under sampling: follow the child holding the row's argmax,
// else emit the argmax as the bonus. Deterministic, so it draws nothing.
template <class Chooser>
Block greedy_argmax_match(const DraftTree& tree, const TargetRows& rows, Chooser& /*chooser*/) {
  NodeId v = 0;
  for (;;) {
    const auto row = rows.row(v);
    const auto best = static_cast<Token>(std::max_element(row.begin(), row.end()) - row.begin());
    const NodeId next = tree.child_with_token(v, best);
    if (next == kNoNode) return {v, best};
    v = next;
  }
}

// TEV run on rows whose temperature was applied twice (0.5 applied to already-tempered rows,
// i.e. p² renormalized): a configuration bug between sampler and verifier.
template <class Chooser>
Block temperature_applied_twice(const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  const TargetRows& sharpened = chooser.prepare([&] {
    std::vector<double> squared(rows.data().begin(), rows.data().end());
    for (std::int32_t r = 0; r < rows.rows(); ++r) {
      std::span<double> row(
          squared.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(rows.vocab()),
          static_cast<std::size_t>(rows.vocab()));
      for (double& x : row) x *= x;
      const double total = compensated_total(row);
      for (double& x : row) x /= total;
    }
    return TargetRows::from_probabilities(squared, rows.rows(), rows.vocab());
  });
  return tree_exit_verify(tree, sharpened, chooser);
}

// TEV whose bonus is drawn from the exit's residual after `filter` rewrote it: the tail bugs of
// large vocabularies live in this post-processing. The buggy engine falls back to the full row when
// its filter leaves nothing.
template <class Chooser, class Filter>
Block exit_then_filtered_bonus(const DraftTree& tree, const TargetRows& rows, Chooser& chooser,
                               Filter filter) {
  const ExitLaw& law = chooser.prepare([&] { return ExitLaw::compute(tree, rows); });
  Block b;
  b.exit = static_cast<NodeId>(chooser.categorical(law.exit));
  std::vector<double> residual(static_cast<std::size_t>(tree.vocab));
  masked_row(tree, rows, b.exit, residual);
  filter(std::span<double>(residual));
  b.bonus = chooser.next_token(
      tree, b.exit,
      compensated_total(residual) > 0.0 ? std::span<const double>(residual) : rows.row(b.exit));
  return b;
}

// How many of a residual's tokens the tail mutants keep: the head an engine's fast path lists.
inline std::size_t listed_head(std::size_t vocab) { return std::max<std::size_t>(2, vocab / 8); }

// The residual's tokens outside its head (ties broken by id), in increasing id.
inline std::vector<std::size_t> tail_tokens(std::span<const double> residual) {
  std::vector<std::size_t> order(residual.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const std::size_t head = std::min(listed_head(residual.size()), order.size());
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(head), order.end(),
                   [&](std::size_t a, std::size_t b) {
                     return residual[a] != residual[b] ? residual[a] > residual[b] : a < b;
                   });
  // In increasing id by one pass over the ids, not a sort: this runs once per sample, O(V).
  std::vector<char> in_head(residual.size(), 0);
  for (std::size_t i = 0; i < head; ++i) in_head[order[i]] = 1;
  std::vector<std::size_t> tail;
  tail.reserve(residual.size() - head);
  for (std::size_t t = 0; t < residual.size(); ++t) {
    if (!in_head[t]) tail.push_back(t);
  }
  return tail;
}

// Top-k applied to the residual before the bonus draw (k = V/8): the tail's mass is dropped and
// the head renormalized, as when an engine reuses its top-k sampling filter on p_v^res.
template <class Chooser>
Block top_k_residual_bonus(const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  return exit_then_filtered_bonus(tree, rows, chooser, [](std::span<double> residual) {
    for (std::size_t t : tail_tokens(residual)) residual[t] = 0.0;
  });
}

// The residual's tail (outside its V/8 most probable tokens) collapsed onto its first token, as a
// sparse fast path that lists the head and fills "the rest" with its first unlisted id.
template <class Chooser>
Block tail_onto_first_token(const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  return exit_then_filtered_bonus(tree, rows, chooser, [](std::span<double> residual) {
    const std::vector<std::size_t> tail = tail_tokens(residual);
    if (tail.empty()) return;
    double mass = 0.0;
    for (std::size_t t : tail) mass += std::exchange(residual[t], 0.0);
    residual[tail.front()] = mass;
  });
}

// The bonus drawn from ids below 3V/4 only, renormalized: an index range sized for a smaller
// vocabulary (the drafter's, or a 16-bit type).
template <class Chooser>
Block truncated_id_bonus(const DraftTree& tree, const TargetRows& rows, Chooser& chooser) {
  return exit_then_filtered_bonus(tree, rows, chooser, [](std::span<double> residual) {
    for (std::size_t t = residual.size() - residual.size() / 4; t < residual.size(); ++t)
      residual[t] = 0.0;
  });
}

}  // namespace tev::mutants
