#include "judging/verdict_policy.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <stdexcept>

#include "core/exit_law.hpp"
#include "core/verifier_catalog.hpp"

namespace tev::judging {

std::string verdict_text(Verdict v) {
  switch (v) {
    case Verdict::not_exact:
      return "not exact";
    case Verdict::inconclusive:
      return "inconclusive";
    case Verdict::exact_not_saturated:
      return "exact, not saturated";
    case Verdict::exact_saturation_inconclusive:
      return "exact, saturation inconclusive";
    case Verdict::exact_saturated:
      return "exact and saturated";
  }
  return "unknown";
}

int verdict_exit_code(Verdict v) {
  switch (v) {
    case Verdict::exact_saturated:
      return 0;
    case Verdict::not_exact:
      return 1;
    case Verdict::exact_not_saturated:
      return 3;
    case Verdict::inconclusive:
      return 4;
    case Verdict::exact_saturation_inconclusive:
      return 5;
  }
  return 1;
}

TreeEvidence sampled_evidence(const DraftTree& tree, const TargetRows& rows,
                              const montecarlo::BlockCounts& counts,
                              const stats::TestLevel& level) {
  const ExitLaw law = ExitLaw::compute(tree, rows);
  TreeEvidence e;
  e.samples = counts.samples;
  e.ceiling = law.ceiling();
  e.prefix = law.prefix;
  if (counts.samples == 0) return e;
  const std::vector<double> canonical = canonical_block_law(tree, rows, law);
  e.chi_square =
      stats::identity_test(counts.completed, canonical, stats::node_groups(tree.size(), tree.vocab),
                           level, kReportedDeviations, &e.largest_deviations);
  e.mean_length = counts.mean_length();
  const LengthLaw length = length_law(tree, law);
  e.lengths = length.lengths;
  e.length_mass = length.mass;
  e.shortfall_p =
      stats::mean_below_chernoff_p(e.mean_length, counts.samples, length.lengths, length.mass);
  e.excess_p =
      stats::mean_above_chernoff_p(e.mean_length, counts.samples, length.lengths, length.mass);
  e.completions = counts.completions;
  double second_moment = 0.0;
  for (NodeId v = 0; v < tree.size(); ++v) {
    const double length = tree.depth[v] + 1.0;
    second_moment +=
        static_cast<double>(counts.exits[static_cast<std::size_t>(v)]) * length * length;
  }
  const auto n = static_cast<double>(counts.samples);
  e.length_sd = std::sqrt(std::max(
      0.0, (second_moment / n - e.mean_length * e.mean_length) * n / std::max(1.0, n - 1.0)));
  // Node u is accepted exactly when the returned exit lies in u's subtree; level order lets a
  // backward pass add each subtree into its parent.
  e.completed_counts = counts.completed;
  e.accepted = counts.exits;
  for (NodeId v = tree.size() - 1; v >= 1; --v)
    e.accepted[static_cast<std::size_t>(tree.parent[v])] += e.accepted[static_cast<std::size_t>(v)];
  for (NodeId u = 1; u < tree.size(); ++u) {
    e.acceptance_p.push_back(stats::binomial_lower_p(e.accepted[static_cast<std::size_t>(u)],
                                                     counts.samples, law.prefix[u]));
    e.acceptance_excess_p.push_back(stats::binomial_upper_p(e.accepted[static_cast<std::size_t>(u)],
                                                            counts.samples, law.prefix[u]));
  }
  return e;
}

void add_exact_evidence(TreeEvidence& e, const DraftTree& tree, const TargetRows& rows,
                        const ExactOutcome& exact, std::uint64_t samples, double level,
                        double tolerance) {
  const std::vector<double> canonical =
      canonical_block_law(tree, rows, ExitLaw::compute(tree, rows));
  e.enumerated = true;
  e.exact_tv = exact_tv(exact, canonical);
  e.exact_mean_length = exact.mean_length;
  e.exact_completion = exact.completion_probability;
  e.predicted_power =
      e.exact_tv > tolerance
          ? exact_law_power(canonical, exact, stats::node_groups(tree.size(), tree.vocab), samples,
                            level)
          : 0.0;
}

double exact_law_power(std::span<const double> canonical, const ExactOutcome& exact,
                       std::span<const std::int32_t> groups, std::uint64_t samples, double level) {
  return exact_law_power(canonical, exact.completed, exact.off_cells, groups, samples, level);
}

double exact_law_power(std::span<const double> canonical, std::span<const double> on_cells_law,
                       double off_cells, std::span<const std::int32_t> groups,
                       std::uint64_t samples, double level) {
  const double on_cells = 1.0 - off_cells;
  if (!(on_cells > 0.0)) return 1.0;
  std::vector<double> renormalized(on_cells_law.begin(), on_cells_law.end());
  for (double& x : renormalized) x /= on_cells;
  const double none_off = std::pow(on_cells, static_cast<double>(samples));
  return 1.0 - none_off +
         none_off * stats::identity_test_power(canonical, renormalized, groups,
                                               static_cast<double>(samples), level);
}

std::optional<double> detectable_tv(const DraftTree& tree, const TargetRows& rows,
                                    std::uint64_t samples, double level, double power) {
  if (samples == 0) return std::nullopt;
  const std::vector<double> canonical =
      canonical_block_law(tree, rows, ExitLaw::compute(tree, rows));
  return detectable_tv(canonical, stats::node_groups(tree.size(), tree.vocab), samples, level,
                       power);
}

std::optional<double> detectable_tv(std::span<const double> law,
                                    std::span<const std::int32_t> groups, std::uint64_t samples,
                                    double level, double power) {
  if (samples == 0) return std::nullopt;
  return stats::worst_case_detectable_tv(law, groups, static_cast<double>(samples), level, power);
}

std::optional<double> detectable_shortfall(std::span<const double> lengths,
                                           std::span<const double> mass, std::uint64_t samples,
                                           double level, double power) {
  if (samples == 0 || lengths.empty()) return std::nullopt;
  double mean = 0.0, second = 0.0;
  for (std::size_t d = 0; d < lengths.size(); ++d) {
    mean += mass[d] * lengths[d];
    second += mass[d] * lengths[d] * lengths[d];
  }
  const double sd = std::sqrt(std::max(0.0, second - mean * mean) / static_cast<double>(samples));
  const double lowest = *std::min_element(lengths.begin(), lengths.end());
  if (!(mean - lowest > 1e-12)) return 0.0;  // L takes one value: no verifier can fall short of it
  // The largest sample mean the bound rejects at `level` (the bound falls as the mean falls).
  if (stats::mean_below_chernoff_p(lowest, samples, lengths, mass) > level) return std::nullopt;
  double lo = lowest, hi = mean;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (stats::mean_below_chernoff_p(mid, samples, lengths, mass) <= level ? lo : hi) = mid;
  }
  const double z =
      boost::math::quantile(boost::math::complement(boost::math::normal(), 1.0 - power));
  // A verifier whose E[L] sits this far below the ceiling has its sample mean below `lo` with
  // probability `power`.
  return mean - lo - z * sd;
}

