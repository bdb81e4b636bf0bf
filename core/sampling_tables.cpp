#include "core/sampling_tables.hpp"

#include "core/exit_law.hpp"
#include "core/sampling.hpp"

namespace tev {

TreeTables::TreeTables(const DraftTree& tree, const TargetRows& rows, const ChildOrder& order) {
  const NodeId n = tree.size();
  const std::int32_t vocab = tree.vocab;
  const auto cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(vocab);
  const ExitLaw law = ExitLaw::compute(tree, rows);

  first_child_ = tree.first_child;
  child_count_ = tree.child_count;
  depth_ = tree.depth;
  child_of_token_.assign(cells, kNoNode);
  exit_cum_.resize(static_cast<std::size_t>(n));
  cumulate(law.exit.data(), n, exit_cum_.data());
  row_cum_.resize(cells);
  residual_cum_.resize(cells);
  final_residual_cum_.resize(cells);
  walk_offset_.assign(static_cast<std::size_t>(n) + 1, 0);
  test_child_.assign(static_cast<std::size_t>(n > 0 ? n - 1 : 0), kNoNode);
  test_cum_.assign(2 * test_child_.size(), 0.0);

  std::vector<double> weights;
  std::vector<double> residual(static_cast<std::size_t>(vocab));
  std::vector<double> g;
  for (NodeId v = 0; v < n; ++v) {
    const std::size_t base = static_cast<std::size_t>(v) * static_cast<std::size_t>(vocab);
    const auto row = rows.row(v);
    cumulate(row.data(), vocab, row_cum_.data() + base);
    for (NodeId c = tree.first_child[v]; c < tree.first_child[v] + tree.child_count[v]; ++c) {
      child_of_token_[base + static_cast<std::size_t>(tree.token[c])] = c;
    }
    // The same helpers as the chooser path, so the weights agree bit for bit.
    walk_weights(tree, rows, v, weights, residual);
    cumulate(residual.data(), vocab, residual_cum_.data() + base);
    walk_offset_[v + 1] = walk_offset_[v] + static_cast<std::int32_t>(weights.size());
    walk_cum_.resize(static_cast<std::size_t>(walk_offset_[v + 1]));
    cumulate(weights.data(), static_cast<std::int32_t>(weights.size()),
             walk_cum_.data() + walk_offset_[v]);

    g.assign(row.begin(), row.end());
    for (std::int32_t k = 0; k < tree.child_count[v]; ++k) {
      const NodeId u = order.at(tree, v, k);
      const auto slot = static_cast<std::size_t>(tree.first_child[v] - 1 + k);
      const auto test = residual_test_weights(g, tree.token[u]);
      test_child_[slot] = u;
      cumulate(test.data(), 2, test_cum_.data() + 2 * slot);
      // A rejection of zero probability never happens; its residual is never read.
      if (test[1] > 0.0) reject_token(g, tree.token[u], test[1]);
    }
    cumulate(g.data(), vocab, final_residual_cum_.data() + base);
  }

  // Guide tables for the fast draws (same answers as a binary search, fewer branches).
  view_.exit_buckets = guide_buckets(n);
  view_.row_buckets = guide_buckets(vocab);
  exit_guide_.resize(static_cast<std::size_t>(view_.exit_buckets));
  build_guide(exit_cum_.data(), n, view_.exit_buckets, exit_guide_.data());
  const auto guides = static_cast<std::size_t>(n) * static_cast<std::size_t>(view_.row_buckets);
  for (auto* table : {&row_guide_, &residual_guide_, &final_residual_guide_}) table->resize(guides);
  for (NodeId v = 0; v < n; ++v) {
    const std::size_t base = static_cast<std::size_t>(v) * static_cast<std::size_t>(vocab);
    const std::size_t g = static_cast<std::size_t>(v) * static_cast<std::size_t>(view_.row_buckets);
    build_guide(row_cum_.data() + base, vocab, view_.row_buckets, row_guide_.data() + g);
    build_guide(residual_cum_.data() + base, vocab, view_.row_buckets, residual_guide_.data() + g);
    build_guide(final_residual_cum_.data() + base, vocab, view_.row_buckets,
                final_residual_guide_.data() + g);
  }

  view_.nodes = n;
  view_.vocab = vocab;
  view_.first_child = first_child_.data();
  view_.child_count = child_count_.data();
  view_.depth = depth_.data();
  view_.child_of_token = child_of_token_.data();
  view_.exit_cum = exit_cum_.data();
  view_.row_cum = row_cum_.data();
  view_.residual_cum = residual_cum_.data();
  view_.walk_offset = walk_offset_.data();
  view_.walk_cum = walk_cum_.data();
  view_.test_child = test_child_.data();
  view_.test_cum = test_cum_.data();
  view_.final_residual_cum = final_residual_cum_.data();
  view_.exit_guide = exit_guide_.data();
  view_.row_guide = row_guide_.data();
  view_.residual_guide = residual_guide_.data();
  view_.final_residual_guide = final_residual_guide_.data();
}

}  // namespace tev
