// Smoke test of `tevsuite theorem1 --quick`: the JSON has every part the report needs, and the
// reproduction holds. Statistical parts run at the quick sizes with the fixed default seed.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "reports/theorem1.hpp"

namespace tev {
namespace {

const nlohmann::json& quick_results() {
  static const nlohmann::json results = [] {
    std::ostringstream progress;
    Theorem1Options options = quick_options({});
    options.threads = 2;
    return run_theorem1(options, progress);
  }();
  return results;
}

TEST(Theorem1Quick, EveryClaimHoldsAndEveryVerdictIsExpected) {
  const auto& r = quick_results();
  EXPECT_EQ(r["format_version"], 1);
  EXPECT_EQ(r["claims"].size(), 9u);
  for (const auto& c : r["claims"]) EXPECT_TRUE(c["holds"].get<bool>()) << c["claim"] << ": " << c["evidence"];
  for (const auto& v : r["sweep"]["verifiers"]) EXPECT_TRUE(v["as_expected"].get<bool>()) << v["name"] << ": " << v["verdict"];
  EXPECT_TRUE(r["passed"].get<bool>());
}

TEST(Theorem1Quick, SweepCoversShapesBudgetsAndFamilies) {
  const auto& cases = quick_results()["sweep"]["cases"];
  EXPECT_EQ(cases.size(), 16u);  // 2 budgets × 4 shapes × 2 families
  std::set<std::string> shapes;
  for (const auto& c : cases) shapes.insert(c["shape"].get<std::string>());
  EXPECT_EQ(shapes, (std::set<std::string>{"random", "ddtree", "chain", "star"}));
  EXPECT_EQ(quick_results()["sweep"]["verifiers"].size(), 7u);
  for (const auto& v : quick_results()["sweep"]["verifiers"]) EXPECT_EQ(v["per_case"].size(), cases.size());
}

// Calibration: 200 seeds at the quick size. KS at alpha = 1e-3 per series (fixed seed).
TEST(Theorem1Quick, CalibrationSeriesLookUniform) {
  const auto& cal = quick_results()["calibration"];
  ASSERT_EQ(cal["series"].size(), 4u);
  for (const auto& s : cal["series"]) {
    EXPECT_EQ(s["p_values"].size(), 200u);
    EXPECT_GT(s["ks_p"].get<double>(), 1e-3) << s["test"];
  }
}

TEST(Theorem1Quick, PowerAndCompositionCatchTheirMutants) {
  const auto& power = quick_results()["power"];
  ASSERT_EQ(power["mutants"].size(), 8u);
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

}  // namespace
}  // namespace tev
