#include "sim/calibration.hpp"

#include <algorithm>
#include <cmath>

#include "core/exit_law.hpp"
#include "sim/monte_carlo.hpp"

namespace tev {

std::vector<CalibrationSeries> calibrate_tests(const SuiteCase& c, std::uint32_t seeds, std::uint64_t samples, int threads) {
  const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
  const std::vector<double> canonical = canonical_block_law(c.tree, c.rows, law);
  const std::vector<std::int32_t> groups = node_groups(c.tree.size(), c.tree.vocab);
  NodeId probe = 1;
  for (NodeId u = 1; u < c.tree.size(); ++u) {
    if (std::abs(law.prefix[u] - 0.5) < std::abs(law.prefix[probe] - 0.5)) probe = u;
  }
  std::vector<CalibrationSeries> series(4);
  series[0].test = "chi-square, TEV completed law vs canonical";
  series[1].test = "E[L] z-test (exact null variance), TEV";
  series[2].test = "exact binomial acceptance of node " + std::to_string(probe) + " (P = " + std::to_string(law.prefix[probe]).substr(0, 6) + "), TEV";
  series[3].test = "homogeneity chi-square, TEV vs predraw";
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    MonteCarloPlan plan{.seed = seed, .tree_id = 0, .samples = samples, .first_sample = 0, .threads = threads};
    const BlockCounts tev = run_monte_carlo(VerifierId::tree_exit, c.tree, c.rows, plan);
    // Another tree id gives predraw its own uniforms: the two samples must be independent.
    plan.tree_id = 1;
    const BlockCounts predraw = run_monte_carlo(VerifierId::predraw, c.tree, c.rows, plan);
    series[0].p_values.push_back(pearson_chi_square(tev.completed, canonical, groups).p_value);
    series[1].p_values.push_back(mean_test_p_value(tev.mean_length(), tev.samples, law.ceiling(), law.length_variance));
    std::vector<std::uint64_t> accepted = tev.exits;
    for (NodeId v = c.tree.size() - 1; v >= 1; --v) accepted[static_cast<std::size_t>(c.tree.parent[v])] += accepted[static_cast<std::size_t>(v)];
    series[2].p_values.push_back(binomial_two_sided_p(accepted[static_cast<std::size_t>(probe)], tev.samples, law.prefix[probe]));
    series[3].p_values.push_back(homogeneity_chi_square(tev.completed, predraw.completed).p_value);
  }
  for (CalibrationSeries& s : series) {
    s.ks = ks_uniform(s.p_values);
    const auto n = static_cast<double>(s.p_values.size());
    s.false_alarms_05 = static_cast<double>(std::count_if(s.p_values.begin(), s.p_values.end(), [](double p) { return p < 0.05; })) / n;
    s.false_alarms_01 = static_cast<double>(std::count_if(s.p_values.begin(), s.p_values.end(), [](double p) { return p < 0.01; })) / n;
  }
  return series;
}

}  // namespace tev
