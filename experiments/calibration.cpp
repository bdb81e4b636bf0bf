#include "experiments/calibration.hpp"

#include <algorithm>
#include <cmath>

#include "core/exit_law.hpp"
#include "montecarlo/monte_carlo.hpp"
#include "judging/verdict_policy.hpp"

namespace tev::experiments {

namespace {

constexpr std::int32_t kRareChainDepth = 10;
constexpr double kSureStep = 1.0 - 1e-9;
constexpr std::int32_t kRareVocab = 4;

void summarize(CalibrationSeries& s) {
  s.ks = stats::ks_uniform(s.p_values);
  const auto n = static_cast<double>(s.p_values.size());
  s.false_alarms_05 = static_cast<double>(std::count_if(s.p_values.begin(), s.p_values.end(),
                                                        [](double p) { return p < 0.05; })) /
                      n;
  s.false_alarms_01 = static_cast<double>(std::count_if(s.p_values.begin(), s.p_values.end(),
                                                        [](double p) { return p < 0.01; })) /
                      n;
}

}  // namespace

workloads::CheckCase rare_long_path_case(std::uint64_t samples, double rare_count) {
  const double q = rare_count / static_cast<double>(samples);
  std::vector<NodeId> parents(kRareChainDepth + 1);
  std::vector<Token> tokens(kRareChainDepth + 1, 0);
  for (NodeId v = 0; v <= kRareChainDepth; ++v) parents[static_cast<std::size_t>(v)] = v - 1;
  // (depth + 1, V) rows: token 0 is each node's drafted child; the rest share what is left.
  std::vector<double> probs;
  for (NodeId v = 0; v <= kRareChainDepth; ++v) {
    const double child = v == 0 ? q : v < kRareChainDepth ? kSureStep : 1.0 / kRareVocab;
    probs.push_back(child);
    for (std::int32_t a = 1; a < kRareVocab; ++a) probs.push_back((1.0 - child) / (kRareVocab - 1));
  }
  workloads::CheckCase c;
  c.label = "chain depth 10, rare long path (expected " + std::to_string(rare_count).substr(0, 4) +
            " times)";
  c.tree = tree_from_parents(parents, tokens, kRareVocab).tree;
  c.rows = TargetRows::from_probabilities(probs, kRareChainDepth + 1, kRareVocab);
  return c;
}

std::vector<CalibrationSeries> calibrate_tests(const workloads::CheckCase& c, std::uint32_t seeds,
                                               std::uint64_t samples, int threads,
                                               const montecarlo::Ranks& ranks) {
  const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
  const std::vector<double> canonical = canonical_block_law(c.tree, c.rows, law);
  const std::vector<std::int32_t> groups = stats::node_groups(c.tree.size(), c.tree.vocab);
  NodeId probe = 1;
  for (NodeId u = 1; u < c.tree.size(); ++u) {
    if (std::abs(law.prefix[u] - 0.5) < std::abs(law.prefix[probe] - 0.5)) probe = u;
  }
  const workloads::CheckCase rare = rare_long_path_case(samples, 0.2);
  const ExitLaw rare_law = ExitLaw::compute(rare.tree, rare.rows);
  std::vector<CalibrationSeries> series(7);
  series[0].test =
      "identity test, p-value as verdicts use it at levels 0.01 to 0.05, TEV completed law vs "
      "canonical";
  series[1].test = "E[L] below 1 + C_p (Chernoff bound), TEV";
  series[2].test = "exact binomial acceptance below P(u) of node " + std::to_string(probe) +
                   " (P = " + std::to_string(law.prefix[probe]).substr(0, 6) + "), TEV";
  series[3].test = "homogeneity chi-square, TEV vs predraw";
  series[4].test = "E[L] below 1 + C_p (Chernoff bound), TEV";
  series[5].test = "E[L] above 1 + C_p (Chernoff bound), TEV";
  series[6].test = "E[L] two-sided z-test, exact null variance (replaced), TEV";
  for (std::size_t k = 0; k < series.size(); ++k)
    series[k].case_label = k < 4 ? c.label : rare.label;
  series[6].gates = false;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    montecarlo::MonteCarloPlan plan{.seed = seed,
                                    .tree_id = 0,
                                    .samples = samples,
                                    .first_sample = 0,
                                    .threads = threads,
                                    .ranks = ranks};
    const montecarlo::BlockCounts tev =
        montecarlo::run_monte_carlo(VerifierId::tree_exit, c.tree, c.rows, plan);
    const montecarlo::BlockCounts rare_tev =
        montecarlo::run_monte_carlo(VerifierId::tree_exit, rare.tree, rare.rows, plan);
    // Another tree id gives predraw its own uniforms: the two samples must be independent.
    plan.tree_id = 1;
    const montecarlo::BlockCounts predraw =
        montecarlo::run_monte_carlo(VerifierId::predraw, c.tree, c.rows, plan);
    // The identity test's p-value as a verdict holding it to the nominal rates uses it (simulated
    // near them, a fresh null simulation per seed); the others are raw asymptotic p-values.
    const stats::TestLevel nominal{.level = kNominalRates[1],
                                   .largest_level = kNominalRates[0],
                                   .seed = judging::kNullSimulationSeed,
                                   .id = seed};
    const judging::TreeEvidence e = judging::sampled_evidence(c.tree, c.rows, tev, nominal);
    const judging::TreeEvidence r =
        judging::sampled_evidence(rare.tree, rare.rows, rare_tev, stats::TestLevel{});
    series[0].p_values.push_back(e.chi_square.p_value);
    series[1].p_values.push_back(e.shortfall_p);
    series[2].p_values.push_back(e.acceptance_p[static_cast<std::size_t>(probe) - 1]);
    series[3].p_values.push_back(
        stats::homogeneity_chi_square(tev.completed, predraw.completed).p_value);
    series[4].p_values.push_back(r.shortfall_p);
    series[5].p_values.push_back(r.excess_p);
    series[6].p_values.push_back(stats::mean_z_test_p(
        r.mean_length, rare_tev.samples, rare_law.ceiling(), rare_law.length_variance));
  }
  for (CalibrationSeries& s : series) summarize(s);
  return series;
}

}  // namespace tev::experiments
