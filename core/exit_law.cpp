#include "core/exit_law.hpp"

#include <cmath>
#include <stdexcept>

#include "core/compensated_sum.hpp"

namespace tev {

void masked_row(const DraftTree& tree, const TargetRows& rows, NodeId v, std::span<double> out) {
  const auto row = rows.row(v);
  std::copy(row.begin(), row.end(), out.begin());
  for (NodeId c = tree.first_child[v]; c < tree.first_child[v] + tree.child_count[v]; ++c) {
    out[static_cast<std::size_t>(tree.token[c])] = 0.0;
  }
}

ExitLaw ExitLaw::compute(const DraftTree& tree, const TargetRows& rows) {
  require_rows_match(tree, rows);
  const NodeId n = tree.size();
  ExitLaw law;
  law.prefix.assign(n, 0.0);
  law.rho.assign(n, 0.0);
  law.exit.assign(n, 0.0);
  std::vector<double> residual(static_cast<std::size_t>(tree.vocab));
  law.prefix[0] = 1.0;
  CompensatedSum coverage, by_depth, second_moment;
  // Level order guarantees P(parent) is final before its children are visited.
  for (NodeId v = 0; v < n; ++v) {
    const auto row = rows.row(v);
    for (NodeId c = tree.first_child[v]; c < tree.first_child[v] + tree.child_count[v]; ++c) {
      law.prefix[c] = law.prefix[v] * row[static_cast<std::size_t>(tree.token[c])];
    }
    // ρ as the sum of the non-child mass: 1 − Σ children cancels when children cover ~everything.
    masked_row(tree, rows, v, residual);
    law.rho[v] = compensated_total(residual);
    law.exit[v] = law.prefix[v] * law.rho[v];
    if (v != 0) coverage.add(law.prefix[v]);
    by_depth.add(law.exit[v] * tree.depth[v]);
    const double length = tree.depth[v] + 1.0;
    second_moment.add(law.exit[v] * length * length);
  }
  law.coverage = coverage.value();
  law.coverage_by_depth = by_depth.value();
  law.length_variance = std::max(0.0, second_moment.value() - law.ceiling() * law.ceiling());
  return law;
}

LengthLaw length_law(const DraftTree& tree, const ExitLaw& law) {
  LengthLaw l;
  l.mass.assign(static_cast<std::size_t>(tree.max_depth()) + 1, 0.0);
  for (std::size_t d = 0; d < l.mass.size(); ++d) l.lengths.push_back(static_cast<double>(d) + 1.0);
  for (NodeId v = 0; v < tree.size(); ++v)
    l.mass[static_cast<std::size_t>(tree.depth[v])] += law.exit[static_cast<std::size_t>(v)];
  return l;
}

std::vector<double> canonical_block_law(const DraftTree& tree, const TargetRows& rows,
                                        const ExitLaw& law) {
  const auto vocab = static_cast<std::size_t>(tree.vocab);
  std::vector<double> cells(static_cast<std::size_t>(tree.size()) * vocab);
  for (NodeId v = 0; v < tree.size(); ++v) {
    std::span<double> out(cells.data() + static_cast<std::size_t>(v) * vocab, vocab);
    masked_row(tree, rows, v, out);
    for (double& x : out) x *= law.prefix[v];
  }
  return cells;
}

double total_variation(std::span<const double> p, std::span<const double> q) {
  if (p.size() != q.size()) throw std::invalid_argument("total_variation: laws on different cells");
  CompensatedSum s;
  for (std::size_t i = 0; i < p.size(); ++i) s.add(std::abs(p[i] - q[i]));
  return 0.5 * s.value();
}

}  // namespace tev
