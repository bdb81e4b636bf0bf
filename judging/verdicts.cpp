#include "judging/verdicts.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/exact_law.hpp"
#include "core/exit_law.hpp"
#include "judging/serial_law.hpp"
#include "montecarlo/monte_carlo.hpp"

namespace tev::judging {

namespace {

constexpr double kRequiredPower = 0.99;

// Tree i's tests of independence on the recorded order of its samples, as conformance runs them.
void add_iid_tests(TreeEvidence& e, const workloads::CheckCase& c,
                   std::span<const std::int64_t> order, const VerdictPolicy& policy,
                   std::size_t trees, std::size_t i) {
  const std::vector<double> canonical =
      canonical_block_law(c.tree, c.rows, ExitLaw::compute(c.tree, c.rows));
  e.iid_tests = case_iid_tests(order, canonical, stats::node_groups(c.tree.size(), c.tree.vocab),
                               policy.iid_test_levels(trees, i, true), policy, trees, true,
                               e.chi_square.p_value);
}

}  // namespace

VerifierReport check_verifier(VerifierId id, std::span<const workloads::CheckCase> suite,
                              const JudgingConfig& config) {
  const auto start = std::chrono::steady_clock::now();
  VerifierReport report;
  report.info = verifier_info(id);
  report.samples_per_tree = config.samples;
  report.enumerated = config.enumerate;
  const VerdictPolicy policy = config.policy();
  const bool iid = config.independence_tests;
  const double identity_level = policy.identity_level(suite.size(), true, iid);
  const SerialReplay replay = serial_replay(report.info.fast_path);
  double miss_probability = 1.0, pair_miss_probability = 1.0;

  for (std::size_t i = 0; i < suite.size(); ++i) {
    const workloads::CheckCase& c = suite[i];
    montecarlo::MonteCarloPlan plan;
    plan.seed = config.seed;
    plan.tree_id = static_cast<std::uint32_t>(i);
    plan.samples = config.samples;
    plan.threads = config.threads;
    plan.ranks = config.ranks;
    plan.record_order = iid;
    const montecarlo::BlockCounts counts = config.monte_carlo(id, c.tree, c.rows, plan);

    TreeEvidence e = sampled_evidence(c.tree, c.rows, counts,
                                      policy.identity_test_level(suite.size(), i, true, iid));
    if (iid) add_iid_tests(e, c, counts.order, policy, suite.size(), i);
    e.detectable_tv =
        detectable_tv(c.tree, c.rows, config.samples, identity_level, policy.required_power);
    if (config.enumerate) {
      add_exact_evidence(e, c.tree, c.rows, enumerate_verifier(id, c.tree, c.rows), config.samples,
                         identity_level, config.exact_tolerance);
      miss_probability *= 1.0 - e.predicted_power;
    }
    if (replay.lag > 0 && iid) {
      const std::size_t t = stats::serial_test_index(replay.lag, 0);
      const SerialPairLaw pairs =
          serial_pair_law(c.tree, c.rows, replay, config.samples,
                          policy.iid_test_level(suite.size(), i, true, t).level);
      report.max_pair_tv = std::max(report.max_pair_tv, pairs.tv);
      pair_miss_probability *= 1.0 - pairs.predicted_power;
    }
    report.mean_length += e.mean_length / static_cast<double>(suite.size());
    report.mean_ceiling += e.ceiling / static_cast<double>(suite.size());
    report.max_exact_tv = std::max(report.max_exact_tv, e.exact_tv);
    report.trees.push_back(std::move(e));
  }
  report.decision = decide(report.trees, policy);
  report.verdict = report.decision.verdict;
  report.predicted_power = 1.0 - (replay.lag > 0 ? pair_miss_probability : miss_probability);

  switch (report.info.kind) {
    case VerifierKind::saturated:
      report.as_expected = report.verdict == Verdict::exact_saturated;
      break;
    case VerifierKind::unsaturated:
      report.as_expected = report.verdict == Verdict::exact_not_saturated;
      break;
    case VerifierKind::mutant: {
      const bool sampled = !report.decision.sampling_says_exact;
      const bool enumerated = !report.decision.enumeration_says_exact;
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
    case VerifierKind::serial_mutant: {
      // Its blocks have the canonical law: enumeration must say so, and only the tests of
      // independence can catch it, wherever its pair test has the power to.
      const bool sampled = !report.decision.sampling_says_exact;
      if (!iid) {
        report.caught_by = "not judged: the order of its samples is not recorded";
        report.as_expected = report.decision.enumeration_says_exact;
        break;
      }
      report.caught_by = sampled ? "sampling (tests of independence)" : "not caught";
      report.as_expected = report.decision.enumeration_says_exact &&
                           (sampled || report.predicted_power < kRequiredPower);
      break;
    }
  }
  report.elapsed_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

std::vector<VerifierReport> check_every_verifier(std::span<const workloads::CheckCase> suite,
                                                 const ConfigFor& config_for,
                                                 const VerifierProgress& progress) {
  std::vector<std::pair<VerifierInfo, JudgingConfig>> chosen;
  for (const VerifierInfo& info : verifier_catalog()) {
    if (const std::optional<JudgingConfig> config = config_for(info))
      chosen.emplace_back(info, *config);
  }
  std::vector<VerifierReport> reports;
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    progress.started(k, chosen.size(), chosen[k].first);
    reports.push_back(check_verifier(chosen[k].first.id, suite, chosen[k].second));
    progress.finished(reports.back());
  }
  return reports;
}

bool all_as_expected(std::span<const VerifierReport> reports) {
  bool passed = true;
  for (const VerifierReport& r : reports) passed = passed && r.as_expected;
  return passed;
}

bool only_inconclusive_unexpected(std::span<const VerifierReport> reports) {
  bool any = false;
  for (const VerifierReport& r : reports) {
    if (r.as_expected) continue;
    if (r.verdict != Verdict::inconclusive) return false;
    any = true;
  }
  return any;
}

}  // namespace tev::judging
