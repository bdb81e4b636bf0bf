// judging/verdicts and experiments/check_suite: every verifier of the catalog judged on a suite, with its
// progress told in order, and the check's pass rule.
#include <gtest/gtest.h>

#include <iostream>

#include "experiments/check_suite.hpp"
#include "judging/serial_law.hpp"

namespace tev::judging {
namespace {

workloads::SuiteConfig tiny_suite() {
  return {.trees = 2, .vocab = 4, .budget = 4, .seed = 5, .draft_noise = 0.5};
}

TEST(CheckEveryVerifier, RunsTheChosenVerifiersInCatalogOrderAndTellsProgress) {
  const std::vector<workloads::CheckCase> suite = workloads::make_suite(tiny_suite()).cases;
  JudgingConfig config;
  config.samples = 2000;
  std::vector<std::string> told;
  VerifierProgress progress;
  progress.started = [&](std::size_t k, std::size_t n, const VerifierInfo& info) {
    told.push_back("start " + std::to_string(k) + "/" + std::to_string(n) + " " +
                   std::string(info.name));
  };
  progress.finished = [&](const VerifierReport& r) {
    told.push_back("done " + std::string(r.info.name));
  };
  const std::vector<VerifierReport> reports = check_every_verifier(
      suite,
      [&](const VerifierInfo& info) -> std::optional<JudgingConfig> {
        if (info.id != VerifierId::tree_exit && info.id != VerifierId::predraw) return std::nullopt;
        return config;
      },
      progress);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].info.id, VerifierId::tree_exit);
  EXPECT_EQ(reports[1].info.id, VerifierId::predraw);
  EXPECT_EQ(reports[0].trees.size(), suite.size());
  EXPECT_EQ(told, (std::vector<std::string>{"start 0/2 tev", "done tev", "start 1/2 predraw",
                                            "done predraw"}));
}

TEST(CheckEveryVerifier, PassRules) {
  std::vector<VerifierReport> reports(2);
  reports[0].as_expected = true;
  reports[1].as_expected = false;
  reports[1].verdict = Verdict::inconclusive;
  EXPECT_FALSE(all_as_expected(reports));
  EXPECT_TRUE(only_inconclusive_unexpected(reports));
  reports[1].verdict = Verdict::not_exact;
  EXPECT_FALSE(only_inconclusive_unexpected(reports));
  reports[1].as_expected = true;
  EXPECT_TRUE(all_as_expected(reports));
  EXPECT_FALSE(only_inconclusive_unexpected(reports));  // nothing stands in the way
}

TEST(CheckSuite, SelftestThenEveryVerifierOfTheCatalog) {
  experiments::CheckSuiteOptions options;
  options.suite = tiny_suite();
  // The library's defaults are the command's: its samples, and alpha over the whole catalog.
  EXPECT_EQ(options.judging.samples, 200000u);
  EXPECT_EQ(options.judging.verifiers_sharing_alpha, static_cast<int>(verifier_catalog().size()));
  options.judging.samples = 2000;
  const experiments::CheckSuiteResult result = experiments::run_check_suite(options);
  EXPECT_TRUE(result.selftest_passed());
  EXPECT_EQ(result.suite.cases.size(), 2u);
  EXPECT_EQ(result.verifiers.size(), verifier_catalog().size());
  EXPECT_EQ(result.passed, all_as_expected(result.verifiers));
  EXPECT_EQ(result.exit_code(), result.passed ? 0 : 1);
}

// By hand, w = (0.5, 0.3, 0.2): a replayed u puts w on the diagonal, whose TV from w⊗w is
// 1 − Σ w² = 0.62; a mirrored one sends u in (0, 0.5] to 1 − u in [0.5, 1), node 1 for u in
// [0.2, 0.5) and node 2 below 0.2, and nodes 1 and 2 (u above 0.5) to node 0: TV 0.5.
TEST(SerialPairLaw, ReplayedExitPairsByHand) {
  const std::vector<double> w{0.5, 0.3, 0.2};
  const std::vector<double> reused = replayed_exit_pairs(w, false);
  const std::vector<double> mirrored = replayed_exit_pairs(w, true);
  const std::vector<double> diagonal{0.5, 0, 0, 0, 0.3, 0, 0, 0, 0.2};
  const std::vector<double> crossed{0, 0.3, 0.2, 0.3, 0, 0, 0.2, 0, 0};
  for (std::size_t i = 0; i < 9; ++i) {
    EXPECT_NEAR(reused[i], diagonal[i], 1e-15) << i;
    EXPECT_NEAR(mirrored[i], crossed[i], 1e-15) << i;
  }
  EXPECT_NEAR(exit_pairs_tv(reused, w), 0.62, 1e-15);
  EXPECT_NEAR(exit_pairs_tv(mirrored, w), 0.5, 1e-15);
}

// At the check's own budget (its suite, 200,000 samples, α over the whole catalog, the tests of
// independence on): a serial mutant's blocks have the canonical law, so its enumeration says
// exact, and the tests of independence catch it, the pair test at its lag having predicted power
// ≥ 99 % against its exact pair law. Seeds and levels are check's defaults.
TEST(SerialMutants, MarginallyExactAndCaughtAtTheCheckBudget) {
  experiments::CheckSuiteOptions options;
  options.judging.threads = 2;
  ASSERT_TRUE(options.judging.independence_tests);
  const std::vector<workloads::CheckCase> suite = workloads::make_suite(options.suite).cases;
  std::size_t serial = 0;
  for (const VerifierInfo& info : verifier_catalog()) {
    if (info.kind != VerifierKind::serial_mutant) continue;
    ++serial;
    const VerifierReport r = check_verifier(info.id, suite, options.judging);
    std::cout << "  " << info.name << ": largest pair TV " << r.max_pair_tv << ", predicted power "
              << r.predicted_power << ", " << verdict_text(r.verdict) << ", caught by "
              << r.caught_by << '\n';
    EXPECT_TRUE(r.decision.enumeration_says_exact) << info.name;
    EXPECT_LE(r.max_exact_tv, options.judging.exact_tolerance) << info.name;
    EXPECT_GT(r.max_pair_tv, options.judging.max_detectable_tv) << info.name;
    EXPECT_GE(r.predicted_power, 0.99) << info.name;
    EXPECT_FALSE(r.decision.sampling_says_exact) << info.name;
    EXPECT_EQ(r.verdict, Verdict::not_exact) << info.name;
    EXPECT_TRUE(r.as_expected) << info.name;
    for (const TreeEvidence& e : r.trees) EXPECT_EQ(e.iid_tests.size(), stats::kIidTests);
  }
  EXPECT_EQ(serial, 3u);
}

// Without the order of its samples no test can see a serial mutant: it is reported as not judged,
// not as caught, and nothing is asked of it.
TEST(SerialMutants, NotJudgedWhereTheOrderIsNotRecorded) {
  JudgingConfig config;
  config.samples = 5000;
  config.independence_tests = false;
  const std::vector<workloads::CheckCase> suite = workloads::make_suite(tiny_suite()).cases;
  const VerifierReport r = check_verifier(VerifierId::mutant_replayed_exit_lag1, suite, config);
  EXPECT_TRUE(r.trees.front().iid_tests.empty());
  EXPECT_TRUE(r.decision.enumeration_says_exact);
  EXPECT_EQ(r.caught_by, "not judged: the order of its samples is not recorded");
  EXPECT_TRUE(r.as_expected);
}

}  // namespace
}  // namespace tev::judging