int alpha_shares(bool mutants, int other_families) {
  int verifiers = 0;
  for (const VerifierInfo& info : verifier_catalog()) {
    if (mutants || !is_mutant(info.kind)) ++verifiers;
  }
  return verifiers + other_families;
}

void validate(const VerdictPolicy& policy) {
  const auto inside = [](double x) { return x > 0.0 && x < 1.0; };
  if (!inside(policy.alpha))
    throw std::invalid_argument("the family-wise alpha must lie in (0, 1)");
  if (!inside(policy.required_power))
    throw std::invalid_argument("the required power must lie in (0, 1)");
  if (!inside(policy.max_detectable_tv))
    throw std::invalid_argument("the detectable TV must lie in (0, 1)");
  if (!(policy.max_detectable_shortfall > 0.0))
    throw std::invalid_argument("the detectable E[L] shortfall must be positive");
}

std::vector<double> support_noise(std::span<const double> canonical) {
  const auto support = static_cast<double>(
      std::count_if(canonical.begin(), canonical.end(), [](double p) { return p > 0.0; }));
  std::vector<double> noise(canonical.size(), 0.0);
  for (std::size_t i = 0; i < canonical.size(); ++i)
    noise[i] = canonical[i] > 0.0 ? 1.0 / support : 0.0;
  return noise;
}

namespace {

// One p-value per case for the exactness family: a weighted Bonferroni of its identity test and
// tests of independence (shares from VerdictPolicy) and its Theorem 1 tests (the rest, split
// evenly); a model case has no Theorem 1 tests.
double case_exactness_p(const TreeEvidence& e) {
  const bool with_tree = !(e.acceptance_excess_p.empty() && e.lengths.empty());
  const bool iid = !e.iid_tests.empty();
  double p = e.chi_square.p_value / VerdictPolicy::identity_share(with_tree, iid);
  for (const stats::IidTest& t : e.iid_tests)
    p = std::min(p, t.result.p_value / VerdictPolicy::iid_test_share(with_tree));
  if (with_tree) {
    std::vector<double> forbidden = e.acceptance_excess_p;
    forbidden.push_back(e.excess_p);
    const double smallest = *std::min_element(forbidden.begin(), forbidden.end());
    p = std::min(p, smallest * static_cast<double>(forbidden.size()) / (1.0 - kIdentityShare));
  }
  return std::min(1.0, p);
}

// Every test of independence detects the policy's TV (a stream too short for them has none).
bool iid_powered(const TreeEvidence& e, const VerdictPolicy& policy) {
  return std::all_of(e.iid_tests.begin(), e.iid_tests.end(), [&](const stats::IidTest& t) {
    return t.detectable_tv && *t.detectable_tv <= policy.max_detectable_tv;
  });
}

}  // namespace

