#include "judging/verdicts.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/exact_law.hpp"
#include "core/exit_law.hpp"
#include "montecarlo/monte_carlo.hpp"

namespace tev::judging {

namespace {
constexpr double kRequiredPower = 0.99;
}

VerifierReport check_verifier(VerifierId id, std::span<const workloads::CheckCase> suite,
                              const JudgingConfig& config) {
  const auto start = std::chrono::steady_clock::now();
  VerifierReport report;
  report.info = verifier_info(id);
  report.samples_per_tree = config.samples;
  report.enumerated = config.enumerate;
  const VerdictPolicy policy = config.policy();
  const double identity_level = policy.identity_level(suite.size(), true);
  double miss_probability = 1.0;

  for (std::size_t i = 0; i < suite.size(); ++i) {
    const workloads::CheckCase& c = suite[i];
    montecarlo::MonteCarloPlan plan;
    plan.seed = config.seed;
    plan.tree_id = static_cast<std::uint32_t>(i);
    plan.samples = config.samples;
    plan.threads = config.threads;
    plan.ranks = config.ranks;
    const montecarlo::BlockCounts counts = config.monte_carlo(id, c.tree, c.rows, plan);

    TreeEvidence e =
        sampled_evidence(c.tree, c.rows, counts, policy.identity_test_level(suite.size(), i, true));
    e.detectable_tv =
        detectable_tv(c.tree, c.rows, config.samples, identity_level, policy.required_power);
    if (config.enumerate) {
      add_exact_evidence(e, c.tree, c.rows, enumerate_verifier(id, c.tree, c.rows), config.samples,
                         identity_level, config.exact_tolerance);
      miss_probability *= 1.0 - e.predicted_power;
    }
    report.mean_length += e.mean_length / static_cast<double>(suite.size());
    report.mean_ceiling += e.ceiling / static_cast<double>(suite.size());
    report.max_exact_tv = std::max(report.max_exact_tv, e.exact_tv);
    report.trees.push_back(std::move(e));
  }
  report.decision = decide(report.trees, policy);
  report.verdict = report.decision.verdict;
  report.predicted_power = 1.0 - miss_probability;

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
