#include "sim/equivalence.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/exact_law.hpp"
#include "core/exit_law.hpp"
#include "sim/monte_carlo.hpp"

namespace tev {

std::string verdict_text(Verdict v) {
  switch (v) {
    case Verdict::not_exact: return "not exact";
    case Verdict::exact_not_saturated: return "exact, not saturated";
    case Verdict::exact_saturated: return "exact and saturated";
  }
  return "unknown";
}

namespace {
constexpr double kRequiredPower = 0.99;
}

TreeEvidence sampled_evidence(const DraftTree& tree, const TargetRows& rows, const BlockCounts& counts) {
  const ExitLaw law = ExitLaw::compute(tree, rows);
  const std::vector<double> canonical = canonical_block_law(tree, rows, law);
  TreeEvidence e;
  e.chi_square = pearson_chi_square(counts.completed, canonical, node_groups(tree.size(), tree.vocab));
  e.mean_length = counts.mean_length();
  e.ceiling = law.ceiling();
  e.length_p = mean_test_p_value(e.mean_length, counts.samples, law.ceiling(), law.length_variance);
  e.completions = counts.completions;
  e.shortfall_p = mean_below_p_value(e.mean_length, counts.samples, law.ceiling(), law.length_variance);
  // Above the ceiling is below it with the signs flipped.
  e.excess_p = mean_below_p_value(-e.mean_length, counts.samples, -law.ceiling(), law.length_variance);
  double second_moment = 0.0;
  for (NodeId v = 0; v < tree.size(); ++v) {
    const double length = tree.depth[v] + 1.0;
    second_moment += static_cast<double>(counts.exits[static_cast<std::size_t>(v)]) * length * length;
  }
  const auto n = static_cast<double>(counts.samples);
  e.length_sd = std::sqrt(std::max(0.0, (second_moment / n - e.mean_length * e.mean_length) * n / std::max(1.0, n - 1.0)));
  // Node u is accepted exactly when the returned exit lies in u's subtree; level order lets a
  // backward pass add each subtree into its parent.
  e.completed_counts = counts.completed;
  e.prefix = law.prefix;
  e.accepted = counts.exits;
  for (NodeId v = tree.size() - 1; v >= 1; --v) e.accepted[static_cast<std::size_t>(tree.parent[v])] += e.accepted[static_cast<std::size_t>(v)];
  for (NodeId u = 1; u < tree.size(); ++u) {
    e.acceptance_p.push_back(binomial_two_sided_p(e.accepted[static_cast<std::size_t>(u)], counts.samples, law.prefix[u]));
    e.acceptance_excess_p.push_back(binomial_upper_p(e.accepted[static_cast<std::size_t>(u)], counts.samples, law.prefix[u]));
  }
  return e;
}

VerifierReport check_verifier(VerifierId id, std::span<const SuiteCase> suite, const CheckConfig& config) {
  const auto start = std::chrono::steady_clock::now();
  VerifierReport report;
  report.info = verifier_info(id);
  report.samples_per_tree = config.samples;
  report.enumerated = config.enumerate;
  const auto trees = static_cast<std::int32_t>(suite.size());
  const double level = config.verifier_alpha();
  const double per_test_alpha = level / (2.0 * trees);  // Holm's first step
  std::vector<double> p_values;  // χ² per tree, then E[L] per tree
  double miss_probability = 1.0;

  for (std::int32_t i = 0; i < trees; ++i) {
    const SuiteCase& c = suite[static_cast<std::size_t>(i)];
    const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
    const std::vector<double> canonical = canonical_block_law(c.tree, c.rows, law);
    const std::vector<std::int32_t> groups = node_groups(c.tree.size(), c.tree.vocab);

    MonteCarloPlan plan;
    plan.seed = config.seed;
    plan.tree_id = static_cast<std::uint32_t>(i);
    plan.samples = config.samples;
    plan.threads = config.threads;
    const BlockCounts counts = config.monte_carlo(id, c.tree, c.rows, plan);

    TreeEvidence e = sampled_evidence(c.tree, c.rows, counts);

    if (config.enumerate) {
      const ExactOutcome exact = enumerate_verifier(id, c.tree, c.rows);
      e.exact_tv = total_variation(exact.completed, canonical);
      e.exact_mean_length = exact.mean_length;
      e.exact_completion = exact.completion_probability;
      e.predicted_power = e.exact_tv > config.exact_tolerance
                              ? chi_square_power(canonical, exact.completed, groups, static_cast<double>(config.samples), per_test_alpha)
                              : 0.0;
      miss_probability *= 1.0 - e.predicted_power;
      report.enumeration_says_exact = report.enumeration_says_exact && e.exact_tv <= config.exact_tolerance;
      report.enumeration_says_saturated = report.enumeration_says_saturated &&
                                          std::abs(e.exact_mean_length - e.ceiling) <= config.exact_tolerance &&
                                          e.exact_completion <= config.exact_tolerance;
    }

    p_values.push_back(e.chi_square.p_value);
    report.mean_length += e.mean_length / trees;
    report.mean_ceiling += e.ceiling / trees;
    report.max_exact_tv = std::max(report.max_exact_tv, e.exact_tv);
    report.trees.push_back(e);
  }
  for (const TreeEvidence& e : report.trees) p_values.push_back(e.length_p);

  std::vector<double> acceptance, excess;
  for (const TreeEvidence& e : report.trees) {
    acceptance.insert(acceptance.end(), e.acceptance_p.begin(), e.acceptance_p.end());
    excess.insert(excess.end(), e.acceptance_excess_p.begin(), e.acceptance_excess_p.end());
  }
  report.acceptance_tests = acceptance.size();
  if (!acceptance.empty()) {
    const auto a = holm_adjust(acceptance), x = holm_adjust(excess);
    report.min_acceptance_p_holm = *std::min_element(a.begin(), a.end());
    report.min_excess_p_holm = *std::min_element(x.begin(), x.end());
  }

  const std::vector<double> adjusted = holm_adjust(p_values);
  report.min_p_holm = *std::min_element(adjusted.begin(), adjusted.end());
  std::uint64_t completions = 0;
  for (std::int32_t i = 0; i < trees; ++i) {
    const TreeEvidence& e = report.trees[static_cast<std::size_t>(i)];
    if (e.chi_square.impossible > 0 || adjusted[static_cast<std::size_t>(i)] < level) report.sampling_says_exact = false;
    if (adjusted[static_cast<std::size_t>(trees + i)] < level) report.sampling_says_saturated = false;
    completions += e.completions;
  }
  report.sampling_says_saturated = report.sampling_says_saturated && report.sampling_says_exact && completions == 0;
  report.predicted_power = 1.0 - miss_probability;

  const bool exact = report.sampling_says_exact && report.enumeration_says_exact;
  const bool saturated = exact && report.sampling_says_saturated && report.enumeration_says_saturated;
  report.verdict = !exact ? Verdict::not_exact : saturated ? Verdict::exact_saturated : Verdict::exact_not_saturated;

  switch (report.info.kind) {
    case VerifierKind::saturated: report.as_expected = report.verdict == Verdict::exact_saturated; break;
    case VerifierKind::unsaturated: report.as_expected = report.verdict == Verdict::exact_not_saturated; break;
    case VerifierKind::mutant: {
      const bool sampled = !report.sampling_says_exact;
      const bool enumerated = !report.enumeration_says_exact;
      if (!config.enumerate) {
        report.caught_by = sampled ? "sampling" : "not caught (no enumeration, no power estimate)";
        report.as_expected = true;  // nothing exact to hold sampling to
        break;
      }
      report.caught_by = sampled && enumerated ? "sampling and enumeration"
                         : enumerated          ? "enumeration only"
                         : sampled             ? "sampling only"
                                               : "not caught";
      // Sampling must also catch it wherever the budget has the power to.
      report.as_expected = enumerated && (sampled || report.predicted_power < kRequiredPower);
      break;
    }
  }
  report.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace tev