SubjectVerdict decide(std::span<const TreeEvidence> cases, const VerdictPolicy& policy) {
  SubjectVerdict out;
  // The two families' p-values, case after case, and each case's range [begin, end) in them.
  std::vector<double> exactness, saturation;
  std::vector<std::pair<std::size_t, std::size_t>> exactness_range, saturation_range;
  for (const TreeEvidence& e : cases) {
    const std::size_t e0 = exactness.size(), s0 = saturation.size();
    if (e.samples > 0) {
      exactness.push_back(case_exactness_p(e));
      if (!e.lengths.empty()) saturation.push_back(e.shortfall_p);
      saturation.insert(saturation.end(), e.acceptance_p.begin(), e.acceptance_p.end());
    }
    exactness_range.emplace_back(e0, exactness.size());
    saturation_range.emplace_back(s0, saturation.size());
  }
  out.exactness_tests = exactness.size();
  out.saturation_tests = saturation.size();
  const std::vector<double> exact_adjusted = stats::holm_adjust(exactness),
                            saturation_adjusted = stats::holm_adjust(saturation);
  auto min_in = [](const std::vector<double>& v, std::pair<std::size_t, std::size_t> range) {
    double m = 1.0;
    for (std::size_t i = range.first; i < range.second; ++i) m = std::min(m, v[i]);
    return m;
  };
  const double saturation_level =
      policy.saturation_alpha() / static_cast<double>(std::max<std::size_t>(1, saturation.size()));
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const TreeEvidence& e = cases[k];
    CaseVerdict c;
    c.exactness_p_holm = min_in(exact_adjusted, exactness_range[k]);
    c.saturation_p_holm = min_in(saturation_adjusted, saturation_range[k]);
    c.sampled_not_exact = e.invalid > 0 || e.chi_square.impossible > 0 ||
                          c.exactness_p_holm < policy.exactness_alpha();
    c.sampled_not_saturated = e.completions > 0 || c.saturation_p_holm < policy.saturation_alpha();
    if (e.enumerated) {
      c.enumerated_not_exact = e.exact_tv > policy.exact_tolerance;
      c.enumerated_not_saturated =
          std::abs(e.exact_mean_length - e.ceiling) > policy.exact_tolerance ||
          e.exact_completion > policy.exact_tolerance;
    }
    // Enumeration sees one block's law, never how blocks depend on each other.
    c.powered =
        (e.enumerated || (e.detectable_tv && *e.detectable_tv <= policy.max_detectable_tv)) &&
        iid_powered(e, policy);
    if (!e.lengths.empty())
      c.detectable_shortfall = detectable_shortfall(e.lengths, e.length_mass, e.samples,
                                                    saturation_level, policy.required_power);
    c.saturation_powered =
        e.enumerated || e.lengths.empty() ||
        (c.detectable_shortfall && *c.detectable_shortfall <= policy.max_detectable_shortfall);
    const bool not_exact = c.sampled_not_exact || c.enumerated_not_exact;
    const bool not_saturated = c.sampled_not_saturated || c.enumerated_not_saturated;
    c.verdict = not_exact               ? Verdict::not_exact
                : !c.powered            ? Verdict::inconclusive
                : not_saturated         ? Verdict::exact_not_saturated
                : !c.saturation_powered ? Verdict::exact_saturation_inconclusive
                                        : Verdict::exact_saturated;
    out.verdict = std::min(out.verdict, c.verdict);
    out.min_exactness_p_holm = std::min(out.min_exactness_p_holm, c.exactness_p_holm);
    out.min_saturation_p_holm = std::min(out.min_saturation_p_holm, c.saturation_p_holm);
    out.sampling_says_exact = out.sampling_says_exact && !c.sampled_not_exact;
    out.enumeration_says_exact = out.enumeration_says_exact && !c.enumerated_not_exact;
    out.powered = out.powered && c.powered;
    out.cases.push_back(c);
  }
  return out;
}

std::optional<double> stated_tv(const TreeEvidence& e) {
  std::optional<double> tv = e.detectable_tv;
  for (const stats::IidTest& t : e.iid_tests) tv = stats::larger_tv(tv, t.detectable_tv);
  return tv;
}

double smallest_iid_p(const TreeEvidence& e) {
  double p = 1.0;
  for (const stats::IidTest& t : e.iid_tests) p = std::min(p, t.result.p_value);
  return p;
}

std::vector<stats::IidTest> case_iid_tests(std::span<const std::int64_t> stream,
                                           std::span<const double> law,
                                           std::span<const std::int32_t> groups,
                                           std::vector<stats::TestLevel> levels,
                                           const VerdictPolicy& policy, std::size_t family,
                                           bool with_tree, double identity_p) {
  for (stats::TestLevel& l : levels) l.simulate = false;
  std::vector<stats::IidTest> tests =
      stats::iid_tests(stream, law, groups, levels, policy.required_power);
  double case_p = identity_p / VerdictPolicy::identity_share(with_tree, true);
  for (const stats::IidTest& t : tests)
    case_p = std::min(case_p, t.result.p_value / VerdictPolicy::iid_test_share(with_tree));
  // Holm rejects a case whose p-value times the family's size is below α/2, whatever the others.
  if (case_p * static_cast<double>(std::max<std::size_t>(family, 1)) < policy.exactness_alpha())
    return tests;
  for (stats::TestLevel& l : levels) l.simulate = true;
  return stats::iid_tests(stream, law, groups, levels, policy.required_power);
}

}  // namespace tev::judging
