#include "core/verifiers.hpp"

#include <algorithm>
#include <numeric>

namespace tev {

ChildOrder ChildOrder::stored(const DraftTree& tree) {
  ChildOrder order;
  order.sequence.resize(static_cast<std::size_t>(tree.size()));
  std::iota(order.sequence.begin(), order.sequence.end(), 0);
  return order;
}

ChildOrder ChildOrder::by_target_mass(const DraftTree& tree, const TargetRows& rows) {
  ChildOrder order = stored(tree);
  for (NodeId v = 0; v < tree.size(); ++v) {
    const auto row = rows.row(v);
    auto first = order.sequence.begin() + tree.first_child[v];
    std::stable_sort(first, first + tree.child_count[v], [&](NodeId a, NodeId b) {
      return row[static_cast<std::size_t>(tree.token[a])] >
             row[static_cast<std::size_t>(tree.token[b])];
    });
  }
  return order;
}

}  // namespace tev
