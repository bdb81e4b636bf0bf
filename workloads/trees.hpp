#pragma once
// Random prefix-closed draft trees and DDTree's best-first builder.
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "core/draft_tree.hpp"
#include "core/philox_engine.hpp"
#include "workloads/synthetic.hpp"

namespace tev::workloads {

enum class TreeShape { random_recursive, chain, star, full_kary, ddtree };
std::string_view shape_name(TreeShape shape);

// A tree of `budget` non-root nodes of the given shape. Shapes fix who is whose parent
// (random recursive: each new node under a uniformly chosen earlier node; full k-ary: the first
// `budget` nodes of the complete `arity`-ary tree in level order); tokens come from the drafter: a node's children take distinct tokens drawn from
// the draft row at that node without replacement. ddtree runs ddtree_best_first on the drafter's
// per-depth marginals (depth = budget).
BuiltTree build_tree(TreeShape shape, std::int32_t budget, const SyntheticLanguage& language,
                     PhiloxEngine& engine, std::int32_t arity = 2);

// A draft row's most likely tokens by decreasing probability (ties by token id) with their
// log-probabilities. Only the top `keep` are ranked: a node never holds more children than the budget.
struct RankedRow {
  std::vector<Token> tokens;
  std::vector<double> log_q;
};
RankedRow rank_row(std::span<const double> q, std::int32_t keep);

// Grows a tree best-first by cumulative draft log-probability: pop the frontier candidate of
// highest score; a popped node offers its next-ranked sibling and, below depth_limit, its own
// best child. ranked_at(path) ranks the draft row at the node reached by `path` (the root: empty)
// and is called once per node that can still get a child. Stops at `budget` non-root nodes or an
// empty frontier. Returned in level order with the heap-order permutation.
using RankedRowSource = std::function<RankedRow(std::span<const Token> path)>;
BuiltTree best_first_tree(const RankedRowSource& ranked_at, std::int32_t budget,
                          std::int32_t depth_limit, std::int32_t vocab);

// A drafter's next-token row after context ‖ path (the context is the caller's).
using DraftRowSource = std::function<std::vector<double>(std::span<const Token> path)>;

// DDTree's best-first builder from per-depth draft marginals q_1..q_H (each over the vocabulary):
// repeatedly pop the frontier candidate of highest cumulative log-probability; a popped node
// pushes its next sibling by rank and its first child by depth. Stops at `budget` non-root nodes
// or when the frontier is empty. Returned in level order with the heap-order permutation.
BuiltTree ddtree_best_first(std::span<const std::vector<double>> marginals, std::int32_t budget);

// An EAGLE-2-style dynamic tree: best-first over the drafter's per-node conditional rows, so the
// frontier is expanded by cumulative draft probability (no depth limit beyond the budget).
BuiltTree dynamic_best_first(const DraftRowSource& draft_row, std::int32_t budget,
                             std::int32_t vocab);

// Per-depth marginals of a block drafter run along its own most likely chain:
// q_1 = draft(ε), q_{d+1} = draft(argmax chain so far).
std::vector<std::vector<double>> chain_marginals(const DraftRowSource& draft_row,
                                                 std::int32_t depth);
std::vector<std::vector<double>> drafter_marginals(const SyntheticLanguage& language,
                                                   std::int32_t depth);

}  // namespace tev::workloads
