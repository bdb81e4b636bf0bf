// judging/verdicts and experiments/check_suite: every verifier of the catalog judged on a suite, with its
// progress told in order, and the check's pass rule.
#include <gtest/gtest.h>

#include "experiments/check_suite.hpp"

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

}  // namespace
}  // namespace tev::judging
