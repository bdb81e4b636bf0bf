#include "harness/language_model.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <stdexcept>

namespace tev {

std::vector<Token> context_with_path(std::span<const Token> context, const DraftTree& tree, NodeId v) {
  std::vector<Token> out(context.begin(), context.end());
  const std::vector<Token> path = tree.path_tokens(v);
  out.insert(out.end(), path.begin(), path.end());
  return out;
}

std::vector<double> LanguageModel::tree_rows(std::span<const Token> context, const DraftTree& tree) const {
  const auto v_size = static_cast<std::size_t>(vocab());
  std::vector<double> rows(static_cast<std::size_t>(tree.size()) * v_size);
  oneapi::tbb::parallel_for(NodeId{0}, tree.size(), [&](NodeId v) {
    const std::vector<double> row = next_row(context_with_path(context, tree, v));
    if (row.size() != v_size) throw std::logic_error(name() + ": row of the wrong length");
    std::copy(row.begin(), row.end(), rows.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(v) * v_size));
  });
  return rows;
}

}  // namespace tev
