// reports/: the one JSON results writer (and the run context it honours), and the tables and JSON
// of typed results, on hand-made results.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/tests/scratch_dir.hpp"
#include "reports/check_report.hpp"
#include "reports/conformance_report.hpp"
#include "reports/live_report.hpp"
#include "reports/results_writer.hpp"
#include "reports/verdict_table.hpp"

namespace tev::reports {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ResultsWriter, WritesTheJsonAndSaysWhere) {
  const models::ScratchDir dir;
  const std::string path = dir.file("out.json");
  ResultsWriter writer(path, montecarlo::RunContext{});
  ASSERT_TRUE(writer.wanted());
  std::ostringstream out;
  writer.write({{"passed", true}}, out);
  EXPECT_EQ(out.str(), "wrote " + path + "\n");
  std::ifstream in(path);
  EXPECT_EQ(nlohmann::json::parse(in), (nlohmann::json{{"passed", true}}));
}

TEST(ResultsWriter, WritesNothingWhereTheContextDoesNotWriteFiles) {
  const models::ScratchDir dir;
  const std::string path = dir.file("out.json");
  ResultsWriter writer(path, montecarlo::RunContext{{1, 2}, false});
  EXPECT_FALSE(writer.wanted());
  std::ostringstream out;
  writer.write({{"passed", true}}, out);
  EXPECT_EQ(out.str(), "");
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(ResultsWriter, EmptyPathAsksForNoFileAndABadPathFailsAtOnce) {
  EXPECT_FALSE(ResultsWriter("", montecarlo::RunContext{}).wanted());
  try {
    ResultsWriter("/nonexistent-dir/out.json", montecarlo::RunContext{});
    FAIL() << "opened an unwritable path";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), "cannot write /nonexistent-dir/out.json")) << e.what();
  }
}

judging::VerifierReport tev_report(bool as_expected) {
  judging::VerifierReport r;
  r.info = verifier_info(VerifierId::tree_exit);
  r.verdict = as_expected ? judging::Verdict::exact_saturated : judging::Verdict::not_exact;
  r.as_expected = as_expected;
  r.samples_per_tree = 1000;
  r.trees.resize(2);
  r.decision.cases.resize(2);  // one verdict per tree, as decide() gives
  r.trees[0].detectable_tv = 0.01;
  r.trees[1].detectable_tv = 0.02;
  return r;
}

TEST(VerdictTable, OneRowPerVerifierWithItsWeakestTreeAndUnexpectedMarked) {
  const std::vector<judging::VerifierReport> reports = {tev_report(true), tev_report(false)};
  std::ostringstream out;
  print_verdict_table(reports, out);
  std::istringstream lines(out.str());
  std::string line, first, second;
  while (std::getline(lines, line)) {
    if (line.rfind("tev ", 0) == 0) (first.empty() ? first : second) = line;
  }
  EXPECT_TRUE(contains(first, "exact and saturated")) << first;
  EXPECT_TRUE(contains(first, "2.00e-02")) << first;  // the larger of the trees' detectable TVs
  EXPECT_FALSE(contains(first, "UNEXPECTED")) << first;
  EXPECT_TRUE(contains(second, "not exact")) << second;
  EXPECT_TRUE(contains(second, "<-- UNEXPECTED")) << second;
}

// A long step is silent for its first kLongStepShownAfter seconds, then named once and its count
// shown every kLongStepEvery seconds; a new step starts the silence again.
TEST(LongStepProgress, ShowsOnlyStepsThatRunForSeconds) {
  double now = 0.0;
  std::ostringstream out;
  const auto note = long_step_progress(out, [&now] { return now; });
  note("replicates", 0, 1000);
  now = kLongStepShownAfter / 2;
  note("replicates", 100, 1000);
  EXPECT_EQ(out.str(), "");
  now = kLongStepShownAfter;
  note("replicates", 200, 1000);
  EXPECT_EQ(out.str(), " replicates (at most 1000): 200...");
  now += kLongStepEvery / 2;
  note("replicates", 300, 1000);
  now += kLongStepEvery / 2;
  note("replicates", 400, 1000);
  EXPECT_EQ(out.str(), " replicates (at most 1000): 200... 400...");
  note("other", 0, 10);
  now += kLongStepShownAfter / 2;
  note("other", 5, 10);
  EXPECT_EQ(out.str(), " replicates (at most 1000): 200... 400...");
}

