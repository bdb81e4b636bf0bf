#pragma once
// Per-sample Monte Carlo kernels over per-tree tables (device-safe: raw pointers, no Eigen).
// Each consumes the same uniforms, in the same order, as its chooser-path twin in verifiers.hpp
// and compares them against the same cumulative tables, so both give the identical block for
// equal (seed, stream, tree, sample) — a property the test suite checks.
#include <cstddef>
#include <cstdint>

#include "core/block.hpp"
#include "core/philox.hpp"
#include "core/sampling.hpp"

namespace tev {

struct TreeTablesView {
  std::int32_t nodes = 0;
  std::int32_t vocab = 0;
  const std::int32_t* first_child = nullptr;     // (N) first child of each node
  const std::int32_t* child_count = nullptr;     // (N) children of each node
  const std::int32_t* child_of_token = nullptr;  // (N, V) child reached from v by token a, or -1
  const double* exit_cum = nullptr;              // (N) cumulative w(v) in level order
  const double* row_cum = nullptr;               // (N, V) cumulative p_v
  const double* residual_cum = nullptr;          // (N, V) cumulative p_v with v's child tokens zeroed
  const std::int32_t* walk_offset = nullptr;     // (N + 1) start of node v's entries in walk_cum
  const double* walk_cum = nullptr;              // (2N − 1) per node: cumulative {p_v(x_u) per child, ρ(v)}
  const std::int32_t* test_child = nullptr;      // (N − 1) sequential residual: child tested k-th at v, slot first_child[v] − 1 + k
  const double* test_cum = nullptr;              // (N − 1, 2) per slot: cumulative {g(x), g elsewhere}
  const double* final_residual_cum = nullptr;    // (N, V) cumulative residual after every child of v is rejected

  TEV_HD std::size_t row_offset(NodeId v) const {
    return static_cast<std::size_t>(v) * static_cast<std::size_t>(vocab);
  }
};

TEV_HD inline Block tree_exit_verify_fast(const TreeTablesView& t, DrawCounter& draws) {
  const NodeId v = pick_cumulative(t.exit_cum, t.nodes, draws.next());
  return {v, pick_cumulative(t.residual_cum + t.row_offset(v), t.vocab, draws.next())};
}

TEV_HD inline Block predraw_and_follow_fast(const TreeTablesView& t, DrawCounter& draws) {
  NodeId v = 0;
  for (;;) {
    const Token r = pick_cumulative(t.row_cum + t.row_offset(v), t.vocab, draws.next());
    const NodeId next = t.child_of_token[t.row_offset(v) + static_cast<std::size_t>(r)];
    if (next < 0) return {v, r};
    v = next;
  }
}

TEV_HD inline Block pathwise_walk_fast(const TreeTablesView& t, DrawCounter& draws) {
  NodeId v = 0;
  for (;;) {
    const std::int32_t children = t.child_count[v];
    if (children == 0) return {v, pick_cumulative(t.row_cum + t.row_offset(v), t.vocab, draws.next())};
    const std::int32_t k = pick_cumulative(t.walk_cum + t.walk_offset[v], children + 1, draws.next());
    if (k == children) return {v, pick_cumulative(t.residual_cum + t.row_offset(v), t.vocab, draws.next())};
    v = t.first_child[v] + k;
  }
}

TEV_HD inline Block sequential_residual_fast(const TreeTablesView& t, DrawCounter& draws) {
  NodeId v = 0;
  for (;;) {
    NodeId accepted = kNoNode;
    for (std::int32_t k = 0; k < t.child_count[v]; ++k) {
      const std::int32_t slot = t.first_child[v] - 1 + k;
      if (pick_cumulative(t.test_cum + 2 * slot, 2, draws.next()) == 0) {
        accepted = t.test_child[slot];
        break;
      }
    }
    if (accepted == kNoNode) {
      return {v, pick_cumulative(t.final_residual_cum + t.row_offset(v), t.vocab, draws.next())};
    }
    v = accepted;
  }
}

}  // namespace tev
