#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "judging/selftest.hpp"
#include "judging/verdict_policy.hpp"

namespace tev::judging {
namespace {

// A case with clean sampled evidence: n samples, every p-value 1, powered.
TreeEvidence clean_case(std::uint64_t n = 100000) {
  TreeEvidence e;
  e.samples = n;
  e.chi_square.p_value = 1.0;
  e.acceptance_p = {1.0, 1.0};
  e.acceptance_excess_p = {1.0, 1.0};
  e.lengths = {1.0, 2.0};
  e.length_mass = {0.5, 0.5};
  e.ceiling = 1.5;
  e.detectable_tv = 0.01;
  return e;
}

TEST(VerdictPolicy, CleanEvidenceIsExactAndSaturated) {
  const std::vector<TreeEvidence> cases = {clean_case(), clean_case()};
  const SubjectVerdict v = decide(cases, VerdictPolicy{});
  EXPECT_EQ(v.verdict, Verdict::exact_saturated);
  EXPECT_EQ(v.exactness_tests, 2u);
  EXPECT_EQ(v.saturation_tests, 6u);  // E[L] + two nodes, per case
}

// Exactness family at α/2 = 5e-4 with Holm over 2 cases, the identity test holding 0.9 of its
// case's share: 2.2e-4 / 0.9 · 2 = 4.9e-4 rejects, 2.3e-4 / 0.9 · 2 = 5.1e-4 does not.
TEST(VerdictPolicy, ExactnessUsesHolmAtHalfAlpha) {
  std::vector<TreeEvidence> cases = {clean_case(), clean_case()};
  cases[1].chi_square.p_value = 2.3e-4;
  EXPECT_EQ(decide(cases, VerdictPolicy{}).verdict, Verdict::exact_saturated);
  cases[1].chi_square.p_value = 2.2e-4;
  const SubjectVerdict v = decide(cases, VerdictPolicy{});
  EXPECT_EQ(v.verdict, Verdict::not_exact);
  EXPECT_EQ(v.cases[0].verdict, Verdict::exact_saturated);
  EXPECT_EQ(v.cases[1].verdict, Verdict::not_exact);
}

TEST(VerdictPolicy, OneInTreeBonusOrAShortfallProvesNonSaturation) {
  std::vector<TreeEvidence> cases = {clean_case()};
  cases[0].completions = 1;
  EXPECT_EQ(decide(cases, VerdictPolicy{}).verdict, Verdict::exact_not_saturated);
  cases[0].completions = 0;
  cases[0].shortfall_p = 1e-5;  // Holm over 3 saturation tests: 3e-5 < 5e-4
  EXPECT_EQ(decide(cases, VerdictPolicy{}).verdict, Verdict::exact_not_saturated);
}

// What Theorem 1 forbids (E[L] or an acceptance above its ceiling) is evidence of *not exact*:
// those tests share 0.1 of the case's exactness level, here over 3 tests (E[L] and two nodes).
TEST(VerdictPolicy, ExceedingTheCeilingIsNotExact) {
  std::vector<TreeEvidence> cases = {clean_case()};
  cases[0].excess_p = 1.6e-5;  // 1.6e-5 · 3 / 0.1 = 4.8e-4 < 5e-4
  EXPECT_EQ(decide(cases, VerdictPolicy{}).verdict, Verdict::not_exact);
  cases[0].excess_p = 1.0;
  cases[0].acceptance_excess_p[1] = 1.8e-5;  // 5.4e-4: not enough
  EXPECT_EQ(decide(cases, VerdictPolicy{}).verdict, Verdict::exact_saturated);
}

// Saturation needs power of its own: with 100 samples the E[L] test cannot see a 0.05-token
// shortfall, so an exact case is "exact, saturation inconclusive" (exit 5), never "saturated".
TEST(VerdictPolicy, SaturationWithoutPowerIsInconclusive) {
  std::vector<TreeEvidence> cases = {clean_case(100)};
  const SubjectVerdict v = decide(cases, VerdictPolicy{});
  EXPECT_EQ(v.verdict, Verdict::exact_saturation_inconclusive);
  ASSERT_TRUE(v.cases[0].detectable_shortfall.has_value());
  EXPECT_GT(*v.cases[0].detectable_shortfall, 0.05);
  EXPECT_LT(*decide(std::vector<TreeEvidence>{clean_case()}, VerdictPolicy{})
                 .cases[0]
                 .detectable_shortfall,
            0.05);
  // A tree whose L takes one value (no drafted child has mass): no shortfall is possible.
  std::vector<TreeEvidence> root_only = {clean_case(10)};
  root_only[0].lengths = {1.0};
  root_only[0].length_mass = {1.0};
  EXPECT_EQ(decide(root_only, VerdictPolicy{}).verdict, Verdict::exact_saturated);
  // A case without a tree (a model case) has no saturation test and adds none.
  TreeEvidence model;
  model.samples = 100;
  model.chi_square.p_value = 1.0;
  model.detectable_tv = 0.01;
  const SubjectVerdict m = decide(std::vector<TreeEvidence>{model}, VerdictPolicy{});
  EXPECT_EQ(m.saturation_tests, 0u);
  EXPECT_EQ(m.verdict, Verdict::exact_saturated);
}

TEST(VerdictPolicy, OutOfRangeSettingsAreRefused) {
  EXPECT_NO_THROW(validate(VerdictPolicy{}));
  EXPECT_THROW(validate(VerdictPolicy{.max_detectable_tv = 0.0}), std::invalid_argument);
  EXPECT_THROW(validate(VerdictPolicy{.max_detectable_tv = 1.0}), std::invalid_argument);
  EXPECT_THROW(validate(VerdictPolicy{.required_power = 1.5}), std::invalid_argument);
  EXPECT_THROW(validate(VerdictPolicy{.alpha = 0.0}), std::invalid_argument);
}

// A case's tests of independence: in its exactness p (at their shares), and in its power rule.
TEST(VerdictPolicy, TestsOfIndependenceDecideAndMustBePowered) {
  TreeEvidence e = clean_case();
  e.iid_tests.assign(stats::kIidTests, stats::IidTest{"t", 1000, {}, 0.01});
  EXPECT_EQ(decide(std::vector<TreeEvidence>{e}, VerdictPolicy{}).verdict,
            Verdict::exact_saturated);
  // p at its share of the case's level: rejected once p / share falls below α/2.
  const double share = VerdictPolicy::iid_test_share(true);
  e.iid_tests[3].result.p_value = 0.9 * share * VerdictPolicy{}.exactness_alpha();
  EXPECT_EQ(decide(std::vector<TreeEvidence>{e}, VerdictPolicy{}).verdict, Verdict::not_exact);
  e.iid_tests[3].result.p_value = 1.1 * share * VerdictPolicy{}.exactness_alpha();
  EXPECT_EQ(decide(std::vector<TreeEvidence>{e}, VerdictPolicy{}).verdict,
            Verdict::exact_saturated);
  e.iid_tests[1].detectable_tv = 0.2;  // not powered at the policy's TV: never a pass
  EXPECT_EQ(decide(std::vector<TreeEvidence>{e}, VerdictPolicy{}).verdict, Verdict::inconclusive);
  e.enumerated = true;  // enumeration sees one block's law, not the independence of two
  EXPECT_EQ(decide(std::vector<TreeEvidence>{e}, VerdictPolicy{}).verdict, Verdict::inconclusive);
  EXPECT_NEAR(VerdictPolicy::identity_share(true, true) + stats::kIidTests * share, kIdentityShare,
              1e-15);
  // A lag-2 test (phase 0) decides like any other, at the same share.
  e = clean_case();
  e.iid_tests.assign(stats::kIidTests, stats::IidTest{"t", 1000, {}, 0.01});
  e.iid_tests[stats::serial_test_index(2, 0)].result.p_value =
      0.9 * share * VerdictPolicy{}.exactness_alpha();
  EXPECT_EQ(decide(std::vector<TreeEvidence>{e}, VerdictPolicy{}).verdict, Verdict::not_exact);
  e.iid_tests[stats::serial_test_index(2, 0)].result.p_value = 1.0;
  e.iid_tests[stats::serial_test_index(stats::kSerialLags, 1)].detectable_tv = 0.06;
  EXPECT_EQ(decide(std::vector<TreeEvidence>{e}, VerdictPolicy{}).verdict, Verdict::inconclusive);
}

// A model case (no tree) splits its whole level between its identity test and its tests of
// independence, and is decided by them alone.
TEST(VerdictPolicy, AModelCasesTestsOfIndependenceShareItsWholeLevel) {
  EXPECT_NEAR(VerdictPolicy::identity_share(false, true) +
                  stats::kIidTests * VerdictPolicy::iid_test_share(false),
              1.0, 1e-15);
  TreeEvidence e;
  e.samples = 1000;
  e.chi_square.p_value = 0.5;
  e.detectable_tv = 0.01;
  e.iid_tests.assign(stats::kIidTests, stats::IidTest{"t", 500, {}, 0.01});
  EXPECT_EQ(decide(std::vector<TreeEvidence>{e}, VerdictPolicy{}).verdict,
            Verdict::exact_saturated);
  e.iid_tests[stats::serial_test_index(2, 1)].result.p_value =
      0.9 * VerdictPolicy::iid_test_share(false) * VerdictPolicy{}.exactness_alpha();
  EXPECT_EQ(decide(std::vector<TreeEvidence>{e}, VerdictPolicy{}).verdict, Verdict::not_exact);
}

// Null simulations are keyed by the run's seed, and every test of a case has its own id.
TEST(VerdictPolicy, NullSimulationsAreKeyedByTheRunsSeed) {
  const VerdictPolicy a{.seed = 7}, b{.seed = 8};
  EXPECT_EQ(a.identity_test_level(8, 3, true, true).seed, 7u);
  EXPECT_EQ(b.identity_test_level(8, 3, true, true).seed, 8u);
  EXPECT_EQ(a.iid_test_level(8, 3, true, 2).seed, 7u);
  std::vector<std::uint32_t> ids = {a.identity_test_level(8, 3, true, true).id};
  for (std::size_t t = 0; t < stats::kIidTests; ++t)
    ids.push_back(a.iid_test_level(8, 3, true, t).id);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
}

TEST(VerdictPolicy, InvalidPathsAndImpossibleCellsFailAtOnce) {
  std::vector<TreeEvidence> cases = {clean_case()};
  cases[0].invalid = 1;
  EXPECT_EQ(decide(cases, VerdictPolicy{}).verdict, Verdict::not_exact);
  cases[0].invalid = 0;
  cases[0].chi_square.impossible = 1;
  EXPECT_EQ(decide(cases, VerdictPolicy{}).verdict, Verdict::not_exact);
}

// Without enumeration, exact needs power: a case that cannot detect TV 0.05 (or any TV) is
// inconclusive; a failed test still says "not exact" (rejection needs no power).
TEST(VerdictPolicy, NoPowerIsInconclusiveNeverExact) {
  std::vector<TreeEvidence> cases = {clean_case()};
  cases[0].detectable_tv = 0.2;
  EXPECT_EQ(decide(cases, VerdictPolicy{}).verdict, Verdict::inconclusive);
  cases[0].detectable_tv.reset();
  EXPECT_EQ(decide(cases, VerdictPolicy{}).verdict, Verdict::inconclusive);
  cases[0].chi_square.p_value = 1e-9;
  EXPECT_EQ(decide(cases, VerdictPolicy{}).verdict, Verdict::not_exact);
}

// Enumeration decides with no noise, and lends power: an enumerated exact case is exact however
// few its samples; an enumerated TV above tolerance is not exact whatever sampling says.
TEST(VerdictPolicy, EnumerationDecidesAndNeedsNoPower) {
  std::vector<TreeEvidence> cases = {clean_case(10)};
  cases[0].detectable_tv.reset();
  cases[0].enumerated = true;
  cases[0].ceiling = cases[0].exact_mean_length = 1.5;
  EXPECT_EQ(decide(cases, VerdictPolicy{}).verdict, Verdict::exact_saturated);
  cases[0].exact_tv = 1e-9;
  EXPECT_EQ(decide(cases, VerdictPolicy{}).verdict, Verdict::not_exact);
  cases[0].exact_tv = 0.0;
  cases[0].exact_mean_length = 1.4;
  EXPECT_EQ(decide(cases, VerdictPolicy{}).verdict, Verdict::exact_not_saturated);
}

TEST(VerdictPolicy, ExitCodes) {
  EXPECT_EQ(verdict_exit_code(Verdict::exact_saturated), 0);
  EXPECT_EQ(verdict_exit_code(Verdict::not_exact), 1);
  EXPECT_EQ(verdict_exit_code(Verdict::exact_not_saturated), 3);
  EXPECT_EQ(verdict_exit_code(Verdict::inconclusive), 4);
  EXPECT_EQ(verdict_exit_code(Verdict::exact_saturation_inconclusive), 5);
}

TEST(SelfTest, EveryKnownAnswerHoldsInThisBuild) {
  for (const KnownAnswer& a : run_selftest()) EXPECT_TRUE(a.passed) << a.name << ": " << a.detail;
}

// The selftest can fail: a known answer off by more than its tolerance is reported as failed.
TEST(SelfTest, AWrongAnswerFails) {
  EXPECT_TRUE(known_answer("x", 1.0, 1.0, 0.0).passed);
  EXPECT_FALSE(known_answer("x", 1.0 + 1e-12, 1.0, 0.0).passed);
  EXPECT_FALSE(known_answer("x", 0.5, 0.7, 0.1).passed);
}

}  // namespace
}  // namespace tev::judging