TEST(Selftest, FailuresArePrintedAndFailTheBuild) {
  const std::vector<judging::KnownAnswer> answers = {{"one", true, "1 = 1"},
                                                     {"two", false, "2 != 3"}};
  std::ostringstream quiet, verbose;
  EXPECT_EQ(print_selftest(answers, false, quiet), 1);
  EXPECT_FALSE(contains(quiet.str(), "one"));
  EXPECT_TRUE(contains(quiet.str(), "FAIL  two: 2 != 3"));
  EXPECT_TRUE(contains(quiet.str(), "1 of 2 known-answer tests") &&
              contains(quiet.str(), "cannot be trusted"));
  print_selftest(answers, true, verbose);
  EXPECT_TRUE(contains(verbose.str(), "ok    one"));
}

TEST(CheckReport, AFailedSelftestIsAllThatIsPrinted) {
  experiments::CheckSuiteResult result;
  result.selftest = {{"two", false, "2 != 3"}};
  std::ostringstream out;
  print_check(experiments::CheckSuiteOptions{}, result, out);
  EXPECT_TRUE(contains(out.str(), "FAIL  two"));
  EXPECT_FALSE(contains(out.str(), "Suite:"));
  EXPECT_EQ(result.exit_code(), 1);
}

TEST(CheckReport, JsonCarriesTheConfigAndEveryVerifier) {
  experiments::CheckSuiteResult result;
  result.verifiers = {tev_report(true)};
  result.passed = true;
  experiments::CheckSuiteOptions options;
  options.judging.samples = 1234;
  const nlohmann::json j = check_json(options, result);
  EXPECT_EQ(j.at("format_version"), 2);
  EXPECT_EQ(j.at("command"), "check");
  EXPECT_EQ(j.at("config").at("samples"), 1234);
  EXPECT_EQ(j.at("verifiers").size(), 1u);
  EXPECT_EQ(j.at("verifiers")[0].at("name"), "tev");
  EXPECT_EQ(j.at("passed"), true);
}

TEST(ConformanceReport, InconclusiveExitsFourAndNamesTheCase) {
  conformance::ConformanceReport report;
  conformance::CaseResult c;
  c.id = "c3";
  c.label = "star";
  c.decision.verdict = judging::Verdict::inconclusive;
  report.cases.push_back(c);
  report.overall = judging::Verdict::inconclusive;
  report.first_failing = "c3";
  std::ostringstream out;
  EXPECT_EQ(report.exit_code(), 4);
  print_conformance(report, out);
  EXPECT_TRUE(contains(out.str(), "overall: inconclusive (first such case: c3)")) << out.str();
  const nlohmann::json j = conformance_json(report);
  EXPECT_EQ(j.at("exit_code"), 4);
  EXPECT_EQ(j.at("first_failing_case"), "c3");
  EXPECT_EQ(j.at("cases")[0].at("case_id"), "c3");
}

TEST(ConformanceReport, EmitSummaryGivesTheDetectableRange) {
  conformance::EmitSummary s;
  s.cases = 3;
  s.samples = 5;
  s.chi_square_level = 1e-4;
  s.detectable_tvs = {0.001, 0.002};
  s.undetectable = 1;
  std::ostringstream out;
  print_emit_summary(s, "cases.jsonl", out);
  EXPECT_TRUE(contains(out.str(), "wrote 3 cases to cases.jsonl (5 samples each)"));
  EXPECT_TRUE(contains(out.str(), "TV >= 0.001 .. 0.002 (median 0.002)"));
  EXPECT_TRUE(contains(out.str(), "1 case(s) detect no contamination"));
}

TEST(LiveReport, DumpsCarryNoGenerationOrTarget) {
  live::LiveResult result;
  result.from_dumps = true;
  result.verifiers = {tev_report(true)};
  result.passed = true;
  live::LiveOptions options;
  options.from_dir = "dumps";
  const nlohmann::json j = live_json(options, result);
  EXPECT_EQ(j.at("config").at("from"), "dumps");
  EXPECT_FALSE(j.contains("target"));
  EXPECT_FALSE(j.contains("first_word"));
  EXPECT_FALSE(j.contains("generation"));
  std::ostringstream out;
  print_live(options, result, out);
  EXPECT_FALSE(contains(out.str(), "Speculative generation"));
  EXPECT_TRUE(contains(out.str(), "PASS: on live trees"));
  EXPECT_EQ(result.exit_code(), 0);
}

TEST(LiveReport, OnlyInconclusiveVerdictsExitFour) {
  live::LiveResult result;
  result.inconclusive = true;
  EXPECT_EQ(result.exit_code(), 4);
  result.inconclusive = false;
  EXPECT_EQ(result.exit_code(), 1);
}

}  // namespace
}  // namespace tev::reports
