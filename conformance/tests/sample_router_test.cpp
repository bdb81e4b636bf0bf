// The conformance file router: sample lines reach their own case's judge whatever their order;
// anything that names no case is refused with its source:line.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "conformance/sample_router.hpp"

namespace tev::conformance {
namespace {

// Two cases over V = 2: "a" a root with one child (token 0), "b" a lone root; 3 and 2 samples.
const char* kCases =
    R"({"format_version": 1, "case_id": "a", "vocab": 2, "parents": [-1, 0], "tokens": [null, 0], "probs": [[0.5, 0.5], [0.5, 0.5]], "samples": 3})"
    "\n\n"
    R"({"format_version": 1, "case_id": "b", "vocab": 2, "parents": [-1], "tokens": [null], "probs": [[0.25, 0.75]], "samples": 2})"
    "\n";

ConformanceReport route(const std::string& cases, const std::string& samples) {
  std::istringstream cases_in(cases), samples_in(samples);
  CaseReader reader(cases_in, "cases.jsonl");
  SampleRouter router(reader, 1);
  router.add_stream(samples_in, "samples.jsonl");
  return router.judge(tev::judging::VerdictPolicy{});
}

// Expects InputError whose message holds every one of `expected`.
void expect_refused(const std::string& cases, const std::string& samples,
                    std::initializer_list<const char*> expected) {
  try {
    route(cases, samples);
    FAIL() << "accepted input that should be refused";
  } catch (const InputError& e) {
    for (const char* part : expected)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(SampleRouter, RoutesInterleavedSamplesToTheirCases) {
  const ConformanceReport report = route(kCases, R"({"case_id": "b", "accepted": [], "bonus": 1})"
                                                 "\n"
                                                 R"({"case_id": "a", "accepted": [0], "bonus": 1})"
                                                 "\n"
                                                 "   \n"
                                                 R"({"case_id": "a", "accepted": [], "bonus": 1})"
                                                 "\n"
                                                 R"({"case_id": "b", "accepted": [], "bonus": 0})"
                                                 "\n"
                                                 R"({"case_id": "a", "accepted": [0], "bonus": 0})"
                                                 "\n");
  ASSERT_EQ(report.cases.size(), 2u);
  EXPECT_EQ(report.cases[0].id, "a");
  EXPECT_EQ(report.cases[0].samples, 3u);
  EXPECT_EQ(report.cases[1].id, "b");
  EXPECT_EQ(report.cases[1].samples, 2u);
  EXPECT_EQ(report.cases[0].impossible + report.cases[1].impossible, 0u);
}

TEST(SampleRouter, RefusesASampleForNoCase) {
  expect_refused(kCases,
                 R"({"case_id": "a", "accepted": [], "bonus": 1})"
                 "\n"
                 R"({"case_id": "c", "accepted": [], "bonus": 1})"
                 "\n",
                 {"samples.jsonl:2", "no case \"c\" in cases.jsonl"});
}

TEST(SampleRouter, RefusesLinesWithoutAStringCaseId) {
  expect_refused(kCases, "not json\n", {"samples.jsonl:1", "not valid JSON"});
  expect_refused(kCases, "[1, 2]\n", {"samples.jsonl:1", "a sample needs a string \"case_id\""});
  expect_refused(kCases,
                 R"({"accepted": [], "bonus": 1})"
                 "\n",
                 {"samples.jsonl:1", "case_id"});
  expect_refused(kCases,
                 R"({"case_id": 7, "accepted": [], "bonus": 1})"
                 "\n",
                 {"samples.jsonl:1", "case_id"});
  expect_refused(kCases,
                 R"({"case_id": "a", "bonus": 1e999})"
                 "\n",
                 {"samples.jsonl:1", "not valid JSON"});
}

TEST(SampleRouter, RefusesACaseIdUsedTwice) {
  const std::string twice =
      std::string(kCases) +
      R"({"format_version": 1, "case_id": "a", "vocab": 2, "parents": [-1], "tokens": [null], "probs": [[0.5, 0.5]], "samples": 1})"
      "\n";
  expect_refused(twice, "", {"cases.jsonl:4", "\"a\""});
}

TEST(SampleRouter, RefusesACaseWithoutAllItsSamples) {
  expect_refused(kCases,
                 R"({"case_id": "a", "accepted": [], "bonus": 1})"
                 "\n",
                 {"the case asks for 3"});
}

}  // namespace
}  // namespace tev::conformance
