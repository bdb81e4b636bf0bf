// The report renderer: kinds are told apart (and older files without "kind" still are), the χ²
// bins it reports add up to the test's statistic, and a check's verdict report spells out the
// first case judged not exact with its farthest bins, through the figures-missing path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include "core/exit_law.hpp"
#include "stats/goodness_of_fit.hpp"
#include "reports/render.hpp"
#include "reports/verdict_json.hpp"
#include "judging/verdicts.hpp"
#include "workloads/suite.hpp"

namespace tev::reports {
namespace {

using nlohmann::json;

TEST(ResultsKind, ReadsKindAndFallsBackToCommand) {
  EXPECT_EQ(results_kind({{"kind", "conformance"}, {"command", "check"}}),
            ResultsKind::conformance);
  EXPECT_EQ(results_kind({{"command", "live"}}), ResultsKind::live);
  EXPECT_EQ(results_kind({{"command", "check"}}), ResultsKind::check);
  EXPECT_EQ(results_kind({{"command", "check"}, {"drafts", "sampled"}}),
            ResultsKind::sampled_check);
  EXPECT_EQ(results_kind({{"command", "theorem1"}, {"format_version", 1}}), ResultsKind::theorem1);
  for (ResultsKind k : {ResultsKind::theorem1, ResultsKind::exittrain, ResultsKind::check,
                        ResultsKind::sampled_check, ResultsKind::live, ResultsKind::live_sampled,
                        ResultsKind::conformance}) {
    EXPECT_EQ(results_kind({{"kind", results_kind_name(k)}}), k);
  }
}

TEST(ResultsKind, RejectsOtherFilesNamingTheKindsAccepted) {
  for (const json& bad :
       {json{{"command", "bench"}}, json::array({1, 2}), json{{"format_version", 2}}}) {
    try {
      results_kind(bad);
      FAIL() << "accepted " << bad.dump();
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("not a results file tevsuite report renders"), std::string::npos) << what;
      EXPECT_NE(what.find("conformance check|run --json"), std::string::npos) << what;
      EXPECT_NE(what.find("check-sampled-drafts"), std::string::npos) << what;
    }
  }
}

TEST(LargestDeviations, SquaresOfEveryBinAddUpToTheChiSquare) {
  // Two groups of four cells; at n = 40 the 0.05 cells (expected 2) pool into their group's tail.
  const std::vector<double> p = {0.3, 0.05, 0.05, 0.1, 0.2, 0.1, 0.05, 0.15};
  const std::vector<std::uint64_t> counts = {20, 0, 3, 2, 5, 6, 1, 3};
  const std::vector<std::int32_t> groups = stats::node_groups(2, 4);
  const stats::ChiSquareResult chi = stats::pearson_chi_square(counts, p, groups);
  const std::vector<stats::BinDeviation> all = stats::largest_deviations(counts, p, groups, 100);
  ASSERT_EQ(static_cast<std::int32_t>(all.size()), chi.bins);
  double squares = 0.0;
  for (const stats::BinDeviation& d : all) squares += d.residual * d.residual;
  EXPECT_NEAR(squares, chi.statistic, 1e-12);
  for (std::size_t i = 1; i < all.size(); ++i)
    EXPECT_GE(std::abs(all[i - 1].residual), std::abs(all[i].residual));
  // Cell 0: 20 observed against 12 expected, the largest deviation: (20 − 12)/√12.
  EXPECT_EQ(all[0].cell, 0);
  EXPECT_EQ(all[0].group, 0);
  EXPECT_EQ(all[0].observed, 20u);
  EXPECT_DOUBLE_EQ(all[0].expected, 12.0);
  EXPECT_NEAR(all[0].residual, 8.0 / std::sqrt(12.0), 1e-12);
  // Group 0's tail pools cells 1, 2 and 3 (expected 2, 2, 4): no single cell, three of them.
  const auto tail = std::find_if(all.begin(), all.end(),
                                 [](const stats::BinDeviation& d) { return d.cells == 3; });
  ASSERT_NE(tail, all.end());
  EXPECT_EQ(tail->cell, -1);
  EXPECT_EQ(tail->group, 0);
  EXPECT_EQ(tail->observed, 5u);
  EXPECT_EQ(stats::largest_deviations(counts, p, groups, 2).size(), 2u);
}

TEST(LargestDeviations, ImpossibleCellsComeFirst) {
  const std::vector<double> p = {0.5, 0.0, 0.5, 0.0};
  const std::vector<std::uint64_t> counts = {500, 0, 480, 20};
  const std::vector<stats::BinDeviation> top =
      stats::largest_deviations(counts, p, stats::node_groups(2, 2), 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].cell, 3);
  EXPECT_EQ(top[0].observed, 20u);
  EXPECT_EQ(top[0].expected, 0.0);
  EXPECT_TRUE(std::isinf(top[0].residual));
  EXPECT_GT(top[1].expected, 0.0);
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A check results file as `tevsuite check --json` lays it out, on two small trees: TEV and a
// planted mutant, with the real writers.
json small_check() {
  workloads::SuiteConfig suite_config;
  suite_config.trees = 2;
  suite_config.vocab = 8;
  suite_config.budget = 6;
  const std::vector<workloads::CheckCase> suite = workloads::make_suite(suite_config).cases;
  judging::JudgingConfig config;
  config.samples = 20000;
  config.verifiers_sharing_alpha = 2;
  json j = {{"format_version", 2},
            {"kind", results_kind_name(ResultsKind::check)},
            {"command", "check"},
            {"seconds", 0.0}};
  j["config"] = {{"samples", config.samples},
                 {"seed", config.seed},
                 {"alpha", config.alpha},
                 {"verdict_policy", policy_json(config.policy(), suite.size())}};
  for (const workloads::CheckCase& c : suite) {
    const ExitLaw law = ExitLaw::compute(c.tree, c.rows);
    j["trees"].push_back({{"label", c.label},
                          {"nodes", c.tree.size()},
                          {"ceiling", law.ceiling()},
                          {"prefix", law.prefix}});
  }
  bool passed = true;
  for (VerifierId id : {VerifierId::tree_exit, VerifierId::mutant_bonus_from_full_row}) {
    const judging::VerifierReport r = judging::check_verifier(id, suite, config);
    passed = passed && r.as_expected;
    j["verifiers"].push_back(verifier_json(r));
  }
  j["passed"] = passed;
  return j;
}

TEST(VerdictReport, CheckSpellsOutTheFirstCatchAndItsFarthestCells) {
  const json results = small_check();
  const json& mutant = results.at("verifiers").at(1);
  ASSERT_EQ(mutant.at("verdict"), "not exact");
  // The added fields: acceptance per node (against the tree's P(u)), the farthest bins.
  const json& tree = mutant.at("per_tree").at(0);
  EXPECT_EQ(results.at("trees").at(0).at("prefix").size(), tree.at("accepted").size());
  EXPECT_EQ(tree.at("largest_deviations").size(), judging::kReportedDeviations);

  const auto dir = std::filesystem::temp_directory_path() / "tev-render-test";
  std::filesystem::remove_all(dir);
  const RenderResult written = render_report(results, {dir, "/nonexistent/python3"});
  EXPECT_NE(written.warning.find("figures were not drawn"), std::string::npos);
  const std::string md = read(dir / "report.md");
  for (const char* part :
       {"## Verdict per verifier", "## Verdict per tree", "## First failing case",
        "How a catch looks", "## Largest standardized deviations", "(o - e) / sqrt(e)",
        "## Per-node acceptance against P(u)", "binomial z (descriptive)",
        "figures/acceptance_vs_prefix.png"}) {
    EXPECT_NE(md.find(part), std::string::npos) << part << "\n" << md;
  }
  EXPECT_NE(md.find(mutant.at("name").get<std::string>()), std::string::npos);
  EXPECT_NE(read(dir / "report.html").find("<h2>First failing case</h2>"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(VerdictReport, AnIncompleteFileFailsBeforeWriting) {
  json results = small_check();
  results.at("verifiers").at(0).erase("per_tree");
  const auto dir = std::filesystem::temp_directory_path() / "tev-render-incomplete";
  std::filesystem::remove_all(dir);
  EXPECT_THROW(render_report(results, {dir}), json::exception);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace tev::reports
