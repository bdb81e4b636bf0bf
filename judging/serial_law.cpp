#include "judging/serial_law.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/exit_law.hpp"
#include "judging/verdict_policy.hpp"
#include "stats/iid_assumption.hpp"

namespace tev::judging {

std::vector<double> replayed_exit_pairs(std::span<const double> exit, bool mirrored) {
  const std::size_t n = exit.size();
  double total = 0.0;
  for (double w : exit) total += w;
  if (!(total > 0.0)) throw std::invalid_argument("replayed_exit_pairs: an exit law of no mass");
  std::vector<double> edge(n + 1, 0.0);  // (N + 1) node e exits for u in (edge[e], edge[e + 1]]
  for (std::size_t e = 0; e < n; ++e) edge[e + 1] = edge[e] + exit[e] / total;
  std::vector<double> joint(n * n, 0.0);  // (N, N)
  for (std::size_t e1 = 0; e1 < n; ++e1) {
    if (!mirrored) {
      joint[e1 * n + e1] = edge[e1 + 1] - edge[e1];
      continue;
    }
    // The replaying sample draws 1 − u: it exits at e2 for u in [1 − edge[e2 + 1], 1 − edge[e2]).
    for (std::size_t e2 = 0; e2 < n; ++e2) {
      const double lo = std::max(edge[e1], 1.0 - edge[e2 + 1]);
      const double hi = std::min(edge[e1 + 1], 1.0 - edge[e2]);
      joint[e1 * n + e2] = std::max(0.0, hi - lo);
    }
  }
  return joint;
}

double exit_pairs_tv(std::span<const double> joint, std::span<const double> exit) {
  const std::size_t n = exit.size();
  double total = 0.0;
  for (double w : exit) total += w;
  double sum = 0.0;
  for (std::size_t e1 = 0; e1 < n; ++e1) {
    for (std::size_t e2 = 0; e2 < n; ++e2)
      sum += std::abs(joint[e1 * n + e2] - exit[e1] / total * exit[e2] / total);
  }
  return 0.5 * sum;
}

SerialPairLaw serial_pair_law(const DraftTree& tree, const TargetRows& rows, SerialReplay replay,
                              std::uint64_t samples, double level) {
  if (replay.lag == 0) throw std::invalid_argument("serial_pair_law: a replay at lag 0");
  const ExitLaw law = ExitLaw::compute(tree, rows);
  const std::vector<double> canonical = canonical_block_law(tree, rows, law);
  const std::vector<std::int32_t> groups = stats::node_groups(tree.size(), tree.vocab);
  const std::vector<double> joint = replayed_exit_pairs(law.exit, replay.mirrored);
  SerialPairLaw out;
  out.tv = exit_pairs_tv(joint, law.exit);
  // The test sees the pairs' bins: P(bin | exit e) = Σ p(e, x)/w(e) over e's cells in the bin.
  const stats::Binning bins = stats::iid_pair_bins(canonical, groups, samples);
  const std::size_t n = law.exit.size(), b = bins.bin_probability.size();
  const auto vocab = static_cast<std::size_t>(tree.vocab);
  std::vector<double> bin_given_exit(n * b, 0.0);  // (N, bins)
  for (std::size_t e = 0; e < n; ++e) {
    for (std::size_t x = 0; x < vocab; ++x) {
      const std::int32_t bin = bins.bin_of_cell[e * vocab + x];
      if (bin >= 0 && law.exit[e] > 0.0)
        bin_given_exit[e * b + static_cast<std::size_t>(bin)] +=
            canonical[e * vocab + x] / law.exit[e];
    }
  }
  const stats::PairLaw product = stats::pair_law(bins, bins);
  std::vector<double> binned(b * b, 0.0);  // (bins, bins) the replaying pairs' law of bins
  for (std::size_t e1 = 0; e1 < n; ++e1) {
    for (std::size_t e2 = 0; e2 < n; ++e2) {
      const double j = joint[e1 * n + e2];
      if (j == 0.0) continue;
      for (std::size_t a = 0; a < b; ++a) {
        for (std::size_t c = 0; c < b; ++c)
          binned[a * b + c] += j * bin_given_exit[e1 * b + a] * bin_given_exit[e2 * b + c];
      }
    }
  }
  out.predicted_power = exact_law_power(product.product, binned, 0.0, product.groups,
                                        stats::serial_pairs(samples, replay.lag, 0), level);
  return out;
}

}  // namespace tev::judging
