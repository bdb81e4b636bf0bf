// Smoke test of `tevsuite theorem1 --quick`: the JSON has every part the report needs, and the
// reproduction holds. Statistical parts run at the quick sizes with the fixed default seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>

#include "stats/goodness_of_fit.hpp"
#include "core/verifier_catalog.hpp"
#include "reports/theorem1.hpp"

namespace tev::properties {
namespace {

const nlohmann::json& quick_results() {
  static const nlohmann::json results = [] {
    std::ostringstream progress;
    experiments::Theorem1Options options = experiments::quick_options({});
    options.threads = 2;
    return reports::theorem1_json(experiments::run_theorem1(options, progress));
  }();
  return results;
}

TEST(Theorem1Quick, EveryClaimHoldsAndEveryVerdictIsExpected) {
  const auto& r = quick_results();
  EXPECT_EQ(r["format_version"], 1);
  EXPECT_EQ(r["claims"].size(), 11u);
  for (const auto& c : r["claims"])
    EXPECT_TRUE(c["holds"].get<bool>()) << c["claim"] << ": " << c["evidence"];
  for (const auto& v : r["sweep"]["verifiers"])
    EXPECT_TRUE(v["as_expected"].get<bool>()) << v["name"] << ": " << v["verdict"];
  EXPECT_TRUE(r["passed"].get<bool>());
}

TEST(Theorem1Quick, SweepCoversShapesBudgetsAndFamilies) {
  const auto& cases = quick_results()["sweep"]["cases"];
  EXPECT_EQ(cases.size(), 16u);  // 2 budgets × 4 shapes × 2 families
  std::set<std::string> shapes;
  for (const auto& c : cases) shapes.insert(c["shape"].get<std::string>());
  EXPECT_EQ(shapes, (std::set<std::string>{"random", "ddtree", "chain", "star"}));
  EXPECT_EQ(quick_results()["sweep"]["verifiers"].size(), 7u);
  for (const auto& v : quick_results()["sweep"]["verifiers"])
    EXPECT_EQ(v["per_tree"].size(), cases.size());
}

// Calibration: 200 seeds at the quick size (fixed seed). Every series the suite relies on holds its
// level at 0.05 and 0.01 (one-sided binomial test of its false alarms at 1e-3); the continuous
// chi-square tests are also uniform (KS at 1e-3). The Chernoff E[L] bounds and the discrete
// binomial test are conservative, so KS is not asked of them.
TEST(Theorem1Quick, CalibrationSeriesHoldTheirLevel) {
  const auto& cal = quick_results()["calibration"];
  ASSERT_EQ(cal["series"].size(), 7u);
  for (const auto& s : cal["series"]) {
    const auto p = s["p_values"].get<std::vector<double>>();
    ASSERT_EQ(p.size(), 200u);
    if (!s["gates"].get<bool>()) continue;
    for (double rate : {0.05, 0.01}) {
      const auto alarms = static_cast<std::uint64_t>(
          std::count_if(p.begin(), p.end(), [&](double x) { return x < rate; }));
      EXPECT_GE(stats::binomial_upper_p(alarms, p.size(), rate), 1e-3)
          << s["test"] << " at " << rate;
    }
    if (s["test"].get<std::string>().find("chi-square") != std::string::npos) {
      EXPECT_GT(s["ks_p"].get<double>(), 1e-3) << s["test"];
    }
  }
}

TEST(Theorem1Quick, PowerAndCompositionCatchTheirMutants) {
  const auto& power = quick_results()["power"];
  const auto mutants =
      std::count_if(verifier_catalog().begin(), verifier_catalog().end(),
                    [](const VerifierInfo& v) { return v.kind == VerifierKind::mutant; });
  ASSERT_EQ(power["mutants"].size(), static_cast<std::size_t>(mutants));
  for (const auto& m : power["mutants"]) {
    if (m["name"] == "mutant-float32-one-minus-sum") {
      EXPECT_EQ(m["budget_for_99"], 0u);  // beyond any budget: only enumeration catches it
    } else {
      EXPECT_GE(m["power_at_default"].get<double>(), 0.99) << m["name"];
    }
  }
  EXPECT_EQ(power["contamination"].size(), 3u);
  bool mutant_seen = false;
  for (const auto& c : quick_results()["composition"]["results"]) {
    if (c["reuses_randomness"].get<bool>()) {
      mutant_seen = true;
      EXPECT_LT(c["p_value"].get<double>(), 1e-6);
    }
  }
  EXPECT_TRUE(mutant_seen);
}

// Sampled drafts, by exact enumeration: TEV meets 1 + C_p(T) on every realized tree (it is
// saturated and target-only); each q-based verifier is not exact given the tree and exceeds the
// ceiling on some tree, yet its marginal law is p's.
TEST(Theorem1Quick, SampledDraftsBindTheBoundGivenTheTreeForTargetOnlyVerifiersOnly) {
  const auto& rows = quick_results()["sampled_drafts"]["rows"];
  ASSERT_EQ(rows.size(),
            6u);  // TEV and the q-based verifier on chain, i.i.d. and without-replacement drafting
  std::size_t q_based = 0;
  for (const auto& row : rows) {
    EXPECT_LE(row["marginal_tv"].get<double>(), 1e-12) << row["case"];
    if (row["kind"] == "target-only") {
      EXPECT_LE(row["max_excess"].get<double>(), 1e-12) << row["case"];
      EXPECT_GE(row["min_excess"].get<double>(), -1e-12) << row["case"];
      EXPECT_LE(row["conditional_max_tv"].get<double>(), 1e-12) << row["case"];
      EXPECT_EQ(row["excess_mass"].get<double>(), 0.0) << row["case"];
    } else {
      ++q_based;
      EXPECT_GT(row["max_excess"].get<double>(), 1e-3) << row["case"];
      EXPECT_GT(row["conditional_max_tv"].get<double>(), 1e-3) << row["case"];
      EXPECT_GT(row["mean_L"].get<double>(), row["mean_ceiling"].get<double>()) << row["case"];
    }
  }
  EXPECT_EQ(q_based, 3u);
}

}  // namespace
}  // namespace tev::properties
